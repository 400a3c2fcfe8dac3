//! What a test does when this machine cannot do its job.

/// Whether CI is running the tests (`CI` set to anything but empty,
/// `0` or `false`, as CI services set it).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Called where a test cannot do its job on this machine (no kernel
/// confinement, no fixture): fails the test under CI, so a machine that
/// cannot check something never reports it as checked; elsewhere prints why
/// the test did nothing, and the caller returns.
///
/// ```
/// if std::env::var_os("CI").is_none() {
///     test_support::cannot_check("the sandbox", "no user namespaces");
/// }
/// ```
///
/// # Panics
/// Under CI, always.
#[track_caller]
pub fn cannot_check(what: &str, reason: impl std::fmt::Display) {
    assert!(
        !under_ci(),
        "{what} cannot be checked on this machine under CI: {reason}"
    );
    eprintln!("skipping: {what} cannot be checked here: {reason}");
}
