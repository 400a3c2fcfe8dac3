//! Effects of one part on the parts after it, and destinations named by
//! options rather than by position.
//!
//! - `ln -s / r && rm -rf r/*`: after a symbolic link is made, a word that
//!   starts with the link's name may mean the link's target. Every later
//!   part that uses the name is added once more with the target in its
//!   place (marked nested, so no prefix rule approves the pair), and deny
//!   rules and the blacklist judge both readings.
//! - `mv -t DIR SRC…`, `cp --target-directory=DIR SRC…`, `install -t`,
//!   `ln -t`: the files written are `DIR/basename(SRC)`; they are added to
//!   the part's files (see [`SimpleCommand::redirects`]) like a redirection.

use super::types::SimpleCommand;
use super::words::basename;

/// How many links one command line may make before later parts stop being
/// rewritten (each link at most doubles the parts that use it).
const MAX_LINKS: usize = 16;

/// Programs whose `-t DIR` is the directory written into.
const TARGET_DIRECTORY: &[&str] = &["mv", "cp", "install", "ln"];

/// The directory of `-t DIR` / `--target-directory[=]DIR` of `mv`, `cp`,
/// `install` or `ln`, if given.
pub(crate) fn target_directory(words: &[String]) -> Option<String> {
    let (first, args) = words.split_first()?;
    if !TARGET_DIRECTORY.contains(&basename(first)) {
        return None;
    }
    target_and_operands(first, args).0
}

/// The files `words` writes through a target-directory option.
pub(crate) fn target_directory_writes(words: &[String]) -> Vec<String> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    if !TARGET_DIRECTORY.contains(&basename(first)) {
        return Vec::new();
    }
    let (dir, operands) = target_and_operands(first, args);
    let Some(dir) = dir else {
        return Vec::new();
    };
    let dir = dir.trim_end_matches('/');
    let mut out = vec![format!("{dir}/")];
    for operand in operands {
        let name = operand
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(operand);
        if !name.is_empty() {
            out.push(format!("{dir}/{name}"));
        }
    }
    out
}

fn target_and_operands<'w>(first: &str, args: &'w [String]) -> (Option<String>, Vec<&'w str>) {
    let mut dir: Option<String> = None;
    let mut operands: Vec<&str> = Vec::new();
    let mut iter = args.iter();
    let mut options_done = false;
    while let Some(arg) = iter.next() {
        if options_done || !arg.starts_with('-') || arg == "-" {
            operands.push(arg);
            continue;
        }
        if arg == "--" {
            options_done = true;
        } else if arg == "--target-directory" {
            dir = iter.next().cloned();
        } else if let Some(value) = arg.strip_prefix("--target-directory=") {
            dir = Some(value.to_owned());
        } else if !arg.starts_with("--") {
            // A cluster: `-t DIR`, `-vt DIR`, `-tDIR`, `-st DIR`.
            if let Some(at) = arg.find('t') {
                let attached = arg.get(at + 1..).unwrap_or_default();
                dir = if attached.is_empty() {
                    iter.next().cloned()
                } else {
                    Some(attached.to_owned())
                };
            } else if arg_takes_value(first, arg) {
                iter.next();
            }
        }
    }
    (dir, operands)
}

/// Short options of these programs that take a separate value.
fn arg_takes_value(program: &str, arg: &str) -> bool {
    let last = arg.chars().last();
    match basename(program) {
        "install" => matches!(last, Some('m' | 'o' | 'g' | 'S')),
        "cp" | "mv" | "ln" => matches!(last, Some('S')),
        _ => false,
    }
}

/// A symbolic link made by `view`: (name, target).
fn link_made(view: &[String]) -> Option<(String, String)> {
    let (first, args) = view.split_first()?;
    if basename(first) != "ln" {
        return None;
    }
    // `-s` alone or in a cluster before a `t` (what follows `t` is its
    // directory), or `--symbolic`.
    let symbolic = args.iter().take_while(|a| *a != "--").any(|a| {
        a == "--symbolic"
            || a.strip_prefix('-').is_some_and(|cluster| {
                !cluster.starts_with('-')
                    && cluster.split('t').next().is_some_and(|c| c.contains('s'))
            })
    });
    if !symbolic {
        return None;
    }
    let (dir, operands) = target_and_operands(first, args);
    let leaf = |t: &str| {
        t.trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(t)
            .to_owned()
    };
    let target = operands.first()?;
    let name = match (&dir, operands.get(1)) {
        // `ln -s -t DIR TARGET` makes `DIR/leaf`.
        (Some(dir), _) => format!("{}/{}", dir.trim_end_matches('/'), leaf(target)),
        (None, Some(name)) => (*name).to_owned(),
        // `ln -s /etc/passwd` makes `passwd` here.
        (None, None) => leaf(target),
    };
    let name = name
        .trim_end_matches('/')
        .trim_start_matches("./")
        .to_owned();
    (!name.is_empty()).then(|| (name, (*target).to_owned()))
}

/// `word` read through the link `name → target`, if it uses the name.
fn through(word: &str, name: &str, target: &str) -> Option<String> {
    let word_clean = word.trim_start_matches("./");
    let rest = word_clean.strip_prefix(name)?;
    if rest.is_empty() {
        return Some(target.to_owned());
    }
    let rest = rest.strip_prefix('/')?;
    Some(format!("{}/{rest}", target.trim_end_matches('/')))
}

/// Adds, after each part that uses a link made earlier on the same line, a
/// copy with the link's target in place of its name.
pub(crate) fn follow_links(
    parts: &mut Vec<SimpleCommand>,
    views: impl Fn(&SimpleCommand) -> &[Vec<String>],
) -> bool {
    // No part makes a link (the usual case): nothing to follow or copy.
    if !parts
        .iter()
        .any(|p| views(p).iter().any(|v| link_made(v).is_some()))
    {
        return false;
    }
    let mut cut = false;
    let mut links: Vec<(String, String)> = Vec::new();
    let mut out: Vec<SimpleCommand> = Vec::with_capacity(parts.len());
    for part in parts.drain(..) {
        if !links.is_empty() {
            let mut copy: Option<SimpleCommand> = None;
            for (name, target) in &links {
                let rewrite = |w: &String| through(w, name, target);
                let uses = part
                    .words
                    .iter()
                    .skip(1)
                    .chain(&part.redirects)
                    .any(|w| rewrite(w).is_some());
                if uses {
                    let base = copy.take().unwrap_or_else(|| SimpleCommand {
                        assignments: part.assignments.clone(),
                        words: part.words.clone(),
                        redirects: part.redirects.clone(),
                        nested: true,
                        recovered: part.recovered,
                        ..SimpleCommand::default()
                    });
                    let map = |w: &String| rewrite(w).unwrap_or_else(|| w.clone());
                    let mut words = base.words.iter();
                    let mut new_words: Vec<String> = words.next().cloned().into_iter().collect();
                    new_words.extend(words.map(map));
                    copy = Some(SimpleCommand {
                        words: new_words,
                        redirects: base.redirects.iter().map(map).collect(),
                        ..base
                    });
                }
            }
            let made: Vec<(String, String)> =
                views(&part).iter().filter_map(|v| link_made(v)).collect();
            out.push(part);
            out.extend(copy);
            for link in made {
                if links.len() < MAX_LINKS {
                    links.push(link);
                } else {
                    cut = true;
                }
            }
            continue;
        }
        let made: Vec<(String, String)> =
            views(&part).iter().filter_map(|v| link_made(v)).collect();
        out.push(part);
        cut |= made.len() > MAX_LINKS;
        links.extend(made.into_iter().take(MAX_LINKS));
    }
    *parts = out;
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn target_directory_options_name_the_files_written() {
        assert_eq!(
            target_directory_writes(&w("mv -t /etc passwd")),
            ["/etc/", "/etc/passwd"]
        );
        assert_eq!(
            target_directory_writes(&w("cp --target-directory=/etc a/shadow")),
            ["/etc/", "/etc/shadow"]
        );
        assert_eq!(
            target_directory_writes(&w("cp -vt ~/ .profile")),
            ["~/", "~/.profile"]
        );
        assert_eq!(
            target_directory_writes(&w("install -m 755 -t /usr/bin x")),
            ["/usr/bin/", "/usr/bin/x"]
        );
        assert!(target_directory_writes(&w("mv a b")).is_empty());
        assert!(target_directory_writes(&w("cat -t x")).is_empty());
    }

    #[test]
    fn links_are_read_in_every_spelling() {
        assert_eq!(link_made(&w("ln -s / r")), Some(("r".into(), "/".into())));
        assert_eq!(
            link_made(&w("ln -sfn ~ ./h/")),
            Some(("h".into(), "~".into()))
        );
        assert_eq!(
            link_made(&w("ln --symbolic /etc e")),
            Some(("e".into(), "/etc".into()))
        );
        assert_eq!(
            link_made(&w("ln -s /etc/passwd")),
            Some(("passwd".into(), "/etc/passwd".into()))
        );
        assert_eq!(link_made(&w("ln /etc/passwd p")), None);
        assert_eq!(through("r/*", "r", "/"), Some("/*".into()));
        assert_eq!(through("./r", "r", "/etc"), Some("/etc".into()));
        assert_eq!(through("rr/x", "r", "/"), None);
    }
}
