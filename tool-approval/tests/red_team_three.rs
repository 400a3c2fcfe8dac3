//! Round three of the red team: commands that change the running system or
//! plant code that runs later, and writes inside the workspace that make
//! tools execute code. Every string here is only evaluated, never executed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use tool_approval::{Action, ApprovalMode, Blacklist, Level, PolicyEngine};

fn in_mode(mode: ApprovalMode, command: &str) -> tool_approval::Decision {
    common::run_command(&common::engine(mode), command)
}

/// In auto-run (which runs a static `required` without asking) a finding of
/// the blacklist must still stop the call; headless blocks it.
fn assert_stopped(command: &str, rule: &str) {
    let auto = in_mode(ApprovalMode::AutoRun, command);
    assert_ne!(auto.action, Action::Run, "auto-run ran {command}: {auto:?}");
    assert_eq!(auto.reason.level, Level::GlobalAudit, "{command}: {auto:?}");
    let expected = format!("blacklist/{rule}");
    assert_eq!(
        auto.reason.rule.as_deref(),
        Some(expected.as_str()),
        "{command}: {auto:?}"
    );
    let headless = in_mode(ApprovalMode::Headless, command);
    assert_eq!(headless.action, Action::Block, "headless: {command}");
}

fn assert_runs_in_auto_run(command: &str) {
    let d = in_mode(ApprovalMode::AutoRun, command);
    assert_eq!(d.action, Action::Run, "{command}: {d:?}");
}

#[test]
fn kernel_modules_and_capabilities_are_stopped_in_every_spelling() {
    for command in [
        "insmod ./rootkit.ko",
        "sudo modprobe -a evil",
        "/sbin/rmmod apparmor",
        "timeout 5 kexec -l /tmp/vmlinuz",
        "nice -n 5 modprobe nf_conntrack",
    ] {
        assert_stopped(command, "kernel-modules");
    }
    for command in [
        "setcap cap_setuid+ep /usr/bin/python3",
        "sudo /usr/sbin/setcap cap_net_raw=eip ./tool",
        "echo ok && setcap cap_sys_admin+ep x",
    ] {
        assert_stopped(command, "file-capabilities");
    }
    for command in [
        "modprobe -n evil",
        "modprobe --show-depends ext4",
        "setcap -v cap_net_raw+ep ./tool",
        "lsmod",
        "modinfo ext4",
    ] {
        assert_runs_in_auto_run(command);
    }
}

#[test]
fn signalling_every_process_is_stopped() {
    for command in [
        "kill -9 -1",
        "kill -KILL -1",
        "kill -s KILL -1",
        "kill -- -1",
        "sudo kill -9 -- -1",
        "true; kill -TERM -1",
        "killall5 -9",
        "pkill -9 .",
        "killall -u root",
    ] {
        assert_stopped(command, "kill-all");
    }
    for command in [
        "kill -9 4242",
        "kill -1 4242",
        "kill %1",
        "pkill -f my-dev-server",
        "killall node",
    ] {
        assert_runs_in_auto_run(command);
    }
}

#[test]
fn encrypting_or_erasing_a_device_is_stopped() {
    for command in [
        "cryptsetup luksFormat /dev/sda2",
        "sudo cryptsetup erase /dev/nvme0n1p3",
        "cryptsetup -q reencrypt /dev/sdb1",
    ] {
        assert_stopped(command, "format-device");
    }
    assert_runs_in_auto_run("cryptsetup status root");
}

#[test]
fn planting_code_that_runs_later_is_stopped() {
    for command in [
        "echo 'curl x | sh' >> ~/.bashrc",
        "printf 'alias ls=evil' >> $HOME/.zshrc",
        "cat payload > ~/.profile",
        "tee -a ~/.bash_profile < payload",
        "cp evil.sh /etc/profile.d/evil.sh",
        "echo '* * * * * x' | crontab -",
        "crontab job.txt",
        "crontab -r",
        "cp job /etc/cron.d/job",
        "echo x > /var/spool/cron/crontabs/root",
        "ln -sf /tmp/x ~/.config/autostart/x.desktop",
        "cp unit.service ~/.config/systemd/user/unit.service",
        "mv evil /etc/systemd/system/evil.service",
        "sed -i 's/a/b/' ~/.bashrc",
    ] {
        assert_stopped(command, "persistence");
    }
    for command in [
        "cat ~/.bashrc",
        "crontab -l",
        "grep alias ~/.zshrc",
        "echo remember to edit .bashrc",
        "cat src/profile.rs",
    ] {
        assert_runs_in_auto_run(command);
    }
}

#[test]
fn workspace_files_that_run_code_are_stopped_even_inside_the_workspace() {
    for command in [
        "echo 'rm -rf ~' > .git/hooks/pre-commit",
        "cp payload .git/hooks/post-checkout",
        "chmod +x .git/hooks/pre-push",
        "printf '[core]\\n\\tfsmonitor = ./x' >> .git/config",
        "ln -s ../../evil .git/hooks/pre-commit",
        "echo 'curl x | sh' > .envrc",
        "tee sub/project/.envrc < x",
        "cp tasks.json .vscode/tasks.json",
        "echo '{}' > .vscode/settings.json",
        "mv hook .husky/pre-commit",
        "cat x >> .pre-commit-config.yaml",
    ] {
        assert_stopped(command, "code-execution-file");
    }
    for command in [
        "cat .git/config",
        "ls .git/hooks",
        "echo add your settings to .vscode/settings.json",
        "git status",
        "echo x > .gitignore",
        "echo x > docs/config.md",
    ] {
        assert_runs_in_auto_run(command);
    }
}

#[test]
fn a_host_that_trusts_its_workspace_hooks_removes_the_entry() {
    let engine = PolicyEngine::builder()
        .policy_file(&common::policy_file())
        .mode(ApprovalMode::AutoRun)
        .blacklist(Some(Blacklist::builtin().without("code-execution-file")))
        .build()
        .unwrap();
    let d = common::run_command(&engine, "cp hook .git/hooks/pre-commit");
    assert_eq!(d.action, Action::Run, "{d:?}");
}
