//! How a run that hit a per-process memory limit shows in its output.
//!
//! Where no memory cgroup binds a command, its memory is limited per
//! process by `RLIMIT_DATA` (and by `RLIMIT_AS` when a host sets
//! [`Limits::memory_bytes`](super::Limits::memory_bytes)). The kernel then
//! kills nothing: an allocation fails, and the program says so in its own
//! words before it ends. A command that ends with a failure and whose
//! standard error carries one of these signs hit the memory limit
//! (`limitHit: "memory"`, `memory limit` in the content).
//!
//! Why `RLIMIT_DATA` and not `RLIMIT_AS`: since Linux 4.7 `RLIMIT_DATA`
//! counts the private writable memory of a process (heap, anonymous
//! mappings, thread stacks), not address space a runtime only reserves
//! (`PROT_NONE`) and commits later. Node (V8's pointer-compression cage
//! and code range), the JVM (the `-Xmx` heap and code cache), Go (its
//! arena hints) and glibc's per-thread malloc arenas (64 MiB each) reserve
//! far more than they use, so an `RLIMIT_AS` near what they need stops
//! them at start; `RLIMIT_DATA` counts what they make writable. What it
//! does not suit: sanitizer builds (ASan, TSan map terabytes of writable
//! shadow memory) and programs mapping large private writable files; a
//! host running those lifts [`Limits::run_memory_bytes`](super::Limits)
//! or grants cgroups.

/// Signs of a failed allocation in a program's standard error: `(text,
/// who says it, an example line)`. Matched without regard to case; each
/// example is checked against its sign by the tests.
pub(crate) const ALLOCATION_FAILED: &[(&str, &str, &str)] = &[
    (
        "MemoryError",
        "Python",
        "MemoryError: Unable to allocate 2.00 GiB",
    ),
    (
        "Cannot allocate memory",
        "libc's ENOMEM message: C tools, shells, `fork`",
        "sh: 1: Cannot fork: Cannot allocate memory",
    ),
    (
        "out of memory",
        "Node (`JavaScript heap out of memory`), Go (`runtime: out of memory`), git, many C programs",
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
    ),
    (
        "xmalloc: cannot allocate",
        "bash",
        "bash: xmalloc: cannot allocate 1048576 bytes",
    ),
    (
        "OutOfMemoryError",
        "the JVM's heap",
        "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",
    ),
    (
        "Native memory allocation",
        "the JVM's own memory",
        "# Native memory allocation (mmap) failed to map 262144 bytes",
    ),
    (
        "std::bad_alloc",
        "C++",
        "terminate called after throwing an instance of 'std::bad_alloc'",
    ),
    (
        "memory allocation of",
        "Rust's default allocation error handler (then `SIGABRT`)",
        "memory allocation of 1073741824 bytes failed",
    ),
    (
        "failed to allocate memory",
        "Ruby (`NoMemoryError`)",
        "-e:1:in `*': failed to allocate memory (NoMemoryError)",
    ),
];

/// Whether `stderr` shows a failed allocation (see [`ALLOCATION_FAILED`]).
pub(crate) fn allocation_failed(stderr: &str) -> bool {
    // Only the end: a program says it as it dies; the text before may be
    // long.
    let tail = tail(stderr, 16 * 1024).to_ascii_lowercase();
    ALLOCATION_FAILED
        .iter()
        .any(|(sign, _, _)| tail.contains(&sign.to_ascii_lowercase()))
}

/// The last `max` bytes of `text`, cut at a character boundary.
fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_shows_its_sign() {
        for (sign, who, example) in ALLOCATION_FAILED {
            assert!(!who.is_empty());
            assert!(
                example
                    .to_ascii_lowercase()
                    .contains(&sign.to_ascii_lowercase()),
                "{sign}: {example}"
            );
            assert!(allocation_failed(example), "{example}");
        }
    }

    #[test]
    fn the_end_of_a_long_output_is_read() {
        let long = format!("{}\nMemoryError\n", "é".repeat(20_000));
        assert!(allocation_failed(&long));
    }

    #[test]
    fn ordinary_failures_are_not_taken_for_memory() {
        for stderr in [
            "error[E0308]: mismatched types",
            "Traceback (most recent call last):\nKeyError: 'memory'",
            "sh: 1: cannot create x: Permission denied",
            "fatal: not a git repository",
            "",
        ] {
            assert!(!allocation_failed(stderr), "{stderr}");
        }
    }
}
