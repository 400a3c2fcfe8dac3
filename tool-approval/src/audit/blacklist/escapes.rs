//! Commands that hand the machine to someone else or take it down: a shell
//! wired to a network connection, a container given the host's root, a
//! power-off.

use super::commands::{invocation, program};
use crate::shell::{SimpleCommand, wrappers::views};

/// Network clients that can carry a shell's input and output.
fn is_network_client(name: &str) -> bool {
    matches!(
        name,
        "nc" | "ncat" | "netcat" | "nc.openbsd" | "nc.traditional" | "socat" | "telnet" | "openssl"
    )
}

/// `nc -e /bin/sh`, `ncat --sh-exec`, `socat … EXEC:`/`SYSTEM:`.
fn executes_for_the_network(view: &[String]) -> bool {
    match program(view) {
        "nc" | "ncat" | "netcat" | "nc.traditional" | "nc.openbsd" => {
            view.iter().skip(1).any(|w| {
                matches!(
                    w.as_str(),
                    "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec"
                ) || w.starts_with("--exec=")
                    || w.starts_with("--sh-exec=")
                    || (w.starts_with('-') && !w.starts_with("--") && w.contains(['e', 'c']))
            })
        }
        "socat" => view.iter().skip(1).any(|w| {
            let lower = w.to_ascii_lowercase();
            lower.starts_with("exec:") || lower.starts_with("system:")
        }),
        _ => false,
    }
}

/// A shell run interactively or reading its input: `sh`, `bash -i`.
fn is_listening_shell(view: &[String]) -> bool {
    crate::shell::words::is_shell(program(view))
        && (invocation(view).operands.is_empty() || view.iter().skip(1).any(|w| w == "-i"))
}

/// A reverse shell: a redirection to `/dev/tcp/…` or `/dev/udp/…`, a
/// network client that executes a program, or a line that joins a shell
/// and a network client (`sh -i 2>&1 | nc host port`).
pub(super) fn reverse_shell(parts: &[SimpleCommand]) -> bool {
    // Every way below to `true` but a `/dev/tcp` redirection needs a
    // network client on the line (those that execute for the network are
    // clients too): most lines have none, and one pass says so.
    let redirected = parts.iter().any(|p| {
        p.redirects
            .iter()
            .any(|r| r.starts_with("/dev/tcp/") || r.starts_with("/dev/udp/"))
    });
    if !redirected && !super::readings(parts).any(|v| is_network_client(program(v))) {
        // (Held to the plain reading by the tests below.)
        return false;
    }
    reverse_shell_read(parts)
}

/// [`reverse_shell`], every part read.
fn reverse_shell_read(parts: &[SimpleCommand]) -> bool {
    let mut client = false;
    let mut shell = false;
    for part in parts {
        if part
            .redirects
            .iter()
            .any(|r| r.starts_with("/dev/tcp/") || r.starts_with("/dev/udp/"))
        {
            return true;
        }
        for view in views(part) {
            if executes_for_the_network(view) {
                return true;
            }
            client |= is_network_client(program(view))
                && (program(view) != "openssl" || view.get(1).is_some_and(|w| w == "s_client"));
            shell |= is_listening_shell(view);
        }
    }
    client && shell
}

/// Programs that print what they download.
fn is_downloader(view: &[String]) -> bool {
    is_downloader_name(program(view))
}

/// [`is_downloader`] by the program's basename.
pub(super) fn is_downloader_name(name: &str) -> bool {
    match name {
        "curl" | "wget" | "fetch" | "http" | "https" | "xh" | "aria2c" | "lynx" | "links" => true,
        // `git archive --remote`, `gh api`… are left to the policy.
        _ => false,
    }
}

/// A shell or interpreter that takes its script from standard input or
/// from a substitution: `sh`, `bash -s`, `python3 -`, `sh -c "$(…)"`,
/// `bash <(…)`.
fn reads_a_piped_or_substituted_script(view: &[String]) -> bool {
    let name = program(view);
    let interpreter = matches!(
        name,
        "python" | "python3" | "perl" | "ruby" | "node" | "php" | "pwsh"
    );
    if !(crate::shell::words::is_shell(name) || interpreter) {
        return false;
    }
    let ops = invocation(view).operands;
    ops.is_empty()
        || ops.first() == Some(&"-")
        || view.iter().skip(1).any(|w| {
            w == "-s"
                || w.contains("$(")
                || w.contains('`')
                || w.contains("<(")
                || w.starts_with("/dev/fd/")
                || w == "/dev/stdin"
        })
}

/// A script from the network run by a shell: `curl URL | sh`,
/// `wget -O- URL | bash -s`, `sh -c "$(curl URL)"`, `bash <(curl URL)`,
/// `curl URL | python3 -`.
pub(super) fn runs_downloaded_script(parts: &[SimpleCommand]) -> bool {
    // Most lines download nothing: the scripts are looked for only then.
    super::readings(parts).any(|v| is_downloader(v))
        && super::readings(parts).any(|v| reads_a_piped_or_substituted_script(v))
}

/// Spellings of the working directory in a mount source.
const WORKING_DIRECTORY_SPELLINGS: &[&str] = &["$(pwd)", "${PWD}", "$PWD", "`pwd`"];

/// `docker`/`podman`/`nerdctl` `run`/`create` with the host's root, a home
/// or a system directory mounted, the container runtime's socket, or
/// `--privileged`, `--pid=host`, `--cap-add=ALL|SYS_ADMIN`.
pub(super) fn container_host_access(view: &[String], precious: &dyn Fn(&str) -> bool) -> bool {
    if !matches!(program(view), "docker" | "podman" | "nerdctl") {
        return false;
    }
    let Some(at) = view
        .iter()
        .position(|w| matches!(w.as_str(), "run" | "create"))
    else {
        return false;
    };
    let args = view.get(at + 1..).unwrap_or_default();
    let source_is_sensitive = |spec: &str| {
        let source = spec.split(':').next().unwrap_or(spec);
        // `-v "$(pwd)":/app`, `-v $PWD/data:/data`: the working directory,
        // spelled as an expansion, is read like `.`.
        let source = WORKING_DIRECTORY_SPELLINGS
            .iter()
            .find_map(|w| {
                source
                    .strip_prefix(w)
                    .filter(|r| (r.is_empty() || r.starts_with('/')) && !r.contains(".."))
            })
            .map_or_else(|| source.to_owned(), |rest| format!(".{rest}"));
        source.contains("docker.sock") || source.contains("podman.sock") || precious(&source)
    };
    let mount_is_sensitive = |spec: &str| {
        spec.split(',').any(|field| {
            field
                .strip_prefix("source=")
                .or_else(|| field.strip_prefix("src="))
                .is_some_and(&source_is_sensitive)
        })
    };
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let (name, value) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (word.as_str(), None),
        };
        let mut value_of = || {
            value
                .clone()
                .or_else(|| iter.next().cloned())
                .unwrap_or_default()
        };
        let hit = match name {
            "--privileged" => true,
            "--pid" | "--userns" | "--uts" | "--ipc" => value_of() == "host",
            "--cap-add" => matches!(
                value_of().to_ascii_uppercase().as_str(),
                "ALL" | "SYS_ADMIN" | "CAP_SYS_ADMIN"
            ),
            "-v" | "--volume" => source_is_sensitive(&value_of()),
            "--mount" => mount_is_sensitive(&value_of()),
            _ if word.starts_with("-v") && word.len() > 2 => {
                source_is_sensitive(word.get(2..).unwrap_or_default())
            }
            // The image: what follows is the container's command.
            _ if !word.starts_with('-') => return false,
            _ => false,
        };
        if hit {
            return true;
        }
    }
    false
}

/// `shutdown`, `poweroff`, `reboot`, `halt`, `systemctl poweroff|reboot|…`,
/// `init 0|6`, `telinit 0|6` (not `shutdown -c`, which cancels).
pub(super) fn power_off(view: &[String]) -> bool {
    match program(view) {
        "shutdown" => !view.iter().skip(1).any(|w| w == "-c"),
        "poweroff" | "reboot" | "halt" => !view.iter().skip(1).any(|w| w == "--help"),
        "systemctl" | "loginctl" => invocation(view).operands.iter().any(|w| {
            matches!(
                *w,
                "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot" | "suspend" | "hibernate"
            )
        }),
        "init" | "telinit" => invocation(view)
            .operands
            .first()
            .is_some_and(|w| matches!(*w, "0" | "6")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agree(line: &str) -> Result<(), String> {
        let shell = crate::shell::ShellCommand::parse(line);
        let parts = shell.parts();
        if reverse_shell(parts) == reverse_shell_read(parts) {
            Ok(())
        } else {
            Err(format!("reverse_shell's shortcut differs on `{line}`"))
        }
    }

    #[test]
    fn the_reverse_shell_shortcut_agrees_with_the_plain_reading_on_the_corpus() {
        for line in super::super::differential::corpus_commands() {
            assert_eq!(agree(&line), Ok(()));
        }
    }

    proptest::proptest! {
        #[test]
        fn the_reverse_shell_shortcut_agrees_with_the_plain_reading(
            line in super::super::differential::generated_line()
        ) {
            proptest::prop_assert_eq!(agree(&line), Ok(()));
        }
    }

    fn view(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn containers_with_the_host_are_found() {
        let precious = |s: &str| matches!(s, "/" | "/etc" | "~" | "$HOME");
        for yes in [
            "docker run -v /:/host alpine sh",
            "docker run --volume=/etc:/e alpine",
            "podman run -v/:/h alpine",
            "docker run --mount type=bind,source=/,target=/h alpine",
            "docker run -v /var/run/docker.sock:/var/run/docker.sock alpine",
            "docker run --privileged alpine",
            "docker run --pid host alpine",
            "docker create --cap-add=SYS_ADMIN alpine",
        ] {
            assert!(container_host_access(&view(yes), &precious), "{yes}");
        }
        for no in [
            "docker run -v ./src:/src alpine",
            "docker run alpine -v /:/h",
            "docker ps",
            "docker run --rm -it alpine sh",
        ] {
            assert!(!container_host_access(&view(no), &precious), "{no}");
        }
    }

    #[test]
    fn power_off_and_its_cancel() {
        for yes in ["shutdown -h now", "reboot", "systemctl poweroff", "init 0"] {
            assert!(power_off(&view(yes)), "{yes}");
        }
        for no in ["shutdown -c", "systemctl status", "init", "reboot --help"] {
            assert!(!power_off(&view(no)), "{no}");
        }
    }
}
