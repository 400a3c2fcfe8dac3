//! The blacklist's own path classes, as rows: persistence locations, files
//! inside a workspace whose contents tools execute, and secrets beyond the
//! list the sandbox shares ([`tool_core::approval::PathClass`]).
//!
//! Each row is a [`PathClass`] in the shared pattern language: component
//! globs over **cleaned** paths (`.`, `..` and `//` resolved, `~` expanded,
//! ASCII case folded), anchored at the root (`/…`) or the home (`~/…`), or
//! matching at any depth. A path is in a row when the row matches it or one
//! of its ancestors, so `.config/autostart` covers the directory given as a
//! copy's destination (with or without a trailing slash) and every file in
//! it. Every row carries examples and counter examples, checked by
//! [`check_rows`] (the crate's tests run it over every row).
//!
//! A new location is one row here plus its examples.

use std::path::Path;

use tool_core::approval::{PathClass, PathRole};

use tool_core::path_class as row;

/// Locations whose contents run later, at login or when a program starts
/// (`persistence`). Per-user files match at any depth (a home is anywhere:
/// `/root`, `/home/ada`, `~`, `$HOME`), system-wide ones at the root.
/// Files a project may hold as well (`.cargo/config.toml`, `.npmrc`,
/// `*.pth`, `.gdbinit`) are code-execution files wherever they are, so
/// they are not repeated here.
pub(crate) const PERSISTENCE: &[PathClass] = &[
    row!("program-folders", Protected, "folders of programs that later commands find on PATH: the user's and a project's tool folders",
        [".local/bin", ".cargo/bin", ".npm-global/bin", ".venv/bin", "venv/bin", "node_modules/.bin",
         "~/bin", "~/go/bin"],
        except [],
        yes ["~/.local/bin/git", "~/bin/ls", "~/go/bin/gopls", "/home/user/.cargo/bin/cargo", ".venv/bin/python",
             ".venv/bin/activate", "web/node_modules/.bin/tsc", "./venv/bin/pip"],
        no ["~/src/bin/main.rs", "src/bin/tool.rs", "node_modules/react/index.js", ".venv/lib/x.py",
            "target/release/bin"]),
    row!("network-tool-startup", Protected, "start-up files of network clients (options every later request carries: an upload, a proxy)",
        [".curlrc", ".config/curlrc", ".wgetrc", ".config/wgetrc"],
        except [],
        yes ["~/.curlrc", "/home/user/.wgetrc", "~/.config/curlrc"],
        no ["docs/curlrc.md", "src/wget.rs"]),
    row!("proc-root", Protected, "the whole file system seen through a process's root in /proc",
        ["/proc/*/root"],
        except [],
        yes ["/proc/self/root/etc/profile.d/x.sh", "/proc/1/root/etc/cron.d/x",
             "/proc/thread-self/root/home/ada/.bashrc"],
        no ["/proc/self/status", "/proc/1/cmdline"]),
    row!("shell-startup", Protected, "shell start-up and login files",
        [".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bashrc.d", ".profile",
         ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc",
         ".tcshrc", ".login", ".logout", ".inputrc", ".config/fish", ".config/nushell",
         ".config/powershell", ".oh-my-zsh/custom", ".bash_aliases", ".cargo/env",
         ".config/starship.toml", ".local/share/bash-completion/completions"],
        except [],
        yes ["~/.bashrc", "/root/.profile", "~//.zshenv", "~/src/../.zshrc", "$HOME//.profile",
             "~/.config/fish/conf.d/x.fish", "/home/ada/.BASHRC", "~/.bash_aliases", "~/.cargo/env",
             "~/.local/share/bash-completion/completions/git"],
        no ["docs/bashrc.md", "src/profile.rs", ".bashrc.md", "~/.config/fishing/x"]),
    row!("system-shell-startup", Protected, "system-wide shell start-up files and environment",
        ["/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zsh",
         "/etc/zshrc", "/etc/zprofile", "/etc/zshenv", "/etc/zlogin", "/etc/fish",
         "/etc/environment", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/update-motd.d",
         "/etc/rc.local", "/etc/init.d", "/etc/init", "/etc/ssh/sshrc", "/etc/bash_completion.d",
         "/etc/apt/apt.conf.d", "/etc/udev/rules.d", "/etc/sysctl.d", "/etc/sysctl.conf",
         "/etc/NetworkManager/dispatcher.d", "/usr/share/git-core/templates"],
        except [],
        yes ["/etc/profile", "/etc/profile.d/x.sh", "/etc/zsh/zshrc", "/etc//bash.bashrc",
             "/etc/ld.so.conf.d/x.conf", "/etc/ssh/sshrc", "/etc/apt/apt.conf.d/99x",
             "/etc/udev/rules.d/99-x.rules", "/usr/share/git-core/templates/hooks/post-checkout"],
        no ["/etc/hosts", "/srv/etc/profile"]),
    row!("scheduler", Protected, "cron and at jobs",
        ["/etc/cron*", "/var/spool/cron", "/var/spool/cron*", "/etc/anacrontab", "/var/spool/at"],
        except [],
        yes ["/etc/cron.d/job", "/etc/crontab", "/etc/cron.daily/x", "/var/spool/cron/crontabs/root"],
        no ["/etc/chrony.conf", "cron.d/job"]),
    row!("service-manager", Protected, "systemd, init and launchd units (system and per user)",
        ["/etc/systemd", "/run/systemd/system", "/run/systemd/user", "/lib/systemd/system", "/lib/systemd/user", "/usr/lib/systemd/system",
         "/usr/lib/systemd/user", "/usr/local/lib/systemd", ".config/systemd",
         ".local/share/systemd", "Library/LaunchAgents", "/Library/LaunchDaemons",
         "/Library/LaunchAgents"],
        except [],
        yes ["/etc/systemd/system/x.service", "~/.config/systemd/user", "~/.config/systemd/user/",
             "/home/u/.config/systemd/user/default.target.wants/x.service",
             "~/.local/share/systemd/user/x.timer", "~/Library/LaunchAgents/x.plist"],
        no ["src/systemd.rs", "~/.config/systemdx/y", "/usr/lib/os-release"]),
    row!("desktop-autostart", Protected, "programs the desktop session starts",
        ["/etc/xdg/autostart", ".config/autostart", ".xinitrc", ".xprofile", ".xsession",
         ".xsessionrc", ".config/plasma-workspace/env", ".config/plasma-workspace/shutdown",
         ".config/sway/config", ".config/i3/config", ".config/hypr", ".config/environment.d",
         ".pam_environment", ".local/share/applications"],
        except [],
        yes ["~/.config//autostart/", "~/.config/autostart/x.desktop", "/etc/xdg/autostart/x.desktop",
             "~/.xsessionrc", "~/.xprofile", "~/.config/hypr/hyprland.conf", "~/.pam_environment",
             "~/.local/share/applications/x.desktop"],
        no ["~/.config/autostarter/x", "assets/autostart.png"]),
    row!("editor-startup", Protected, "editors' start-up files and plugin folders",
        [".vimrc", ".gvimrc", ".vim", ".config/nvim", ".local/share/nvim/site", ".emacs",
         ".emacs.el", ".emacs.d", ".config/emacs", ".doom.d", "/etc/vim", "/etc/vimrc",
         "/etc/xdg/nvim", "/usr/share/vim/vimfiles", ".config/Code/User",
         ".config/Code - OSS/User", ".config/VSCodium/User", ".config/Cursor/User",
         "Library/Application Support/Code/User", ".config/helix/config.toml",
         ".config/zed/settings.json", ".config/zed/tasks.json", ".vscode/extensions",
         ".vscode-server/extensions", ".cursor/extensions", ".config/gdb/gdbinit"],
        except [],
        yes ["~/.vimrc", "~/.config/nvim/init.lua", "~/.vim/plugin/x.vim", "~/.emacs",
             "~/.emacs.d/init.el", "/etc/vim/vimrc", "~/.config/Code/User/settings.json"],
        no ["docs/vimrc.md", "src/vim.rs", "~/.config/Code/logs/x", "~/.vimrc.md"]),
    row!("git-global-config", Protected, "git's per-user and system configuration (aliases, pagers, hooks paths)",
        [".gitconfig", ".config/git", "/etc/gitconfig"],
        except [],
        yes ["~/.gitconfig", "~/.config/git/config", "/etc/gitconfig", "/root/.config/git/attributes"],
        no [".gitignore", "docs/gitconfig.md", ".github/x"]),
    row!("package-manager-user-config", Protected, "per-user package-manager and build-tool settings that name programs to run",
        [".gradle/init.d", ".gradle/init.gradle", ".gradle/init.gradle.kts", ".m2/extensions.xml",
         ".condarc", ".config/pip", ".config/yarn", ".bunfig.toml", ".config/pnpm/rc",
         ".config/direnv", ".direnvrc"],
        except [],
        yes ["~/.gradle/init.d/evil.gradle", "~/.config/direnv/direnvrc",
             "~/.config/pip/pip.conf", "/root/.condarc"],
        no ["~/.cargo/registry/cache/x", "~/.gradle/caches/x", "Cargo.toml"]),
    row!("runtime-startup", Protected, "files a language runtime or REPL loads at start",
        [".irbrc", ".pryrc", ".Rprofile",
         ".Renviron", ".pythonrc", ".pythonrc.py", ".ipython/profile_*/startup",
         ".ipython/profile_*/ipython_config.py", ".config/ipython", ".psqlrc", ".sqliterc",
         ".lldbinit", ".perldb", ".ghci", ".sbclrc", ".julia/config", ".erlang", ".mongoshrc.js",
         ".octaverc", ".sbt/1.0/plugins", ".sbt/1.0/global.sbt"],
        except [],
        yes ["~/.irbrc", "~/.Rprofile",
             "~/.ipython/profile_default/startup/x.py", "~/.julia/config/startup.jl"],
        no ["src/path.rs", "docs/irbrc.md", "tests/test_site.py"]),
    row!("terminal-multiplexer-config", Protected, "tmux and screen start-up files (they run commands)",
        [".tmux.conf", ".config/tmux", ".screenrc", "/etc/tmux.conf", "/etc/screenrc"], except [],
        yes ["~/.tmux.conf", "~/.config/tmux/tmux.conf", "/etc/screenrc"],
        no ["docs/tmux.conf.md", "~/.config/tmuxinator-notes/x"]),
    row!("ssh-session", Protected, "commands sshd runs at every login",
        [".ssh/rc"],
        except [],
        yes ["~/.ssh/rc", "/home/u/.ssh/rc"],
        no ["~/.ssh/rc.md", "docs/ssh/rcfile"]),
];

/// Files inside a workspace whose contents tools execute
/// (`code-execution-file`), besides the shared protected classes other than
/// version-control metadata (of which only hooks and config run code).
pub(crate) const CODE_EXECUTION: &[PathClass] = &[
    row!("git-hooks-and-config", Protected, "git hooks and repository config, also of submodules and worktrees",
        [".git/hooks", ".git/config", ".git/config.worktree", ".git/info/attributes",
         ".git/modules/*/hooks", ".git/modules/*/config",
         ".git/modules/*/modules/*/hooks", ".git/modules/*/modules/*/config",
         ".git/modules/*/modules/*/modules/*/hooks", ".git/modules/*/modules/*/modules/*/config",
         ".git/modules/*/*/hooks", ".git/modules/*/*/config", ".git/modules/*/*/*/hooks",
         ".git/modules/*/*/*/config", ".git/worktrees/*/config.worktree"],
        except [],
        yes [".git/hooks/pre-commit", "./.git/./hooks/pre-commit", ".git//hooks/pre-commit",
             ".GIT/hooks/pre-commit", ".git/HOOKS/pre-push", ".Git/Config",
             ".git/modules/lib/hooks/pre-commit", ".git/modules/a/modules/b/hooks/post-checkout",
             ".git/modules/lib/config", "vendor/dep/.git/hooks/pre-commit", ".git/hooks/",
             ".git/modules/libs/ui/hooks/pre-commit", ".git/modules/a/b/c/config"],
        no [".git/HEAD", ".gitignore", ".git/modules/lib/HEAD", "src/modules/auth/hooks/use.ts",
            "docs/hooks.md", ".git"]),
    row!("project-editor-startup", Protected, "per-project editor start-up files (exrc, nvim, emacs dir-locals)",
        [".exrc", ".nvimrc", ".nvim.lua", ".lvimrc", ".dir-locals.el", ".dir-locals-2.el",
         ".ycm_extra_conf.py"],
        except [],
        yes [".exrc", "sub/.nvim.lua", ".nvimrc", ".ycm_extra_conf.py"],
        no ["docs/exrc.md", "nvim.lua"]),
    row!("project-editor-tasks", Protected, "editor task, launch and settings files, dev containers, workspaces",
        [".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json",
         ".vscode/extensions.json", ".devcontainer", ".devcontainer.json", "*.code-workspace",
         ".zed/tasks.json", ".zed/settings.json", ".idea/runConfigurations",
         ".idea/workspace.xml"],
        except [],
        yes [".vscode/tasks.json", "app/.vscode/settings.json", ".devcontainer/devcontainer.json",
             "team.code-workspace"],
        no [".vscode/notes.md", "vscode.md", "src/idea.rs"]),
    row!("project-shell-environment", Protected, "files a shell or direnv loads in a directory",
        [".envrc", ".env.rc", ".env.sh", ".autoenv", ".autoenv.zsh"],
        except [],
        yes [".envrc", "sub/.envrc", ".env.rc"],
        no ["envrc.md", ".env.example"]),
];

/// The shared protected classes the blacklist reads as code-execution
/// files too (version-control metadata and CI are left to the sandbox:
/// `.git/HEAD` runs nothing, and CI runs elsewhere).
const SHARED_CODE_EXECUTION: &[&str] = &[
    "shell-environment",
    "git-hooks",
    "build-tool-config",
    "test-bootstrap",
    "agent-config",
    "ssh-client-config",
];

/// Secret files the shared list anchors at the home or does not hold,
/// wherever they are (`read-secrets`): another user's home (`/root/.aws`),
/// a mounted home, a backup. Bare names that are also common folder names
/// (`credentials`, `identity`) are the named check `secret_file_name` in
/// `paths.rs`, since a row also covers everything below a match.
pub(crate) const SECRETS_ANYWHERE: &[PathClass] = &[
    row!("private-key-files", Secret, "private keys by name (not their `.pub` halves), certificates with keys",
        ["id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "ssh_host_*_key", "*.pem", "master.key",
         "authorized_keys"],
        except ["*.pub"],
        yes ["id_rsa", "/root/.ssh/id_ed25519_work", "backup/id_rsa.old", "certs/server.pem",
             "config/master.key", "/etc/ssh/ssh_host_ecdsa_key", "/home/x/.ssh/authorized_keys"],
        no ["id_rsa.pub", "/root/.ssh/id_ed25519_work.pub", "src/pem.rs", "docs/keys.md"]),
    row!("ssh-folder-files", Secret, "files in any `.ssh` folder but public keys and client settings",
        [".ssh/*"],
        except ["*.pub", "known_hosts", "known_hosts.old", "config"],
        yes ["/root/.ssh/id_rsa", "/home/bob/.ssh/identity", "mnt/home/.ssh/work_key"],
        no ["/root/.ssh/known_hosts", "/root/.ssh/config", "/root/.ssh/work.pub", "docs/ssh.md"]),
    row!("credential-folders", Secret, "cloud, GnuPG and password-store folders in any home",
        [".aws", ".azure", ".gnupg", ".password-store", ".config/gcloud", ".config/gh/hosts*",
         ".kube/config", ".docker/config.json"],
        except [],
        yes ["/root/.aws/credentials", "/mnt/home/ada/.azure/accessTokens.json",
             "/root/.gnupg/private-keys-v1.d/x.key", "/root/.config/gcloud/credentials.db",
             "/root/.config/gh/hosts.yml", "/root/.kube/config", "/root/.docker/config.json"],
        no ["/root/.docker/cli-plugins/x", "src/aws.rs", "/root/.kube/cache/x"]),
    row!("credential-files", Secret, "credential files by name (with a data extension), tokens and database logins",
        ["credentials.json", "credentials.csv", "credentials.db", "credentials.yml",
         "credentials.yaml", "credentials.toml", "credentials.ini", "credentials.xml",
         "credentials.txt", "*.p12", "*.pfx", ".envrc", ".vault-token", ".netrc", ".pgpass",
         ".git-credentials", ".npmrc", ".pypirc", ".my.cnf", ".mylogin.cnf"],
        except [],
        yes ["credentials.json", "app/credentials.yml", "/root/.netrc", "db/.pgpass",
             "/root/.my.cnf", "keys/me.p12"],
        no ["credentials.rs", "src/credentials_test.go", "netrc.md"]),
    row!("mounted-and-system-secrets", Secret, "secrets mounted into containers, TLS private keys, password backups, a process's environment",
        ["run/secrets", "serviceaccount/token", "etc/ssl/private", "var/backups/*shadow*",
         "etc/security/opasswd", "/proc/*/environ"],
        except [],
        yes ["/run/secrets/db", "/var/run/secrets/kubernetes.io/serviceaccount/token",
             "/etc/ssl/private/site.key", "/var/backups/shadow.bak", "/proc/self/environ",
             "/proc/1/environ", "/etc/security/opasswd"],
        no ["/etc/ssl/certs/ca.pem.crt", "/var/backups/dpkg.status", "/proc/self/status"]),
    row!("repository-config", Secret, "a repository's git configuration (the `http.<url>.extraheader` token CI checkouts store, remote URLs with user info)",
        [".git/config", ".git/config.worktree", ".git/modules/*/config", ".git/worktrees/*/config.worktree"],
        except [],
        yes [".git/config", "./.git/config", "vendor/dep/.git/config", ".GIT/Config",
             ".git/modules/lib/config", ".git/worktrees/w/config.worktree"],
        no [".git/HEAD", ".git/hooks/pre-commit", ".gitconfig.md", "src/git/config.rs", ".git/modules/lib/HEAD"]),
    row!("browser-stores", Secret, "browser cookie and login stores",
        ["cookies.sqlite", "Cookies.binarycookies", "Login Data", "logins.json", "key4.db",
         "Web Data"],
        except [],
        yes ["profile/logins.json", "~/.mozilla/firefox/x.default/key4.db",
             "~/.config/chromium/Default/Login Data"],
        no ["src/cookies.rs", "docs/login-data.md", "src/cookies/index.ts"]),
];

/// The system's account, group, sudo and PAM files, and the loader's
/// preload list (`system-accounts`): as written or cleaned, with any suffix
/// (`/etc/passwd-`, `/etc/sudoers.d/x`).
pub(crate) const SYSTEM_ACCOUNTS: &[PathClass] = &[row!(
    "account-files", Protected, "account, group, sudo and PAM files, the loader's preload list",
    ["/etc/passwd*", "/etc/shadow*", "/etc/gshadow*", "/etc/sudoers*", "/etc/master.passwd*",
     "/etc/group*", "/etc/ld.so.preload*", "/etc/security/opasswd*", "/etc/pam.d*"],
    except [],
    yes ["/etc/passwd", "/etc//shadow", "/etc/../etc/sudoers.d/x", "/etc/passwd-", "/etc/pam.d/sshd",
         "/etc/ld.so.preload"],
    no ["/etc/hosts", "/srv/etc/passwd.md", "/etc/ssh/sshd_config", "etc/passwd"]
)];

/// Disks and partitions as devices (`raw-device-write`).
pub(crate) const DISK_DEVICES: &[PathClass] = &[row!(
    "disk-devices", Protected, "disks, partitions, RAID, device-mapper and loop devices",
    ["/dev/sd*", "/dev/hd*", "/dev/vd*", "/dev/xvd*", "/dev/nvme*", "/dev/mmcblk*", "/dev/disk*",
     "/dev/rdisk*", "/dev/md*", "/dev/dm-*", "/dev/loop*", "/dev/mapper/*"],
    except [],
    yes ["/dev/sda", "/dev/sda1", "/dev/nvme0n1p2", "/dev/mapper/root", "/dev/disk/by-id/x",
         "/dev//sdb"],
    no ["/dev/null", "/dev/tty", "/dev/stdout", "/srv/dev/sda.img", "dev/sda"]
)];

/// Kernel tunables and triggers (`kernel-write`).
pub(crate) const KERNEL_FILES: &[PathClass] = &[row!(
    "kernel-files", Protected, "kernel tunables and triggers",
    ["/proc/sys/*", "/proc/sysrq-trigger", "/sys/kernel/*"],
    except [],
    yes ["/proc/sys/kernel/panic", "/proc/sysrq-trigger", "/sys/kernel/mm/x",
         "/proc/./sys/vm/drop_caches"],
    no ["/proc/sys", "/proc/self/status", "/sys/class/net"]
)];

/// System programs and libraries, and the boot directory
/// (`system-binaries`): anything inside them, not the folders themselves.
pub(crate) const SYSTEM_BINARIES: &[PathClass] = &[
    row!("system-programs", Protected, "the system's program folders",
        ["/bin/*", "/sbin/*", "/usr/bin/*", "/usr/sbin/*", "/usr/local/bin/*", "/usr/local/sbin/*",
         "/usr/libexec/*"],
        except [],
        yes ["/usr/bin/ls", "/bin//sh", "/usr/local/bin/x", "/usr/../usr/sbin/sshd"],
        no ["/usr/bin", "/usr/share/doc/x", "/home/u/bin/x", "bin/x", "./usr/bin/x"]),
    row!("system-libraries", Protected, "the system's library and boot folders",
        ["/lib/*", "/lib32/*", "/lib64/*", "/usr/lib/*", "/usr/lib32/*", "/usr/lib64/*",
         "/usr/local/lib/*", "/boot/*"],
        except [],
        yes ["/lib/x86_64-linux-gnu/libc.so.6", "/boot/vmlinuz", "/usr/local/lib/libx.so"],
        no ["/usr/lib", "/usr/share/x", "/srv/boot/x"]),
];

/// Where a compiled pattern is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Root,
    Home,
    Any,
}

/// A row compiled once: its patterns split into lower-cased component
/// globs, so matching a word allocates only the word's own components (the
/// same rules as [`PathClass::matches`], which the tests compare against).
#[derive(Debug)]
struct CompiledRow {
    class: &'static PathClass,
    patterns: Vec<(Anchor, Vec<Glob>)>,
    except: Vec<Glob>,
}

fn compile(classes: impl Iterator<Item = &'static PathClass>) -> Vec<CompiledRow> {
    classes
        .map(|class| CompiledRow {
            class,
            patterns: class
                .patterns
                .iter()
                .map(|p| {
                    let (anchor, rest) = if let Some(rest) = p.strip_prefix("~/") {
                        (Anchor::Home, rest)
                    } else if let Some(rest) = p.strip_prefix('/') {
                        (Anchor::Root, rest)
                    } else {
                        (Anchor::Any, *p)
                    };
                    let globs = rest
                        .split('/')
                        .filter(|g| !g.is_empty())
                        .map(|g| Glob::new(&g.to_ascii_lowercase()))
                        .collect();
                    (anchor, globs)
                })
                .collect(),
            except: class
                .except
                .iter()
                .map(|e| Glob::new(&e.to_ascii_lowercase()))
                .collect(),
        })
        .collect()
}

/// One pattern of a table: the row's index and the pattern's index in it.
type PatternAt = (usize, usize);

/// Patterns by the name of their first component (keys fixed when the
/// table is built: see `name_hash`).
type NameMap = crate::name_hash::NameMap<String, Vec<PatternAt>>;

/// A table of compiled rows with an index on each pattern's first
/// component, so a path is tried only against the patterns it could match
/// (a path's components are looked up, not compared with every pattern).
/// Patterns whose first component is a glob are indexed by the first byte
/// of its fixed prefix (`id_rsa*`), else by the last byte of its fixed
/// suffix (`*.pem`); only globs with neither (`*`) are tried everywhere.
#[derive(Debug)]
struct Table {
    rows: Vec<CompiledRow>,
    /// Patterns at any depth whose first component is this name.
    any: NameMap,
    /// Patterns at the root whose first component is this name.
    root: NameMap,
    /// Patterns in the home whose first component is this name.
    home: NameMap,
    /// Patterns whose first component is a glob with a fixed prefix, by
    /// the prefix's first byte (256 lists).
    glob_first: Vec<Vec<PatternAt>>,
    /// Patterns whose first component is a glob with no fixed prefix but a
    /// fixed suffix, by the suffix's last byte (256 lists).
    glob_last: Vec<Vec<PatternAt>>,
    /// Patterns whose first component is a glob with neither: tried at
    /// every depth.
    always: Vec<PatternAt>,
    /// Whether some pattern matches at any depth: without one, only a path
    /// from the root or the home can be in the table.
    anywhere: bool,
}

impl Table {
    fn new(classes: impl Iterator<Item = &'static PathClass>) -> Self {
        let rows = compile(classes);
        let mut table = Self {
            rows: Vec::new(),
            any: NameMap::default(),
            root: NameMap::default(),
            home: NameMap::default(),
            glob_first: vec![Vec::new(); 256],
            glob_last: vec![Vec::new(); 256],
            always: Vec::new(),
            anywhere: false,
        };
        for (at, row) in rows.iter().enumerate() {
            for (n, (anchor, globs)) in row.patterns.iter().enumerate() {
                table.anywhere |= *anchor == Anchor::Any;
                let index = match anchor {
                    Anchor::Any => &mut table.any,
                    Anchor::Root => &mut table.root,
                    Anchor::Home => &mut table.home,
                };
                match globs.first() {
                    Some(Glob::Exact(name)) => index.entry(name.clone()).or_default().push((at, n)),
                    Some(Glob::Pieces { first, last, .. }) => {
                        match (first.as_bytes().first(), last.as_bytes().last()) {
                            (Some(&b), _) => table.glob_first[usize::from(b)].push((at, n)),
                            (None, Some(&b)) => table.glob_last[usize::from(b)].push((at, n)),
                            (None, None) => table.always.push((at, n)),
                        }
                    }
                    // A pattern with no component matches nothing.
                    None => {}
                }
            }
        }
        table.rows = rows;
        table
    }
}

impl Table {
    /// The patterns that may start at a component named `comp`: by its
    /// name, by its first and last bytes, and those tried everywhere.
    fn candidates(&self, comp: &str) -> [&[PatternAt]; 4] {
        fn by_byte<'t>(lists: &'t [Vec<PatternAt>], b: Option<&u8>) -> &'t [PatternAt] {
            b.and_then(|&b| lists.get(usize::from(b)))
                .map_or(&[][..], Vec::as_slice)
        }
        [
            self.any.get(comp).map_or(&[][..], Vec::as_slice),
            by_byte(&self.glob_first, comp.as_bytes().first()),
            by_byte(&self.glob_last, comp.as_bytes().last()),
            &self.always,
        ]
    }

    /// Whether some pattern could start at a component of the relative
    /// `path`, read as written: cleaning only drops components (`.`, `..`
    /// and the one before it), so a word none of whose components starts a
    /// pattern is in no row. Most words (`src/main.rs`) are answered here
    /// without their components being collected.
    fn may_start_in(&self, path: &str) -> bool {
        // Split at `/` by bytes (short words: no searcher to set up).
        let bytes = path.as_bytes();
        let mut start = 0;
        let mut pieces = std::iter::from_fn(|| {
            if start > bytes.len() {
                return None;
            }
            let end = bytes
                .get(start..)
                .and_then(|rest| rest.iter().position(|&b| b == b'/'))
                .map_or(bytes.len(), |at| start + at);
            let piece = path.get(start..end);
            start = end + 1;
            piece
        });
        pieces.any(|raw| {
            if matches!(raw, "" | "." | "..") {
                return false;
            }
            let comp = fold_case(raw);
            // A pattern starts here when its first component matches.
            self.candidates(&comp)
                .into_iter()
                .flatten()
                .any(|&(row, n)| self.first_glob(row, n).is_none_or(|g| g.matches(&comp)))
        })
    }

    /// The first component of pattern `n` of row `row`.
    fn first_glob(&self, row: usize, n: usize) -> Option<&Glob> {
        self.rows.get(row)?.patterns.get(n)?.1.first()
    }
}

/// Relative words up to this long are first asked whether any of their
/// components starts a pattern ([`Table::may_start_in`]).
const SHORTCUT_BYTES: usize = 256;

/// Paths with more components than this look up the candidates of each
/// distinct component once (see [`find`]).
const MEMO_COMPONENTS: usize = 64;

/// How many distinct names of a long path [`find`] keeps in a list before
/// it uses a map.
const RECENT_NAMES: usize = 8;

/// One table compiled once, on first use.
macro_rules! compiled {
    ($name:ident, $table:expr) => {
        fn $name() -> &'static Table {
            static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
            TABLE.get_or_init(|| Table::new($table))
        }
    };
}
compiled!(persistence_rows, PERSISTENCE.iter());
compiled!(
    code_execution_rows,
    CODE_EXECUTION.iter().chain(
        PathClass::of_role(PathRole::Protected).filter(|c| SHARED_CODE_EXECUTION.contains(&c.name)),
    )
);
compiled!(
    secret_rows,
    SECRETS_ANYWHERE
        .iter()
        .chain(PathClass::of_role(PathRole::Secret))
);
compiled!(account_rows, SYSTEM_ACCOUNTS.iter());
compiled!(device_rows, DISK_DEVICES.iter());
compiled!(kernel_rows, KERNEL_FILES.iter());
compiled!(binary_rows, SYSTEM_BINARIES.iter());

/// `text` with ASCII letters lower-cased, borrowed when it has none to fold.
fn fold_case(text: &str) -> std::borrow::Cow<'_, str> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        text.to_ascii_lowercase().into()
    } else {
        text.into()
    }
}

/// The normal components of the lower-cased `path` after lexical cleaning,
/// a leading `~` expanded to the lower-cased `home` (as [`PathClass`]
/// cleans): empty and `.` components dropped, `..` taking off the one
/// before it, as [`Path::components`] reads them on Unix.
fn components<'a>(path: &'a str, home: Option<&'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::with_capacity(8);
    let mut rest = path;
    if let Some(home) = home
        && (rest == "~" || rest.starts_with("~/"))
    {
        rest = rest.get(1..).unwrap_or_default();
        out = components(home, None);
    }
    // Split at `/` by bytes (the words are short: no searcher to set up).
    loop {
        let (part, next) = match rest.bytes().position(|b| b == b'/') {
            Some(at) => (
                rest.get(..at).unwrap_or_default(),
                Some(rest.get(at + 1..).unwrap_or_default()),
            ),
            None => (rest, None),
        };
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            name => out.push(name),
        }
        match next {
            Some(next) => rest = next,
            None => return out,
        }
    }
}

/// A component glob over lower-cased text, split once at its `*`s (any
/// run of characters): most are literal names, compared whole.
#[derive(Debug)]
enum Glob {
    Exact(String),
    Pieces {
        first: String,
        middle: Vec<String>,
        last: String,
    },
}

impl Glob {
    fn new(glob: &str) -> Self {
        let mut pieces: Vec<String> = glob.split('*').map(str::to_owned).collect();
        if pieces.len() == 1 {
            return Self::Exact(pieces.remove(0));
        }
        let last = pieces.pop().unwrap_or_default();
        let first = if pieces.is_empty() {
            String::new()
        } else {
            pieces.remove(0)
        };
        Self::Pieces {
            first,
            middle: pieces,
            last,
        }
    }

    fn matches(&self, text: &str) -> bool {
        match self {
            Self::Exact(name) => name == text,
            Self::Pieces {
                first,
                middle,
                last,
            } => {
                let Some(mut rest) = text.strip_prefix(first.as_str()) else {
                    return false;
                };
                for piece in middle {
                    match find_piece(rest, piece) {
                        Some(at) => rest = rest.get(at + piece.len()..).unwrap_or_default(),
                        None => return false,
                    }
                }
                rest.len() >= last.len() && rest.ends_with(last.as_str())
            }
        }
    }
}

/// Where `piece` first occurs in `text` (a byte search: the words are
/// short, and a match of whole UTF-8 text starts and ends on characters).
fn find_piece(text: &str, piece: &str) -> Option<usize> {
    if piece.is_empty() {
        return Some(0);
    }
    text.as_bytes()
        .windows(piece.len())
        .position(|w| w == piece.as_bytes())
}

impl CompiledRow {
    fn window(&self, path: &[&str], globs: &[Glob]) -> bool {
        !globs.is_empty()
            && path.len() >= globs.len()
            && globs.iter().zip(path).all(|(g, c)| g.matches(c))
            && !self.except.iter().any(|e| e.matches(path[globs.len() - 1]))
    }

    /// Whether pattern `n` of this row matches the cleaned `path` (its
    /// components; `absolute` when it starts at the root or at an expanded
    /// home) with its first component at `start`. A relative `bin/x` is no
    /// `/bin/*`.
    fn matches_at<'h>(
        &self,
        n: usize,
        path: &[&str],
        start: usize,
        absolute: bool,
        home: &dyn Fn() -> Option<&'h [&'h str]>,
    ) -> bool {
        let Some((anchor, globs)) = self.patterns.get(n) else {
            return false;
        };
        let Some(rest) = path.get(start..) else {
            return false;
        };
        match anchor {
            Anchor::Home => {
                absolute
                    && home().is_some_and(|h| {
                        start == h.len()
                            && path.len() >= h.len() + globs.len()
                            && path[..h.len()] == *h
                            && self.window(rest, globs)
                    })
            }
            Anchor::Root => absolute && start == 0 && self.window(rest, globs),
            Anchor::Any => self.window(rest, globs),
        }
    }

    /// Whether the cleaned `path` is in this row (any pattern, at any
    /// start its anchor allows): what [`find`]'s index narrows down.
    #[cfg(test)]
    fn matches<'h>(
        &self,
        path: &[&str],
        absolute: bool,
        home: &dyn Fn() -> Option<&'h [&'h str]>,
    ) -> bool {
        (0..self.patterns.len())
            .any(|n| (0..path.len()).any(|start| self.matches_at(n, path, start, absolute, home)))
    }
}

/// The row of `table` that `path` is in (the first in table order).
fn find(table: &Table, path: &str, home: Option<&Path>) -> Option<&'static PathClass> {
    let path = with_home(path);
    let absolute = path.starts_with('/') || (path.starts_with('~') && home.is_some());
    if !absolute && !table.anywhere {
        // Every pattern is anchored at the root or the home (`/etc/…`).
        return None;
    }
    // Long words (thousands of components) keep to the memoised reading.
    // (Held to the whole reading by `the_shortcut_agrees_with_every_way`.)
    if !absolute && path.len() <= SHORTCUT_BYTES && !table.may_start_in(&path) {
        return None;
    }
    find_every_way(table, &path, home)
}

/// [`find`] without the shortcut for relative words.
fn find_every_way(table: &Table, path: &str, home: Option<&Path>) -> Option<&'static PathClass> {
    let absolute = path.starts_with('/') || (path.starts_with('~') && home.is_some());
    let lower = fold_case(path);
    // The home is read only for a path from the root or the home: a
    // relative one neither starts with `~` nor meets a pattern anchored there.
    let home_text = home.filter(|_| absolute).map(|h| h.to_string_lossy());
    let home_lower = home_text.as_deref().map(fold_case);
    let comps = components(&lower, home_lower.as_deref());
    // The home's components, computed only when a pattern anchored there is tried.
    let home_comps: std::cell::OnceCell<Option<Vec<&str>>> = std::cell::OnceCell::new();
    let home = || {
        home_comps
            .get_or_init(|| home_lower.as_deref().map(|h| components(h, None)))
            .as_deref()
    };
    // The first row (in table order) with a pattern that matches.
    let mut best: Option<usize> = None;
    let mut try_at = |candidates: &[PatternAt], start: usize| {
        for &(row, n) in candidates {
            if best.is_some_and(|b| b <= row) {
                continue;
            }
            if table
                .rows
                .get(row)
                .is_some_and(|r| r.matches_at(n, &comps, start, absolute, &home))
            {
                best = Some(row);
            }
        }
    };
    if comps.len() > MEMO_COMPONENTS {
        // A long path (`s/a/b/;s/a/b/;…`, tens of thousands of components)
        // repeats its names: each distinct one's candidates are looked up
        // once and kept only if their first component matches it, which
        // every match needs. The last few names are kept in a short list
        // (most such paths repeat a handful), the rest in a map filled from
        // the call (so with the standard hash).
        let filtered = |comp: &str| -> Vec<PatternAt> {
            table
                .candidates(comp)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&(row, n)| table.first_glob(row, n).is_some_and(|g| g.matches(comp)))
                .collect()
        };
        let mut recent: Vec<(&str, Vec<PatternAt>)> = Vec::with_capacity(RECENT_NAMES);
        let mut memo: std::collections::HashMap<&str, Vec<PatternAt>> =
            std::collections::HashMap::new();
        for (start, comp) in comps.iter().enumerate() {
            if let Some((_, found)) = recent.iter().find(|(name, _)| name == comp) {
                try_at(found, start);
            } else if recent.len() < RECENT_NAMES {
                let found = filtered(comp);
                try_at(&found, start);
                recent.push((comp, found));
            } else {
                let found = memo.entry(*comp).or_insert_with(|| filtered(comp));
                try_at(found, start);
            }
        }
    } else {
        for (start, comp) in comps.iter().enumerate() {
            for found in table.candidates(comp) {
                try_at(found, start);
            }
        }
    }
    if absolute && let Some(found) = comps.first().and_then(|c| table.root.get(*c)) {
        try_at(found, 0);
    }
    if absolute
        && !table.home.is_empty()
        && let Some(h) = home()
        && comps.len() > h.len()
        && comps.get(..h.len()) == Some(h)
        && let Some(found) = comps.get(h.len()).and_then(|c| table.home.get(*c))
    {
        try_at(found, h.len());
    }
    best.and_then(|at| table.rows.get(at)).map(|r| r.class)
}

/// `$HOME/x` and `${HOME}/x` read as `~/x`, quotes taken off.
fn with_home(path: &str) -> std::borrow::Cow<'_, str> {
    let path = path.trim_matches(|c| c == '"' || c == '\'');
    for prefix in ["${HOME}", "$HOME"] {
        if let Some(rest) = path.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("~{rest}").into();
        }
    }
    path.into()
}

/// Whether a word could name a file of one of the rows at all: a cheap
/// filter (every pattern holds a `.` or a `/`).
fn may_match(word: &str) -> bool {
    !word.starts_with('-') && crate::shell::words::has_byte(word, b"./")
}

/// A persistence location (per-user patterns match at any depth, so no
/// home is needed).
pub(crate) fn persistence_row(word: &str) -> Option<&'static PathClass> {
    if !may_match(word) {
        return None;
    }
    // Without the home's real path, `~` stands for itself: `~/bin/ls`
    // meets the rows anchored at the home (`~/bin`).
    find(persistence_rows(), word, Some(Path::new(SYMBOLIC_HOME)))
}

/// The home a word's leading `~` expands to when the real one is not at
/// hand: a path no real file has, so only `~/…` words reach the rows
/// anchored at the home.
const SYMBOLIC_HOME: &str = "/~";

/// A file inside a workspace whose contents tools execute.
pub(crate) fn code_execution_row(word: &str) -> Option<&'static PathClass> {
    if !may_match(word) {
        return None;
    }
    find(code_execution_rows(), word, None)
}

/// A secret of the blacklist's own rows or of the shared list.
pub(crate) fn secret_row(word: &str, home: Option<&Path>) -> Option<&'static PathClass> {
    // Shared patterns name bare files too (`id_rsa`).
    if word.is_empty() || word.starts_with('-') {
        return None;
    }
    find(secret_rows(), word, home)
}

/// A system account file (`/etc/shadow`, `/etc/sudoers.d/x`).
pub(crate) fn system_account_row(word: &str) -> Option<&'static PathClass> {
    if !word.contains('/') {
        return None;
    }
    find(account_rows(), word, None)
}

/// A disk or partition device (`/dev/sda1`).
pub(crate) fn disk_device_row(word: &str) -> Option<&'static PathClass> {
    if !word.contains("dev/") {
        return None;
    }
    find(device_rows(), word, None)
}

/// A kernel tunable or trigger (`/proc/sys/…`, `/proc/sysrq-trigger`).
pub(crate) fn kernel_row(word: &str) -> Option<&'static PathClass> {
    if !word.contains("sys") {
        return None;
    }
    find(kernel_rows(), word, None)
}

/// A file inside the system's program, library or boot folders.
pub(crate) fn system_binary_row(word: &str) -> Option<&'static PathClass> {
    if !word.contains('/') {
        return None;
    }
    find(binary_rows(), word, None)
}

/// Whether `path` names a hidden folder that holds a secret row's location
/// at a fixed place inside it (`.git` holds `.git/config`, `.kube` holds
/// `.kube/config`): what a recursive reader of the folder, or a file tool
/// given it as its scope, reads too. The folders are the first components
/// of the rows' patterns that match at any depth and start with a hidden
/// folder, so a new row brings its folder with it.
pub(crate) fn holds_secret_row(path: &str) -> bool {
    static HOLDERS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let holders = HOLDERS.get_or_init(|| {
        let mut out: Vec<String> = SECRETS_ANYWHERE
            .iter()
            .chain(PathClass::of_role(PathRole::Secret))
            .flat_map(|c| c.patterns.iter())
            .filter(|p| !p.starts_with(['/', '~']))
            .filter_map(|p| p.split_once('/'))
            .map(|(first, _)| first)
            .filter(|first| first.starts_with('.') && !first.contains(['*', '?', '[']))
            .map(str::to_ascii_lowercase)
            .collect();
        out.sort();
        out.dedup();
        out
    });
    let clean = path_clean::clean(path);
    clean
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|name| holders.iter().any(|h| h.eq_ignore_ascii_case(name)))
}

/// The fixed secret locations (anchored, no `*`) of the shared list,
/// expanded against `home`: what a recursive reader of one of their
/// ancestors reads too.
pub(crate) fn fixed_secret_locations(home: Option<&Path>) -> Vec<std::path::PathBuf> {
    PathClass::of_role(PathRole::Secret)
        .flat_map(|c| c.fixed_locations(home))
        .collect()
}

/// Every table of this file, for the checks.
fn all_rows() -> impl Iterator<Item = &'static PathClass> {
    PERSISTENCE
        .iter()
        .chain(CODE_EXECUTION)
        .chain(SECRETS_ANYWHERE)
        .chain(SYSTEM_ACCOUNTS)
        .chain(DISK_DEVICES)
        .chain(KERNEL_FILES)
        .chain(SYSTEM_BINARIES)
}

/// Checks every row's examples; the message names the row and the example.
pub(crate) fn check_rows() -> Result<(), String> {
    let shared: Vec<&str> = PathClass::all().iter().map(|c| c.name).collect();
    for name in SHARED_CODE_EXECUTION {
        if !shared.contains(name) {
            return Err(format!("shared path class `{name}` does not exist"));
        }
    }
    // Each row is checked as the blacklist reads it: compiled alone, through
    // the same `find` (a relative `etc/passwd` is in no root-anchored row
    // here, while the shared matcher, which the sandbox gives resolved
    // paths, reads it from the root).
    let home = Path::new(tool_core::approval::EXAMPLE_HOME);
    for row in all_rows() {
        let alone = Table::new(std::iter::once(row));
        let matches = |example: &str| find(&alone, example, Some(home)).is_some();
        for example in row.examples {
            if !matches(example) {
                return Err(format!(
                    "path row `{}`: example `{example}` does not match",
                    row.name
                ));
            }
        }
        for example in row.counter_examples {
            if matches(example) {
                return Err(format!(
                    "path row `{}`: counter example `{example}` matches",
                    row.name
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_holds_its_examples() {
        assert_eq!(check_rows(), Ok(()));
    }

    /// [`find`] (with its shortcut for short relative words) gives what
    /// [`find_every_way`] gives, for every table and every word of `line`
    /// (and the rows' own examples).
    fn agree(line: &str) -> Result<(), String> {
        let shell = crate::shell::ShellCommand::parse(line);
        let words = shell
            .parts()
            .iter()
            .flat_map(|p| p.words.iter().chain(&p.redirects))
            .map(String::as_str);
        let home = Path::new(tool_core::approval::EXAMPLE_HOME);
        for word in words {
            for table in [
                persistence_rows(),
                code_execution_rows(),
                secret_rows(),
                account_rows(),
                device_rows(),
                kernel_rows(),
                binary_rows(),
            ] {
                for home in [None, Some(home)] {
                    let quick = find(table, word, home).map(|c| c.name);
                    let whole = find_every_way(table, &with_home(word), home).map(|c| c.name);
                    if quick != whole {
                        return Err(format!("`{word}`: {quick:?} against {whole:?}"));
                    }
                }
            }
        }
        Ok(())
    }

    #[test]
    fn the_shortcut_agrees_with_every_way_on_the_corpus() {
        for line in super::super::differential::corpus_commands() {
            assert_eq!(agree(&line), Ok(()), "{line}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_shortcut_agrees_with_every_way(
            line in super::super::differential::generated_line()
        ) {
            proptest::prop_assert_eq!(agree(&line), Ok(()));
        }

        #[test]
        fn the_shortcut_agrees_with_every_way_on_relative_words(
            word in "[a-zA-Z0-9._~/-]{1,24}"
        ) {
            proptest::prop_assert_eq!(agree(&word), Ok(()));
        }
    }

    #[test]
    fn compiled_rows_agree_with_the_shared_matcher() {
        let home = Path::new(tool_core::approval::EXAMPLE_HOME);
        for table in [
            persistence_rows(),
            code_execution_rows(),
            secret_rows(),
            account_rows(),
            device_rows(),
            kernel_rows(),
            binary_rows(),
        ] {
            for row in &table.rows {
                for example in row.class.examples.iter().chain(row.class.counter_examples) {
                    let path = with_home(example);
                    let lower = fold_case(&path);
                    let home_lower = fold_case(tool_core::approval::EXAMPLE_HOME);
                    let comps = components(&lower, Some(&home_lower));
                    let h = components(&home_lower, None);
                    let absolute = path.starts_with(['/', '~']);
                    if !absolute {
                        // Relative words: see `check_rows`.
                        continue;
                    }
                    assert_eq!(
                        row.matches(&comps, absolute, &|| Some(h.as_slice())),
                        row.class.matches(Path::new(&*path), Some(home)),
                        "{} {example}",
                        row.class.name
                    );
                }
            }
        }
    }

    #[test]
    fn the_index_finds_what_trying_every_row_finds() {
        let home = Path::new(tool_core::approval::EXAMPLE_HOME);
        let home_lower = fold_case(tool_core::approval::EXAMPLE_HOME);
        let h = components(&home_lower, None);
        // Besides every example: globs at several depths, case, `..`.
        let more = [
            "a/b/ID_RSA.old",
            "x/y/z/server.PEM",
            "keys/../id_ed25519",
            "/etc/cron.d/../crontab",
            "~/.ssh/../.ssh/id_rsa.pub",
            "vendor/a/.git/modules/x/modules/y/hooks/pre-commit",
            "/usr/lib/x/../../bin/sh",
            "deploy/a-service-account.json",
        ];
        for table in [
            persistence_rows(),
            code_execution_rows(),
            secret_rows(),
            account_rows(),
            device_rows(),
            kernel_rows(),
            binary_rows(),
        ] {
            for example in all_rows()
                .flat_map(|r| r.examples.iter().chain(r.counter_examples))
                .chain(&more)
            {
                let path = with_home(example);
                let lower = fold_case(&path);
                let comps = components(&lower, Some(&home_lower));
                let absolute = path.starts_with(['/', '~']);
                let every = table
                    .rows
                    .iter()
                    .find(|r| r.matches(&comps, absolute, &|| Some(h.as_slice())))
                    .map(|r| r.class.name);
                assert_eq!(
                    find(table, example, Some(home)).map(|c| c.name),
                    every,
                    "{example}"
                );
            }
        }
    }

    #[test]
    fn long_paths_find_what_trying_every_row_finds() {
        // Past `MEMO_COMPONENTS` the candidates of each distinct name are
        // kept (a short list, then a map past `RECENT_NAMES` names): the
        // answer must not change. Every example behind and before a long
        // run of names, some repeated, more than the list holds.
        let home = Path::new(tool_core::approval::EXAMPLE_HOME);
        let home_lower = fold_case(tool_core::approval::EXAMPLE_HOME);
        let h = components(&home_lower, None);
        let filler: String = (0..40).map(|i| format!("d{}/s/", i % 12)).collect();
        for table in [
            persistence_rows(),
            code_execution_rows(),
            secret_rows(),
            account_rows(),
        ] {
            for example in table
                .rows
                .iter()
                .flat_map(|r| r.class.examples.iter().chain(r.class.counter_examples))
            {
                let inside = example.trim_start_matches(['/', '~']);
                for path in [format!("{filler}{inside}"), format!("{example}/{filler}x")] {
                    let with = with_home(&path);
                    let lower = fold_case(&with);
                    let comps = components(&lower, Some(&home_lower));
                    assert!(comps.len() > MEMO_COMPONENTS, "{path}");
                    let absolute = with.starts_with(['/', '~']);
                    let every = table
                        .rows
                        .iter()
                        .find(|r| r.matches(&comps, absolute, &|| Some(h.as_slice())))
                        .map(|r| r.class.name);
                    assert_eq!(
                        find(table, &path, Some(home)).map(|c| c.name),
                        every,
                        "{path}"
                    );
                }
            }
        }
    }

    #[test]
    fn row_names_are_unique() {
        let mut names: Vec<&str> = all_rows().map(|r| r.name).collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all);
    }
}
