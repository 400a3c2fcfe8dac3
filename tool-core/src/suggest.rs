//! Nearest candidates for a value a model got slightly wrong (`"PDF"` or
//! `"pfd"` for the enum value `pdf`), so it can correct itself in one step.

/// The candidates closest to `given`, best first: a case-insensitive match
/// alone when there is one; otherwise those within a small edit distance
/// (optimal string alignment: insertions, deletions, substitutions and
/// swaps of neighbours; at most 1 for words up to 4 characters, 2 up to 8,
/// else 3), at most three.
///
/// ```
/// use tool_core::pipeline::nearest_candidates;
/// let options = ["pdf", "png", "html"];
/// assert_eq!(nearest_candidates("PDF", options), ["pdf"]);
/// assert_eq!(nearest_candidates("pfd", options), ["pdf"]);
/// assert_eq!(nearest_candidates("htm", options), ["html"]);
/// assert!(nearest_candidates("spreadsheet", options).is_empty());
/// ```
pub fn nearest_candidates<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let folded = given.to_lowercase();
    let exact: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|c| c.to_lowercase() == folded)
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    // Long inputs are not near anything short; bound the work as well.
    if given.chars().count() > 64 {
        return Vec::new();
    }
    let budget = match folded.chars().count() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
        .copied()
        .filter(|c| c.chars().count() <= 64)
        .map(|c| (distance(&folded, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= budget)
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// Optimal string alignment distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut rows = vec![0usize; (a.len() + 1) * width];
    for (j, cell) in rows.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[i * width] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[(i - 1) * width + j] + 1)
                .min(rows[i * width + j - 1] + 1)
                .min(rows[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[(i - 2) * width + j - 2] + 1);
            }
            rows[i * width + j] = best;
        }
    }
    rows[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_count_once() {
        assert_eq!(distance("pfd", "pdf"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn several_near_candidates_come_best_first() {
        let got = nearest_candidates("json", ["jsonl", "xml", "json5", "yaml"]);
        assert_eq!(got, ["jsonl", "json5"]);
    }

    #[test]
    fn huge_inputs_are_not_compared() {
        let long = "a".repeat(10_000);
        assert!(nearest_candidates(&long, ["a"]).is_empty());
    }
}
