//! Environment variables that make a later program run code
//! (`dangerous-env`), as rows.
//!
//! Each row names variables by pattern (an exact name, or one `*` standing
//! for any run of characters: `LD_*`, `CARGO_TARGET_*_RUNNER`), says
//! whether names compare case-insensitively (npm reads `npm_config_*` in
//! any case), lists values that are known to run nothing new (`GIT_PAGER=cat`),
//! and carries examples and counter examples checked by [`check_rows`] (the
//! crate's tests run it). A new variable is one pattern in a row, or a new
//! row with its examples.

/// One group of variables.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EnvRow {
    /// Stable name, for people and tests.
    pub(crate) name: &'static str,
    /// What setting one of them does.
    pub(crate) what: &'static str,
    /// Name patterns (`*` matches any run of characters).
    pub(crate) patterns: &'static [&'static str],
    /// Whether names compare ASCII case-insensitively.
    pub(crate) any_case: bool,
    /// Values that run nothing new (compared after unquoting); one ending
    /// in `*` is a prefix (`~/.kube/*`: the tool's own folder), for values
    /// without `..` or other expansions after it.
    pub(crate) safe_values: &'static [&'static str],
    /// The value is a list of compiler or tool flags: it is safe when it is
    /// literal and no flag names a program, plugin or script
    /// ([`RUNNING_FLAG_MARKERS`]): `CFLAGS=-O2` is, `CFLAGS=-fplugin=x.so`
    /// is not.
    pub(crate) flags: bool,
    /// The value names locations (one, or a `:`-separated list): it is
    /// safe when each is in the system's folders, the home directory or
    /// the working directory ([`is_usual_location`]), or is the variable's
    /// own old value (`$PATH`): `JAVA_HOME=/usr/lib/jvm/17` and
    /// `PATH="$HOME/.local/bin:$PATH"` are, `CARGO_HOME=/tmp/x` is not.
    pub(crate) locations: bool,
    /// Names that must match.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) examples: &'static [&'static str],
    /// Names that must not.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) counter_examples: &'static [&'static str],
}

/// Pagers and editors that are plain programs on every system.
const PLAIN_PAGERS_AND_EDITORS: &[&str] = &[
    "cat",
    "less",
    "less -R",
    "less -r",
    "less -FRX",
    "less -FRSX",
    "less -FX",
    "more",
    "most",
    "vi",
    "vim",
    "nvim",
    "nano",
    "emacs",
    "true",
    "",
];

/// Compilers and tools found on every system, by name (`CC=clang make`).
const PLAIN_COMPILERS: &[&str] = &[
    "gcc",
    "g++",
    "cc",
    "c++",
    "clang",
    "clang++",
    "gcc-*",
    "g++-*",
    "clang-*",
    "clang++-*",
    "ar",
    "ld",
    "ld.lld",
    "lld",
    "mold",
    "as",
    "make",
    "gmake",
    "ninja",
    "icx",
    "icpx",
    "tcc",
];

/// The tools' own configuration folders in the home: a configuration there
/// was put by the user, not written by the call (`KUBECONFIG=~/.kube/staging.yaml`).
const TOOL_HOME_FOLDERS: &[&str] = &[
    "~/.kube/*",
    "$HOME/.kube/*",
    "${HOME}/.kube/*",
    "~/.aws/*",
    "$HOME/.aws/*",
    "${HOME}/.aws/*",
    "~/.docker/*",
    "$HOME/.docker/*",
    "${HOME}/.docker/*",
    "~/.terraformrc",
    "~/.hgrc",
];

/// Pieces of a flag that make a build run or load another program (a
/// piece starting with `-` is a prefix, one starting with `=` the whole
/// flag, any other is looked for anywhere in it):
/// plugins, linkers and wrappers, tool-exec hooks, spec files, make's
/// `--eval` and `SHELL`.
pub(crate) const RUNNING_FLAG_MARKERS: &[&str] = &[
    "plugin",
    "linker",
    "link-arg",
    "wrapper",
    "toolexec",
    "specs",
    "eval",
    "exec",
    "overlay",
    "load",
    "fuse-ld",
    "SHELL",
    "modfile",
    "-B",
    "-Z",
    "-Xclang",
    "--file",
    "--makefile",
    "-javaagent",
    "-agentpath",
    "-agentlib",
    "-Xbootclasspath",
    // node: `--require`/`-r`, `--import`, `--loader` (see `load`).
    "--require",
    "--import",
    "=-r",
    // less's start-up commands: `+!CMD` runs a shell command, `+|CMD` pipes to one.
    "+!",
    "+|",
];

/// Folders outside the home and the working directory where a location
/// may point (the system's own, written only by an administrator or a
/// package manager).
const SYSTEM_FOLDERS: &[&str] = &[
    "/usr",
    "/opt",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/nix/store",
    "/snap",
    "/Library",
    "/Applications",
    "/System",
];

/// Whether one location of a value is where tools usually live: under a
/// [`SYSTEM_FOLDERS`] entry, the home directory (`~`, `$HOME`) or the
/// working directory (relative, `$PWD`), or the variable's own old value
/// (`$PATH` in `PATH`); without `..` and without other expansions. A
/// temporary folder (`/tmp/x`), another absolute folder, a parent of the
/// working directory, the working directory of each later lookup (`.` or
/// an empty element) or a computed value is not.
fn is_usual_location(location: &str, name: &str) -> bool {
    let own = [format!("${name}"), format!("${{{name}}}")];
    if own.iter().any(|o| o == location) {
        return true;
    }
    // `PATH=.:$PATH`, `PATH=:$PATH`: the folder each later lookup runs in,
    // wherever a later `cd` goes.
    if name == "PATH" && (location.is_empty() || location == "." || location == "./") {
        return false;
    }
    let rest = ["~/", "$HOME/", "${HOME}/", "$PWD/", "${PWD}/"]
        .iter()
        .find_map(|p| location.strip_prefix(p));
    let rest = match rest {
        Some(rest) => rest,
        None if location.starts_with('/') => {
            let inside = SYSTEM_FOLDERS.iter().any(|f| {
                location
                    .strip_prefix(f)
                    .is_some_and(|r| r.is_empty() || r.starts_with('/'))
            });
            if !inside {
                return false;
            }
            location
        }
        None => location,
    };
    !rest.contains(['$', '`']) && !rest.split('/').any(|segment| segment == "..")
}

macro_rules! env_row {
    ($name:literal, $what:literal, [$($p:literal),* $(,)?], any_case $case:literal, safe $safe:expr, LOCATIONS yes [$($y:literal),* $(,)?], no [$($n:literal),* $(,)?]) => {
        env_row!(@row false, true, $name, $what, [$($p),*], $case, $safe, [$($y),*], [$($n),*])
    };
    ($name:literal, $what:literal, [$($p:literal),* $(,)?], any_case $case:literal, safe $safe:expr, FLAGS yes [$($y:literal),* $(,)?], no [$($n:literal),* $(,)?]) => {
        env_row!(@row true, false, $name, $what, [$($p),*], $case, $safe, [$($y),*], [$($n),*])
    };
    ($name:literal, $what:literal, [$($p:literal),* $(,)?], any_case $case:literal, safe $safe:expr, yes [$($y:literal),* $(,)?], no [$($n:literal),* $(,)?]) => {
        env_row!(@row false, false, $name, $what, [$($p),*], $case, $safe, [$($y),*], [$($n),*])
    };
    (@row $flags:literal, $locations:literal, $name:literal, $what:literal, [$($p:literal),*], $case:literal, $safe:expr, [$($y:literal),*], [$($n:literal),*]) => {
        EnvRow {
            name: $name,
            what: $what,
            patterns: &[$($p),*],
            any_case: $case,
            safe_values: $safe,
            flags: $flags,
            locations: $locations,
            examples: &[$($y),*],
            counter_examples: &[$($n),*],
        }
    };
}

/// The rows.
pub(crate) const ENV_ROWS: &[EnvRow] = &[
    env_row!("library-search-path", "changes where programs find their libraries (dangerous outside the system, the home and the working directory)",
        ["LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH", "LIBRARY_PATH"],
        any_case false, safe &[], LOCATIONS yes ["LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"], no ["LIBRARY_NAME"]),
    env_row!("dynamic-loader", "loads a library into every program", ["LD_*", "DYLD_*"],
        any_case false, safe &[], yes ["LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"], no ["OLD_PATH", "LDFLAGS_EXTRA"]),
    env_row!("shell-start", "changes what a shell runs or where it looks for programs and start-up files",
        ["BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "CDPATH",
         "GLOBIGNORE", "BASH_FUNC_*", "ZDOTDIR", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS",
         "PS0", "PS1", "HISTFILE"],
        any_case false, safe &[], yes ["BASH_ENV", "BASH_FUNC_ls%%", "ZDOTDIR"], no ["MYPATH", "PATH_INFO", "ENVIRONMENT"]),
    env_row!("program-search-path", "changes where a shell looks for programs (dangerous when it names a folder outside the system, the home and the working directory)",
        ["PATH"],
        any_case false, safe &[], LOCATIONS yes ["PATH"], no ["PATH_INFO", "MANPATH"]),
    env_row!("toolchain-homes", "points a build tool at another toolchain or tool home, whose configuration and programs it runs (dangerous outside the system, the home and the working directory)",
        ["CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "JAVA_HOME", "GRADLE_USER_HOME", "GOROOT",
         "GOPATH", "M2_HOME", "MAVEN_HOME", "ANDROID_HOME", "ANDROID_SDK_ROOT", "SDKMAN_DIR", "NVM_DIR",
         "PYENV_ROOT", "RBENV_ROOT", "VOLTA_HOME", "BUN_INSTALL", "DENO_INSTALL", "FLUTTER_ROOT", "DOTNET_ROOT"],
        any_case false, safe &[], LOCATIONS yes ["CARGO_HOME", "RUSTUP_TOOLCHAIN", "JAVA_HOME", "GOROOT"], no ["CARGO_TERM_COLOR", "JAVA_VERSION", "GOOS"]),
    env_row!("interpreter-load", "makes an interpreter load code before the program",
        ["PYTHONSTARTUP", "PYTHONHOME", "PYTHONBREAKPOINT", "PYTHONUSERBASE", "PYTHONWARNINGS",
         "PERL5OPT", "PERL5DB", "RUBYOPT",
         "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "LUA_INIT", "LUA_INIT_*",
         "PHPRC", "PHP_INI_SCAN_DIR", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON_USER", "BUNDLE_GEMFILE",
         "GEM_HOME", "ERL_AFLAGS", "ERL_ZFLAGS", "ERL_FLAGS", "DOTNET_STARTUP_HOOKS"],
        any_case false, safe &[], yes ["PYTHONSTARTUP", "PYTHONWARNINGS", "LUA_INIT_5_4", "JDK_JAVA_OPTIONS"], no ["PYTHONUNBUFFERED", "NODE_ENV"]),
    env_row!("module-search-path", "changes where an interpreter finds modules (dangerous outside the system, the home and the working directory)",
        ["PYTHONPATH", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "LUA_PATH", "LUA_CPATH", "GEM_PATH",
         "CLASSPATH"],
        any_case false, safe &[], LOCATIONS yes ["PYTHONPATH", "NODE_PATH", "CLASSPATH"], no ["PYTHONDONTWRITEBYTECODE"]),
    env_row!("node-options", "options node reads at start (dangerous when one loads a module: --require, --import, --loader)",
        ["NODE_OPTIONS"],
        any_case false, safe &[], FLAGS yes ["NODE_OPTIONS"], no ["NODE_ENV", "NODE_NO_WARNINGS"]),
    env_row!("git-programs", "makes git run a program or read another configuration or repository",
        ["GIT_DIR", "GIT_COMMON_DIR", "GIT_EXEC_PATH", "GIT_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
         "GIT_PAGER", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_TEMPLATE_DIR", "GIT_CONFIG*",
         "GIT_SSH*", "GIT_ALTERNATE_OBJECT_DIRECTORIES"],
        any_case false, safe PLAIN_PAGERS_AND_EDITORS, yes ["GIT_DIR", "GIT_TEMPLATE_DIR", "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND"], no ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"]),
    env_row!("pagers-editors-openers", "names the program a tool runs to page, edit, open a URL or ask for a password",
        ["EDITOR", "VISUAL", "PAGER", "MANPAGER", "SYSTEMD_PAGER", "GH_PAGER", "GH_EDITOR", "GH_BROWSER",
         "BROWSER", "KUBE_EDITOR", "SVN_EDITOR", "HGEDITOR", "BAT_PAGER", "DELTA_PAGER", "PSQL_PAGER", "SYSTEMD_EDITOR",
         "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "SUDO_ASKPASS", "SUDO_EDITOR", "SHELL"],
        any_case false, safe PLAIN_PAGERS_AND_EDITORS, yes ["MANPAGER", "BROWSER", "LESSOPEN", "SUDO_ASKPASS"], no ["EDITOR_THEME", "PAGE"]),
    env_row!("build-wrappers", "names the compiler, linker, wrapper or runner a build runs (a plain system compiler is not dangerous)",
        ["RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "RUSTDOC_WRAPPER",
         "CARGO_BUILD_RUSTC", "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
         "CARGO_BUILD_RUSTDOC", "CARGO_TARGET_*_RUNNER", "CARGO_TARGET_*_LINKER", "CARGO_ALIAS_*",
         "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "CC_*", "CXX_*", "MAKE", "MAKEFILES",
         "CMAKE_*_COMPILER", "CMAKE_*_COMPILER_LAUNCHER", "CMAKE_*_LINKER_LAUNCHER",
         "CMAKE_TOOLCHAIN_FILE", "CCACHE_PREFIX", "GOENV", "GOTOOLCHAIN", "PKG_CONFIG", "PROTOC",
         "PYO3_PYTHON", "TARGET_CC", "TARGET_CXX", "TARGET_AR", "HOST_CC", "HOST_CXX", "CROSS_COMPILE",
         "CARGO_REGISTRY_CREDENTIAL_PROVIDER", "CARGO_REGISTRIES_*_CREDENTIAL_PROVIDER",
         "CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS"],
        any_case false, safe PLAIN_COMPILERS, yes ["RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", "CC", "CXX", "CMAKE_C_COMPILER_LAUNCHER"],
        no ["CARGO_TERM_COLOR", "RUST_LOG", "RUST_BACKTRACE", "CCC", "GOOS", "GOARCH", "CARGO_INCREMENTAL", "CARGO_BUILD_JOBS", "CARGO_PROFILE_RELEASE_DEBUG", "JAVA_VERSION"]),
    env_row!("build-flags", "flags a build passes to its compiler, linker or tools (dangerous when a flag names a program or plugin)",
        ["RUSTFLAGS", "RUSTDOCFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_ENCODED_RUSTDOCFLAGS",
         "CARGO_BUILD_RUSTFLAGS", "CARGO_BUILD_RUSTDOCFLAGS", "CARGO_TARGET_*_RUSTFLAGS", "CFLAGS",
         "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "GOFLAGS",
         "CGO_*FLAGS", "MAVEN_OPTS", "GRADLE_OPTS", "JAVA_OPTS", "SBT_OPTS", "ANT_OPTS", "KOTLIN_OPTS"],
        any_case false, safe &[], FLAGS yes ["RUSTFLAGS", "CFLAGS", "MAKEFLAGS", "GOFLAGS", "CGO_LDFLAGS", "JAVA_OPTS"], no ["RUST_LOG", "GOOS"]),
    env_row!("package-manager-scripts", "names the shell, config file or node options a package manager runs scripts with",
        ["NPM_CONFIG_SCRIPT_SHELL", "NPM_CONFIG_USERCONFIG", "NPM_CONFIG_GLOBALCONFIG", "NPM_CONFIG_NODE_OPTIONS",
         "NPM_CONFIG_ONLOAD_SCRIPT", "NPM_CONFIG_SHELL", "NPM_CONFIG_PREFIX", "NPM_CONFIG_GIT",
         "YARN_RC_FILENAME", "YARN_YARN_PATH", "YARN_PLUGINS", "PNPM_HOME", "PIP_CONFIG_FILE",
         "PIP_BUILD", "UV_CONFIG_FILE", "POETRY_CONFIG_DIR", "COMPOSER_HOME", "NPM_CONFIG_INIT_MODULE",
         "NPM_CONFIG_PNPMFILE"],
        any_case true, safe &[], yes ["npm_config_script_shell", "NPM_CONFIG_SCRIPT_SHELL", "Npm_Config_Userconfig", "YARN_YARN_PATH"],
        no ["npm_config_loglevel", "NPM_TOKEN", "YARN_CACHE_FOLDER"]),
    env_row!("pager-options", "options a pager reads at start (dangerous when a start-up command runs a shell: LESS='+!CMD')",
        ["LESS", "MORE"],
        any_case false, safe &[], FLAGS yes ["LESS", "MORE"], no ["LESSCHARSET", "MOREHOME"]),
    env_row!("package-sources", "points a package manager at another index, registry or module proxy (what it installs and runs comes from there)",
        ["GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOPRIVATE", "GONOPROXY", "PIP_INDEX_URL",
         "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
         "UV_DEFAULT_INDEX", "UV_INDEX", "UV_FIND_LINKS", "NPM_CONFIG_REGISTRY", "YARN_NPM_REGISTRY_SERVER",
         "YARN_REGISTRY", "BUN_CONFIG_REGISTRY", "CARGO_REGISTRIES_*_INDEX", "GEM_SOURCE", "POETRY_REPOSITORIES_*"],
        any_case true, safe &["direct", "off", "https://proxy.golang.org", "https://proxy.golang.org,direct",
            "https://pypi.org/simple", "https://pypi.org/simple/", "https://registry.npmjs.org",
            "https://registry.npmjs.org/", "https://registry.yarnpkg.com"],
        yes ["GOPROXY", "PIP_INDEX_URL", "npm_config_registry", "UV_DEFAULT_INDEX"], no ["GOPATH_CACHE", "PIP_NO_CACHE_DIR", "UV_CACHE_DIR"]),
    env_row!("network-proxies", "sends a program's network traffic through another host", ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "FTP_PROXY", "SOCKS_PROXY", "RSYNC_PROXY"],
        any_case true, safe &["", "localhost", "127.0.0.1"], yes ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"], no ["NO_PROXY", "no_proxy"]),
    env_row!("library-modules", "makes a library load modules or engines from a path it names",
        ["GCONV_PATH", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "SSLKEYLOGFILE"],
        any_case false, safe &[], yes ["GCONV_PATH", "OPENSSL_CONF"], no ["OPENSSL_DIR", "SSL_CERT_FILE"]),
    env_row!("tool-config-files", "points a tool at a configuration that names programs it runs (exec plugins, credential processes, editor start-up commands)",
        ["KUBECONFIG", "AWS_CONFIG_FILE", "TF_CLI_CONFIG_FILE", "HGRCPATH", "VIMINIT", "EXINIT", "GVIMINIT", "MYVIMRC",
         "DOCKER_CONFIG", "GNUPGHOME"],
        any_case false, safe TOOL_HOME_FOLDERS, yes ["KUBECONFIG", "AWS_CONFIG_FILE", "VIMINIT"], no ["KUBE_NAMESPACE", "AWS_REGION", "AWS_PROFILE"]),
    env_row!("git-trace-files", "makes git write its trace into a file the value names", ["GIT_TRACE*"],
        any_case false, safe &["0", "1", "2", "true", "false", ""], yes ["GIT_TRACE", "GIT_TRACE_PACKET"], no ["GIT_AUTHOR_NAME"]),
];

/// Whether `pattern` (at most one `*`) matches `name`.
fn pattern_matches(pattern: &str, name: &str, any_case: bool) -> bool {
    // Folding ASCII case keeps every byte where it is, so the pieces are
    // compared in place (no folded copies).
    let same = |a: &str, b: &str| {
        if any_case {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    match pattern.split_once('*') {
        None => same(pattern, name),
        Some((head, tail)) => {
            name.len() >= head.len() + tail.len()
                && name.get(..head.len()).is_some_and(|h| same(h, head))
                && name
                    .get(name.len() - tail.len()..)
                    .is_some_and(|t| same(t, tail))
        }
    }
}

impl EnvRow {
    fn matches(&self, name: &str) -> bool {
        self.patterns
            .iter()
            .any(|p| pattern_matches(p, name, self.any_case))
    }
}

/// The row a variable set to `value` (`None`: not known) is dangerous by:
/// its name is in the row and the value is not one of the row's safe ones.
pub(crate) fn dangerous_env(name: &str, value: Option<&str>) -> Option<&'static EnvRow> {
    let name = name.trim();
    let value = value.map(unquote);
    ENV_ROWS.iter().find(|r| r.matches(name)).filter(|r| {
        let Some(v) = value.as_deref() else {
            return true;
        };
        if r.safe_values
            .iter()
            .any(|safe| match safe.strip_suffix('*') {
                Some(prefix) => v.strip_prefix(prefix).is_some_and(|rest| {
                    !rest.contains(['$', '`']) && !rest.split('/').any(|s| s == "..")
                }),
                None => *safe == v,
            })
        {
            return false;
        }
        if r.locations {
            return !v.split(':').all(|l| is_usual_location(l, name));
        }
        !(r.flags && !v.contains(['$', '`']) && !runs_a_program(v))
    })
}

/// Whether a literal list of flags names a program, plugin or script.
fn runs_a_program(flags: &str) -> bool {
    flags.split_whitespace().any(|flag| {
        RUNNING_FLAG_MARKERS.iter().any(|m| {
            if let Some(exact) = m.strip_prefix('=') {
                flag == exact
            } else if m.starts_with('-') {
                flag.starts_with(m)
            } else {
                flag.contains(m)
            }
        })
    })
}

/// A value with one layer of matching quotes taken off.
fn unquote(value: &str) -> String {
    let v = value.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    v.to_owned()
}

/// Checks every row's examples; the message names the row and the name.
pub(crate) fn check_rows() -> Result<(), String> {
    for row in ENV_ROWS {
        if let Some(n) = row.examples.iter().find(|n| !row.matches(n)) {
            return Err(format!(
                "env row `{}`: example `{n}` does not match",
                row.name
            ));
        }
        if let Some(n) = row.counter_examples.iter().find(|n| row.matches(n)) {
            return Err(format!(
                "env row `{}`: counter example `{n}` matches",
                row.name
            ));
        }
        if let Some(n) = row
            .counter_examples
            .iter()
            .find(|n| ENV_ROWS.iter().any(|r| r.matches(n)))
        {
            return Err(format!(
                "env row `{}`: counter example `{n}` is in another row",
                row.name
            ));
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

    #[test]
    fn safe_values_run_nothing_new() {
        assert!(dangerous_env("GIT_PAGER", Some("cat")).is_none());
        assert!(dangerous_env("GIT_PAGER", Some("'less -R'")).is_none());
        assert!(dangerous_env("GIT_PAGER", Some("'sh -c id'")).is_some());
        assert!(dangerous_env("GIT_PAGER", None).is_some());
        assert!(dangerous_env("CC", Some("cat")).is_some());
        assert!(dangerous_env("RUST_LOG", Some("debug")).is_none());
        assert!(dangerous_env("CFLAGS", Some("'-O2 -g'")).is_none());
        assert!(dangerous_env("RUSTFLAGS", Some("'-D warnings'")).is_none());
        assert!(dangerous_env("RUSTFLAGS", Some("'-C linker=./x'")).is_some());
        assert!(dangerous_env("GOFLAGS", Some("-toolexec=./x")).is_some());
        assert!(dangerous_env("MAKEFLAGS", Some("'--eval=x:;id'")).is_some());
        assert!(dangerous_env("CFLAGS", Some("$X")).is_some());
        assert!(dangerous_env("CFLAGS", None).is_some());
        assert!(dangerous_env("JAVA_OPTS", Some("-Xmx2g")).is_none());
        assert!(dangerous_env("KUBECONFIG", Some("~/.kube/staging.yaml")).is_none());
        assert!(dangerous_env("NODE_OPTIONS", Some("--max-old-space-size=4096")).is_none());
        assert!(dangerous_env("NODE_OPTIONS", Some("'--require ./x.js'")).is_some());
        assert!(dangerous_env("NODE_OPTIONS", Some("'-r ./x.js'")).is_some());
        assert!(dangerous_env("NODE_OPTIONS", Some("--import=./x.mjs")).is_some());
        assert!(dangerous_env("LDFLAGS", Some("-rdynamic")).is_none());
        assert!(dangerous_env("CC", Some("clang")).is_none());
        assert!(dangerous_env("CXX", Some("g++-13")).is_none());
        assert!(dangerous_env("CC", Some("./evil-cc")).is_some());
        assert!(dangerous_env("PYTHONPATH", Some("src")).is_none());
        assert!(dangerous_env("PYTHONPATH", Some("/tmp/evil")).is_some());
        assert!(dangerous_env("LD_LIBRARY_PATH", Some("./target/release")).is_none());
        assert!(dangerous_env("LD_PRELOAD", Some("./target/release/x.so")).is_some());
        assert!(dangerous_env("PATH", Some(".:$PATH")).is_some());
        assert!(dangerous_env("PATH", Some(":$PATH")).is_some());
        assert!(dangerous_env("PYTHONPATH", Some(".")).is_none());
        assert!(dangerous_env("GOPROXY", Some("https://x.example")).is_some());
        assert!(dangerous_env("GOPROXY", Some("direct")).is_none());
        assert!(dangerous_env("https_proxy", Some("http://x.example:8080")).is_some());
        assert!(dangerous_env("LESS", Some("-R")).is_none());
        assert!(dangerous_env("LESS", Some("'-FRX +G'")).is_none());
        assert!(dangerous_env("LESS", Some("'+!./x'")).is_some());
        assert!(dangerous_env("KUBECONFIG", Some("./evil.yaml")).is_some());
        assert!(dangerous_env("KUBECONFIG", Some("~/.kube/../x.yaml")).is_some());
        assert!(dangerous_env("KUBECONFIG", Some("~/.kube/$X")).is_some());
        assert!(dangerous_env("JAVA_OPTS", Some("-javaagent:./x.jar")).is_some());
    }

    #[test]
    fn locations_are_judged_by_where_they_point() {
        for (name, value) in [
            ("PATH", "\"$HOME/.local/bin:$PATH\""),
            ("PATH", "$PATH:./node_modules/.bin"),
            ("PATH", "${PWD}/bin:${PATH}"),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk"),
            ("JAVA_HOME", "~/.sdkman/candidates/java/current"),
            ("CARGO_HOME", ".cargo-home"),
            ("RUSTUP_TOOLCHAIN", "nightly-2026-01-01"),
            ("GOROOT", "/opt/go"),
        ] {
            assert!(dangerous_env(name, Some(value)).is_none(), "{name}={value}");
        }
        for (name, value) in [
            ("PATH", "/tmp/evil:$PATH"),
            ("PATH", "$PATH:/dev/shm"),
            ("PATH", "../../x:$PATH"),
            ("PATH", "$X:$PATH"),
            ("PATH", "/usrx/bin"),
            ("CARGO_HOME", "/tmp/evil"),
            ("RUSTUP_TOOLCHAIN", "/tmp/evil"),
            ("JAVA_HOME", "/var/tmp/jdk"),
            ("JAVA_HOME", "$(./find-jdk)"),
            ("GOROOT", "~/../other/go"),
            ("GRADLE_USER_HOME", "/tmp/g"),
        ] {
            assert!(dangerous_env(name, Some(value)).is_some(), "{name}={value}");
        }
        assert!(dangerous_env("CARGO_HOME", None).is_some());
    }
}
