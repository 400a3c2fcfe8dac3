//! Named path classes shared by the approval engine and the sandbox.

use std::path::{Component, Path, PathBuf};

/// What a [`PathClass`] means to a call that runs confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PathRole {
    /// Readable, never written, created, renamed or deleted under
    /// confinement: writing it makes a later program run code.
    Protected,
    /// Neither read nor written under confinement.
    Secret,
}

/// A named path class shared by both walls: which entries are *protected*
/// (read-only even where writes are allowed, because writing them makes a
/// later program run code) and which are *secret* (never read by a call
/// that runs confined).
///
/// Each class is one row: a name, its role, the patterns, and examples that
/// must match and must not, checked by [`PathClass::check_examples`] (the
/// crate's tests run it over every row). A new protected or secret location
/// is one row here, and both the approval engine and the sandbox see it.
///
/// # Patterns
///
/// A pattern is a `/`-separated list of component globs (`*` stands for any
/// run of characters inside one component):
///
/// - `~/…` is anchored at the home directory, `/…` at the root;
/// - anything else matches at **any depth**: `.github/workflows` matches
///   `ci/.github/workflows/x.yml` as well as `.github/workflows`.
///
/// A path is in a class when the pattern matches the path itself or one of
/// its ancestors (so `.git` covers `.git/hooks/pre-commit`). Paths are
/// cleaned lexically first (`.`, `..`, `//`), a leading `~` is expanded
/// against the home given, and components compare ASCII case-insensitively
/// on every system (so `.GIT/config` is protected on a case-insensitive file
/// system, and, harmlessly, on a case-sensitive one too).
///
/// ```
/// use std::path::Path;
/// use tool_core::{approval::{PathClass, PathRole}};
///
/// let home = Path::new("/home/ada");
/// let hit = PathClass::find(PathRole::Protected, Path::new("repo/.git/hooks/pre-commit"), Some(home));
/// assert_eq!(hit.map(|c| c.name), Some("vcs-metadata"));
/// assert!(PathClass::find(PathRole::Secret, Path::new("~/.ssh/id_ed25519"), Some(home)).is_some());
/// assert!(PathClass::find(PathRole::Secret, Path::new("app/.env.example"), Some(home)).is_none());
/// assert!(PathClass::find(PathRole::Protected, Path::new("src/main.rs"), Some(home)).is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathClass {
    /// Stable name (`vcs-metadata`, `env-files`), used in reasons.
    pub name: &'static str,
    /// Protected or secret.
    pub role: PathRole,
    /// One line for people.
    pub description: &'static str,
    /// The patterns (any one matching puts a path in the class).
    pub patterns: &'static [&'static str],
    /// Last-component globs that take a path back out (`.env.example`).
    pub except: &'static [&'static str],
    /// Paths that must be in the class (checked at load by the tests).
    pub examples: &'static [&'static str],
    /// Paths that must not be.
    pub counter_examples: &'static [&'static str],
}

/// The home directory the examples are checked against.
pub const EXAMPLE_HOME: &str = "/home/user";

/// A [`PathClass`] row: name, [`PathRole`], description, glob patterns,
/// `except` globs, and the examples (`yes`) and counter-examples (`no`) its
/// patterns are checked against at load. The one way a crate writes its
/// path-class tables.
///
/// ```
/// const DEPLOY_KEYS: tool_core::approval::PathClass = tool_core::path_class!(
///     "deploy-keys", Secret, "deploy keys",
///     ["**/deploy/*.key"], except [], yes ["/srv/deploy/a.key"], no ["/srv/deploy/a.pub"]
/// );
/// assert_eq!(DEPLOY_KEYS.name, "deploy-keys");
/// ```
#[macro_export]
macro_rules! path_class {
    ($name:literal, $role:ident, $description:literal, [$($p:literal),* $(,)?], except [$($e:literal),* $(,)?], yes [$($y:literal),* $(,)?], no [$($n:literal),* $(,)?]) => {
        $crate::approval::PathClass {
            name: $name,
            role: $crate::approval::PathRole::$role,
            description: $description,
            patterns: &[$($p),*],
            except: &[$($e),*],
            examples: &[$($y),*],
            counter_examples: &[$($n),*],
        }
    };
}

const CLASSES: &[PathClass] = &[
    // ---- protected: writing these makes a later program run code ----
    path_class!("vcs-metadata", Protected, "version-control metadata (hooks, config with aliases and filters)",
        [".git", ".hg", ".svn", ".jj"], except [],
        yes [".git", ".git/config", "repo/.git/hooks/pre-commit", "vendor/lib/.git/HEAD", ".GIT/config", "a/b/../.git/hooks/x"],
        no [".gitignore", ".gitattributes", "src/git.rs", ".github/ISSUE_TEMPLATE.md"]),
    path_class!("shell-environment", Protected, "files a shell loads on entering a directory",
        [".envrc", ".env.sh", ".autoenv", ".autoenv.zsh"], except [],
        yes [".envrc", "sub/.envrc"],
        no ["envrc.md", "src/.envrc.d.ts.bak/x"]),
    path_class!("editor-config", Protected, "editor and dev-container settings that name tasks, launchers and extensions, and the start-up files editors load from a project",
        [".vscode", ".idea", ".zed", ".fleet", ".devcontainer", ".devcontainer.json", "*.code-workspace",
         ".exrc", ".nvimrc", ".nvim.lua", ".lvimrc", ".dir-locals.el", ".dir-locals-2.el"], except [],
        yes [".vscode/tasks.json", ".idea/workspace.xml", ".devcontainer/devcontainer.json", "team.code-workspace", ".zed/tasks.json",
             ".exrc", "sub/.nvim.lua", ".dir-locals.el"],
        no ["vscode.md", "src/idea.rs", "docs/exrc.md", "nvim.lua"]),
    path_class!("agent-config", Protected, "coding agents' project and user settings that name programs to start (MCP servers, hooks)",
        [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".claude/settings.json", ".claude/settings.local.json",
         ".claude/hooks", ".gemini/settings.json", ".codex/config.toml", ".windsurf/mcp.json", ".roo/mcp.json",
         ".kilocode/mcp.json", ".amazonq/mcp.json", ".continue/config.yaml", ".continue/config.json", ".aider.conf.yml",
         "opencode.json", ".crush.json",
         ".claude.json", ".codeium/windsurf/mcp_config.json", ".config/goose/config.yaml"], except [],
        yes [".mcp.json", "app/.mcp.json", ".claude/settings.json", ".cursor/mcp.json", "~/.codex/config.toml",
             ".CLAUDE/Settings.json", "./.claude//settings.local.json"],
        no [".claude/commands/review.md", "mcp.json.md", "docs/.mcp.md", ".codex/sessions/x.jsonl"]),
    path_class!("git-hooks", Protected, "hook managers that run programs on commit or push",
        [".husky", ".githooks", ".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lintstagedrc*", ".overcommit.yml",
         "lefthook-local.yml", "lefthook-local.yaml", ".huskyrc", ".huskyrc.*", "lint-staged.config.*", ".config/husky"], except [],
        yes [".husky/pre-commit", ".githooks/pre-push", ".pre-commit-config.yaml", "lefthook.yml"],
        no ["docs/hooks.md", "src/husky.rs"]),
    path_class!("ci-config", Protected, "CI pipelines that run with the repository's credentials",
        [".github/workflows", ".github/actions", ".gitlab-ci.yml", ".gitlab", ".circleci", ".buildkite", ".travis.yml", "azure-pipelines.yml", ".azure-pipelines", "bitbucket-pipelines.yml", ".woodpecker", ".woodpecker.yml", ".drone.yml", "Jenkinsfile"], except [],
        yes [".github/workflows/ci.yml", ".github/actions/setup/action.yml", ".gitlab-ci.yml", ".circleci/config.yml", "Jenkinsfile"],
        no [".github/CODEOWNERS", ".github/ISSUE_TEMPLATE/bug.md", "docs/ci.md"]),
    path_class!("build-tool-config", Protected, "build-tool and package-manager settings that name programs to run",
        [".cargo/config.toml", ".cargo/config", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".mvn", ".bazelrc", "gradle/wrapper", ".pip/pip.conf", "pip.conf", ".pdbrc", ".gdbinit",
         "rust-toolchain.toml", "rust-toolchain", "mise.toml", ".mise.toml", "bunfig.toml"], except [],
        yes [".cargo/config.toml", "crates/a/.cargo/config.toml", ".npmrc", ".mvn/wrapper/maven-wrapper.properties", "gradle/wrapper/gradle-wrapper.properties", ".gdbinit",
             "rust-toolchain.toml", "tools/rust-toolchain"],
        no ["Cargo.toml", "package.json", ".cargo-ok", "gradle/libs.versions.toml"]),
    path_class!("test-bootstrap", Protected, "files an interpreter or test runner loads before any test",
        ["conftest.py", "sitecustomize.py", "usercustomize.py", "*.pth"], except [],
        yes ["conftest.py", "tests/conftest.py", "site-packages/evil.pth"],
        no ["tests/test_conf.py", "src/path.rs"]),
    path_class!("ssh-client-config", Protected, "SSH client settings (ProxyCommand, LocalCommand and Match exec run programs)",
        [".ssh/config", ".ssh/config.d", "/etc/ssh/ssh_config", "/etc/ssh/ssh_config.d"], except [],
        yes ["~/.ssh/config", "~/.ssh//config", "~/.ssh/config.d/work", "/etc/ssh/ssh_config", "/root/.ssh/config"],
        no ["~/.ssh/known_hosts", "/etc/ssh/sshd_config", "docs/ssh/config"]),
    // ---- secret: never read by a confined call ----
    path_class!("env-files", Secret, "environment files holding keys and passwords",
        [".env", ".env.*", "*.env", ".env~", "*.env~"], except [".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults", "*.example", "*.sample", "*.template"],
        yes [".env", "app/.env.local", ".env.production", "prod.env", ".ENV", ".env~", "prod.env~", ".env.local~"],
        no [".env.example", "app/.env.sample", ".envrc", "src/env.rs", "environment.yml"]),
    path_class!("infrastructure-state", Secret, "infrastructure state and variables (hold every resource's secrets)",
        ["*.tfstate", "*.tfstate.*", "*.tfvars", "*.tfplan", ".terraform", ".pulumi"], except ["*.example"],
        yes ["terraform.tfstate", "infra/prod/terraform.tfstate.backup", "prod.tfvars", ".terraform/providers/x", "prod.tfplan"],
        no ["main.tf", "variables.tf", "prod.tfvars.example"]),
    path_class!("private-keys", Secret, "private keys and key stores",
        ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk",
         "*.p8", "*.keytab", "*.kdbx", "*.ovpn"], except [],
        yes ["id_rsa", "deploy/id_ed25519", "certs/server.key", "release.keystore", "AuthKey_ABC123.p8", "/etc/krb5.keytab", "vault.kdbx", "client.ovpn"],
        no ["id_rsa.pub", "keys.md", "src/key.rs", "certs/server.crt"]),
    path_class!("ssh-keys", Secret, "what the SSH home holds but public keys, known hosts and client settings (a sandbox hides the whole folder)",
        ["~/.ssh/*"], except ["*.pub", "known_hosts", "known_hosts.old", "config"],
        yes ["~/.ssh/id_rsa", "~/.ssh/work_key", "~/.SSH/id_ed25519", "~/.ssh/config.d/x", "~/.ssh/authorized_keys"],
        no ["/srv/.ssh-docs/x", "~/ssh/notes", "~/.ssh/id_ed25519.pub", "~/.ssh/known_hosts", "~/.ssh/config"]),
    path_class!("gnupg-home", Secret, "the GnuPG home", ["~/.gnupg"], except [],
        yes ["/home/user/.gnupg/private-keys-v1.d/x", "~/.GnuPG/pubring.kbx"],
        no ["~/gnupg.md"]),
    path_class!("cloud-cli-credentials", Secret, "cloud and cluster CLIs' credentials",
        ["~/.aws", "~/.azure", "~/.kube", "~/.docker/config.json", "~/.config/gcloud", "~/.oci", "~/.config/doctl", "~/.terraform.d/credentials.tfrc.json", "~/.vault-token", "~/.config/gh", "~/.config/hub", "~/.fly", "~/.config/heroku", "~/.netlify", "~/.vercel",
         "~/.config/glab-cli", "~/.config/containers/auth.json", "~/.dockercfg", "~/.terraformrc", "~/.config/helm/repositories.yaml",
         "~/.config/openstack/clouds.yaml", "~/.talos/config", "~/.local/share/com.vercel.cli", "~/.mc/config.json",
         "/etc/kubernetes/admin.conf", "/etc/kubernetes/super-admin.conf", "/etc/rancher/k3s/k3s.yaml"], except [],
        yes ["~/.aws/credentials", "~/.kube/config", "~/.config/gcloud/application_default_credentials.json", "~/.docker/config.json", "~/.config/gh/hosts.yml",
             "~/.config/glab-cli/config.yml", "~/.terraformrc", "/etc/kubernetes/admin.conf", "/etc//rancher/k3s/k3s.yaml", "~/.config/containers/auth.json"],
        no ["~/.docker/cli-plugins/x", "~/projects/aws/readme.md", "/etc/kubernetes/manifests/x.yaml", "~/.config/helm/plugins/x"]),
    path_class!("data-and-deploy-cli-credentials", Secret, "credentials of storage, data, tunnel, secret-manager and deploy CLIs",
        ["~/.boto", "~/.s3cfg", "~/.config/rclone/rclone.conf", "~/.databrickscfg", "~/.config/op", "~/.config/ngrok/ngrok.yml", "~/.ngrok2",
         "~/.snowflake", "~/.dbt/profiles.yml", "~/.config/configstore/firebase-tools.json", "~/.supabase", "~/.config/stripe", "~/.railway",
         "~/.wrangler", "~/.config/.wrangler", "~/.microsoft/usersecrets", "~/.pulumi/credentials.json", "~/.config/hcloud/cli.toml", "~/.config/scw",
         "~/.sentryclirc", "~/.modal.toml", "~/.kaggle/kaggle.json", "~/.config/sops/age", "~/.vault_pass", "~/.vault_pass.txt"], except [],
        yes ["~/.s3cfg", "~/.config/rclone/rclone.conf", "~/.dbt/profiles.yml", "~/.microsoft/usersecrets/x/secrets.json",
             "~/.config/sops/age/keys.txt", "~/.kaggle/kaggle.json", "~/.vault_pass.txt", "~/.sentryclirc"],
        no ["~/.config/rclone/x.log", "dbt/profiles.yml.md", "~/.config/sops.md"]),
    path_class!("package-registry-credentials", Secret, "tokens of package registries and git hosts",
        ["~/.netrc", "~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.cargo/credentials.toml", "~/.cargo/credentials", "~/.gem/credentials", "~/.m2/settings.xml", "~/.gradle/gradle.properties", "~/.config/pip/pip.conf", "~/.password-store", "~/.local/share/keyrings",
         "~/.config/pypoetry/auth.toml", "~/.bundle/config", "~/.m2/settings-security.xml", "~/.nuget/NuGet/NuGet.Config", "~/.yarnrc.yml",
         "~/.config/nix/nix.conf", "~/.composer/auth.json", "~/.config/composer/auth.json"], except [],
        yes ["~/.netrc", "~/.cargo/credentials.toml", "~/.npmrc", "~/.password-store/work/db.gpg"],
        no ["~/.cargo/registry/cache/x", "~/.cargo/bin/rg"]),
    path_class!("coding-agent-credentials", Secret, "coding agents' and AI CLIs' login tokens",
        ["~/.codex/auth.json", "~/.claude/.credentials.json", "~/.claude.json", "~/.config/github-copilot", "~/.gemini/oauth_creds.json", "~/.config/goose/secrets.yaml", "~/.config/openai", "~/.aider.conf.yml", "~/.continue/config.json",
         "~/.continue/config.yaml", "~/.config/io.datasette.llm/keys.json", "~/.cache/huggingface/token", "~/.huggingface/token",
         "~/.local/share/opencode/auth.json", "~/.config/claude/.credentials.json", "~/.qwen/oauth_creds.json", "~/.config/crush/crush.json",
         "~/.cursor/mcp.json", "~/.codeium/config.json", "~/.config/amp/secrets.json"], except [],
        yes ["~/.codex/auth.json", "~/.claude/.credentials.json", "~/.config/github-copilot/apps.json",
             "~/.cache/huggingface/token", "~/.continue/config.yaml", "/home/user/.qwen/oauth_creds.json"],
        no ["~/.codex/sessions/x.jsonl", "~/.claude/projects/x"]),
    path_class!("dev-secret-files", Secret, "local development secret files (worker and function settings, service-account and OAuth client keys)",
        [".dev.vars", ".dev.vars.*", "local.settings.json", "serviceAccountKey.json", "service-account.json", "service-account-key.json",
         "*-service-account.json", "*-firebase-adminsdk-*.json", "client_secret_*.json", ".streamlit/secrets.toml", ".secrets",
         "secrets.auto.tfvars", ".htpasswd", ".vault-token", ".vault_pass", ".vault_pass.txt",
         "wp-config.php", "key.properties", ".secrets.toml", "config/secrets.yml", "config/credentials.yml.enc", "token.json"],
        except ["*.example", "*.sample", "*.template"],
        yes [".dev.vars", "worker/.dev.vars.staging", "local.settings.json", "app/serviceAccountKey.json", "deploy/ci-service-account.json",
             "myproj-firebase-adminsdk-x1y2z.json", "client_secret_123.apps.googleusercontent.com.json", ".streamlit/secrets.toml",
             "site/wp-config.php", "android/key.properties", "app/config/secrets.yml", "token.json"],
        no ["local.settings.json.example", ".dev.vars.example", "settings.json", "src/secrets.rs", ".streamlit/config.toml"]),
    path_class!("shell-and-repl-histories", Secret, "shell, REPL and editor histories (commands with tokens pasted into them)",
        [".bash_history", ".zsh_history", ".zhistory", ".histfile", ".sh_history", "fish_history", ".python_history",
         ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history", ".Rhistory",
         ".lesshst", ".viminfo", ".ipython/*/history.sqlite", "~/.local/share/atuin", "~/.local/state/nvim/shada"], except [],
        yes ["~/.bash_history", "~/.zhistory", "~/.local/share/fish/fish_history", "project/.Rhistory",
             "~/.ipython/profile_default/history.sqlite", "~/.local/share/atuin/history.db", "~/.local/state/nvim/shada/main.shada"],
        no ["docs/history.md", "src/history.rs", "~/.ipython/profile_default/startup/x.py"]),
    path_class!("system-secrets", Secret, "secrets mounted or kept by the system",
        ["/run/secrets", "/var/run/secrets", "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_*_key",
         "/etc/wireguard", "/etc/NetworkManager/system-connections", "/etc/mysql/debian.cnf", "/var/lib/rancher/k3s/server/token",
         "/etc/gitlab/gitlab-secrets.json"], except [],
        yes ["/run/secrets/db", "/var/run/secrets/kubernetes.io/serviceaccount/token", "/etc/shadow", "/etc/ssh/ssh_host_ed25519_key"],
        no ["/etc/passwd", "/etc/ssh/ssh_host_ed25519_key.pub"]),
];

impl PathClass {
    /// Every class, protected ones first.
    pub fn all() -> &'static [PathClass] {
        CLASSES
    }

    /// The classes of one role.
    pub fn of_role(role: PathRole) -> impl Iterator<Item = &'static PathClass> {
        CLASSES.iter().filter(move |c| c.role == role)
    }

    /// The first class of `role` that `path` is in (see the
    /// [`PathClass`] guide for the matching rules). `home` expands a
    /// leading `~` and anchors `~/` patterns; without it those patterns
    /// never match.
    pub fn find(role: PathRole, path: &Path, home: Option<&Path>) -> Option<&'static PathClass> {
        let path = clean(path, home);
        let home = home.map(|h| clean(h, None));
        Self::of_role(role).find(|c| c.matches_clean(&path, home.as_deref()))
    }

    /// Whether `path` is in this class.
    pub fn matches(&self, path: &Path, home: Option<&Path>) -> bool {
        let path = clean(path, home);
        let home = home.map(|h| clean(h, None));
        self.matches_clean(&path, home.as_deref())
    }

    /// The patterns of this class that name one fixed location (anchored at
    /// `home` or the root, no `*`), expanded: what a sandbox can exclude up
    /// front. A pattern whose only `*` is a last component of its own
    /// (`~/.ssh/*`, the entries of a folder but the exceptions) gives its
    /// folder: the sandbox hides the whole folder, exceptions included.
    /// Patterns that match at any depth or hold another `*` are left to a
    /// walk (see [`PathClass::matches`]).
    pub fn fixed_locations(&self, home: Option<&Path>) -> Vec<PathBuf> {
        self.patterns
            .iter()
            .map(|p| p.strip_suffix("/*").unwrap_or(p))
            .filter(|p| !p.contains('*'))
            .filter_map(|p| {
                if let Some(rest) = p.strip_prefix("~/") {
                    home.map(|h| h.join(rest))
                } else if p.starts_with('/') {
                    Some(PathBuf::from(p))
                } else {
                    None
                }
            })
            .collect()
    }

    /// Checks the class's own examples: every example matches, no counter
    /// example does (against [`EXAMPLE_HOME`]). The message names the
    /// class and the example that failed.
    pub fn check_examples(&self) -> Result<(), String> {
        let home = Path::new(EXAMPLE_HOME);
        for example in self.examples {
            if !self.matches(Path::new(example), Some(home)) {
                return Err(format!(
                    "path class `{}`: example `{example}` does not match",
                    self.name
                ));
            }
        }
        for example in self.counter_examples {
            if self.matches(Path::new(example), Some(home)) {
                return Err(format!(
                    "path class `{}`: counter example `{example}` matches",
                    self.name
                ));
            }
        }
        Ok(())
    }

    fn matches_clean(&self, path: &[String], home: Option<&[String]>) -> bool {
        self.patterns.iter().any(|pattern| {
            let (anchor, rest): (Option<&[String]>, &str) =
                if let Some(rest) = pattern.strip_prefix("~/") {
                    match home {
                        Some(home) => (Some(home), rest),
                        None => return false,
                    }
                } else if let Some(rest) = pattern.strip_prefix('/') {
                    (Some(&[][..]), rest)
                } else {
                    (None, pattern)
                };
            let globs: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
            match anchor {
                Some(anchor) => {
                    path.len() >= anchor.len() + globs.len()
                        && path[..anchor.len()]
                            .iter()
                            .zip(anchor)
                            .all(|(a, b)| a.eq_ignore_ascii_case(b))
                        && self.window_matches(&path[anchor.len()..], &globs)
                }
                None => (0..path.len()).any(|start| self.window_matches(&path[start..], &globs)),
            }
        })
    }

    /// Whether `globs` match the first components of `path`, and the last
    /// matched component is not an exception.
    fn window_matches(&self, path: &[String], globs: &[&str]) -> bool {
        if globs.is_empty() || path.len() < globs.len() {
            return false;
        }
        let matched = globs
            .iter()
            .zip(path)
            .all(|(glob, component)| glob_matches(glob, component));
        matched
            && !self
                .except
                .iter()
                .any(|e| glob_matches(e, &path[globs.len() - 1]))
    }
}

/// A component glob: `*` matches any run of characters; ASCII case folded.
fn glob_matches(glob: &str, text: &str) -> bool {
    let glob = glob.to_ascii_lowercase();
    let text = text.to_ascii_lowercase();
    let mut pieces = glob.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The path's normal components after lexical cleaning; a leading `~`
/// becomes `home`'s components. A `..` above the start is dropped (it
/// cannot climb out of `/`, and a relative path's parent is unknown here).
fn clean(path: &Path, home: Option<&Path>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut components = path.components().peekable();
    if let (Some(Component::Normal(first)), Some(home)) = (components.peek(), home)
        && *first == "~"
    {
        components.next();
        out = clean(home, None);
    }
    for component in components {
        match component {
            Component::Normal(part) => out.push(part.to_string_lossy().into_owned()),
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_meets_its_examples() {
        for class in PathClass::all() {
            class.check_examples().unwrap_or_else(|e| panic!("{e}"));
            assert!(!class.examples.is_empty(), "{} has no examples", class.name);
        }
    }

    #[test]
    fn class_names_are_unique() {
        let mut names: Vec<_> = PathClass::all().iter().map(|c| c.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    #[test]
    fn globs_match_by_component() {
        assert!(glob_matches(".env.*", ".env.local"));
        assert!(!glob_matches(".env.*", ".env"));
        assert!(glob_matches("*.tfstate", "terraform.tfstate"));
        assert!(glob_matches("ssh_host_*_key", "ssh_host_rsa_key"));
        assert!(!glob_matches("ssh_host_*_key", "ssh_host_rsa_key.pub"));
        assert!(glob_matches("a*b*c", "abc"));
        assert!(!glob_matches("a*b*c", "acb"));
    }

    #[test]
    fn dot_dot_cannot_hide_a_protected_entry() {
        let hit = PathClass::find(PathRole::Protected, Path::new("src/../.git/./config"), None);
        assert_eq!(hit.map(|c| c.name), Some("vcs-metadata"));
        let hit = PathClass::find(PathRole::Protected, Path::new(".git/../src/lib.rs"), None);
        assert!(hit.is_none());
    }

    #[test]
    fn home_patterns_need_a_home() {
        assert!(PathClass::find(PathRole::Secret, Path::new("~/.aws/credentials"), None).is_none());
        let home = Path::new("/home/ada");
        assert!(
            PathClass::find(
                PathRole::Secret,
                Path::new("/home/ada/.aws/credentials"),
                Some(home)
            )
            .is_some()
        );
        assert!(
            PathClass::find(
                PathRole::Secret,
                Path::new("/home/bob/.aws/credentials"),
                Some(home)
            )
            .is_none()
        );
    }

    #[test]
    fn fixed_locations_expand_home_and_skip_globs() {
        let home = Path::new("/home/ada");
        let all: Vec<PathBuf> = PathClass::of_role(PathRole::Secret)
            .flat_map(|c| c.fixed_locations(Some(home)))
            .collect();
        assert!(all.contains(&PathBuf::from("/home/ada/.ssh")));
        assert!(all.contains(&PathBuf::from("/run/secrets")));
        assert!(!all.iter().any(|p| p.to_string_lossy().contains('*')));
    }

    #[test]
    fn a_folder_of_entries_with_exceptions_is_hidden_whole() {
        const KEYS: PathClass = path_class!("keys", Secret, "a key folder but public halves",
            ["~/.keys/*", "/srv/*/x"], except ["*.pub"],
            yes ["~/.keys/a"], no ["~/.keys/a.pub", "~/.keys"]);
        KEYS.check_examples().unwrap_or_else(|e| panic!("{e}"));
        let home = Path::new("/home/ada");
        assert_eq!(
            KEYS.fixed_locations(Some(home)),
            [PathBuf::from("/home/ada/.keys")]
        );
    }
}
