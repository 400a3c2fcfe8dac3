//! The OS sandbox around [`LocalComputer`](crate::LocalComputer)'s shell
//! commands: a second wall behind approval, so a misjudged command still
//! cannot write outside the workspace or reach the network.
//!
//! The host picks a [`SandboxPolicy`] in
//! [`ShellConfig::sandbox`](crate::ShellConfig::sandbox) (or
//! [`LocalConfig::with_sandbox`](crate::LocalConfig::with_sandbox)); the
//! default is [`SandboxPolicy::FullAccess`], i.e. no confinement. Every
//! command's state carries an [`AppliedSandbox`] saying what it ran under,
//! and its content says so in one line; when the output shows a refused
//! operation, the content adds a hint naming what the sandbox allows and
//! that only the host can widen it.
//!
//! # What a confined command can read, write, reach and keep running (Linux)
//!
//! Two mechanisms, named in the command's state (`mechanism`):
//! `namespaces+landlock+seccomp` where the machine lets a child make user,
//! mount and PID namespaces (as root too), else the named fallback
//! `landlock+seccomp` (also forced by [`SandboxOptions::namespaces`]
//! `= false`; its differences are marked). Each row names the test that
//! pins it (`tests/<file>.rs::<test>`).
//!
//! | | `workspace_write` | test |
//! |---|---|---|
//! | **write** the workspace (the call's working directory), `writable_roots`, the private `/tmp` | yes: create, change, rename, delete, `chmod`, no-op `chown`; `cp -a`, `tar x`, `sed -i` | `sandbox::copying_archiving_and_editing_in_place_work_confined`, `sandbox::writes_inside_the_workspace_work_and_the_state_names_the_sandbox` |
//! | **build and package tools**: `cargo build`/`cargo test` offline with the populated cache, `pip install -e .` then an import in the next call, `npm install ../sibling` | yes | `sandbox::cargo_builds_and_tests_offline_with_the_populated_cache`, `sandbox::pip_editable_install_then_import_and_npm_install_of_a_local_package_work_confined`; pip and npm as an unprivileged host too: `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left`; cargo as an unprivileged host (uid 65534, with hard links of the host's toolchain and cached crate in its own home, the host's being under a home only root enters): `sandbox_user::as_an_unprivileged_user_cargo_builds_and_tests_offline_with_a_populated_cache`; a crate only in `registry/cache` unpacked into the home's registry (refused with the caches read-only): `sandbox_guide_rows::cargo_unpacks_a_crate_that_is_only_cached_into_the_homes_writable_registry` |
//! | **`/tmp`**: the host's `/tmp` readable (the overlay's lower layer) but the private temp dirs of the user's computers in it (each masked by an empty read-only tmpfs: what another computer's commands wrote to their `/tmp` stays theirs), what the command writes there private to the computer (not a workspace: a repository put there is not looked into); metadata outside the roots unchangeable | read yes, writes private | `sandbox_tmp::a_command_cannot_read_another_computers_private_tmp`, `sandbox_tmp::a_cwd_and_inputs_under_the_hosts_tmp_are_readable_and_writes_stay_private`, `sandbox_tmp::without_the_overlay_the_cwd_under_tmp_is_bound_back_read_only`, `sandbox_tmp::a_repository_a_command_puts_in_the_private_tmp_does_not_stop_the_next_command`, `sandbox_git::tmp_is_private_and_metadata_outside_the_roots_cannot_change` |
//! | **write** anywhere else (by `..`, symlinks, hard links, `mv`, grandchildren) | no (`EACCES` / `EROFS` / `EXDEV`) | `sandbox::a_write_outside_the_workspace_is_refused_with_the_commands_own_error`, `sandbox::a_symlink_pointing_outside_does_not_open_the_outside`, `sandbox::mv_in_and_out_of_the_workspace_is_refused`, `sandbox::a_hard_link_to_an_outside_file_is_refused`, `sandbox::a_grandchild_process_inherits_the_sandbox` |
//! | **git**: index, objects, refs, logs, stash (`add`, `commit`, `branch`, `tag`, `stash`, `rebase`, `merge`), in a worktree and a submodule too; `submodule add` (the new module's `core.worktree` is taken out after the run and reported: git finds the work tree by its `.git` file) | yes | `sandbox_git::git_add_commit_branch_tag_stash_rebase_and_merge_work_confined`, `sandbox_git::a_worktree_commits_confined_and_its_git_dirs_code_parts_stay_shut`, `sandbox_git::a_submodules_git_dir_keeps_config_and_hooks_shut_and_commits_in_it_work`, `sandbox_new_repos::git_submodule_add_works_confined_and_the_submodule_stays_usable`, a merge commit of divergent branches and `--no-ff`: `sandbox_guide_rows::a_non_fast_forward_git_merge_commits_confined_and_git_code_parts_stay_read_only` |
//! | **git's code parts**: `config`, `config.worktree`, `hooks`, `info`, `commondir`, `gitdir` of every git directory found (also in `modules/…`, `worktrees/…`, a worktree's resolved git dir); the git dir itself cannot be renamed, nor its `modules/` and `worktrees/` folders, a module's or a worktree's git dir, or a folder on the way to one (else a command could put a git dir of its own where a `.git` file points) | read-only | same tests, `sandbox::git_and_code_execution_files_stay_read_only`, `sandbox_git::a_submodules_git_dir_keeps_config_and_hooks_shut_and_commits_in_it_work`, `sandbox_git::a_worktrees_resolved_git_dir_keeps_its_code_parts_shut_from_inside_and_out` |
//! | **nested repositories**: a `.git` one or two folders below a root's top (`sub/.git`, `vendor/lib/.git`; not inside `node_modules`, `target`, `.venv`, `venv`, `.tox`, `__pycache__`; at most 1 024 folders looked into per root, then `scanTruncated` (also when a listing passes [`SandboxOptions::scan_limit`]: `sandbox_git::a_look_cut_short_by_its_bounds_is_reported_as_scan_truncated`); the search is remembered per root between commands and checked by one `lstat` per folder it read, a changed `ctime` meaning a new search, so a repository made since is found), the submodules a `.gitmodules` found names (any depth), `.git/modules/…`, worktrees | their code parts read-only, their git dir pinned, like the top repository's (a code part missing from a nested one's, a submodule's or a worktree's git dir, such as `hooks/` or `config.worktree`, is swept and reported, not refused) | `sandbox_protected::nested_repositories_stay_shut_and_a_new_ones_code_settings_are_taken_out`, `sandbox_new_repos::code_parts_missing_from_a_modules_or_a_worktrees_git_dir_are_taken_out_after_the_run` |
//! | a **new repository** (`git init`, `cargo new`) | kept; its code parts read-only from the next command on | `sandbox_protected::a_new_repository_keeps_its_git_and_its_hooks_are_then_protected` |
//! | code a **new repository** would run, written in the same command (in the places examined, the nested places above and the submodules a `.gitmodules` there names; a `.git` folder, or a `.git` file naming a git dir in the workspace or inside a known git dir, such as a worktree's main repository outside the workspace, with that dir's `commondir`): `config` settings that run a program or read settings from elsewhere (`core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, `filter.*.smudge`, `alias.*`, `include.path`…: the table of the private `new_repo` module), hooks other than git's `*.sample` | taken out when the command has ended: the settings removed (the original config kept in the quarantine folder; `config.worktree` too), the hooks moved there; a `hooks`, `config` or `config.worktree` that is a symlink is moved itself, never followed (`sandbox_new_repos::symlinks_planted_as_a_new_repositorys_hooks_or_config_are_taken_out_not_followed`); each listed in `protectedCreated` and the content line | same test, `sandbox_new_repos::a_new_repository_behind_a_git_file_loses_the_code_settings_it_was_given`, `sandbox_new_repos::a_git_dir_planted_in_an_outside_main_repository_loses_its_code_settings` |
//! | **protected entries** ([`tool_core::approval::PathClass`] protected classes) that exist at a root's top or in a directory on the way to the working directory (one listing each, never a walk of the workspace) | read-only mounts (neither written, renamed nor removed); a symlinked one read-only at its target; a dangling symlinked one refuses the run (`protected_symlink`) | `sandbox_protected::a_protected_symlink_is_protected_at_its_target_and_a_dangling_one_refused` |
//! | protected **folders and files** that do **not exist** there yet (`.vscode/`, `.github/workflows`, `.husky/`, `.devcontainer/`, `.idea/`, `.gitlab/`, `.circleci/`, `.git/hooks`…; `.envrc`, `.mcp.json`, `conftest.py`, `.pre-commit-config.yaml`, `.gitlab-ci.yml`, `Jenkinsfile`, `rust-toolchain.toml`, `rust-toolchain`, `.npmrc`…; `.cargo/config.toml` where there is no `.cargo`: the tables of the private `placeholder` module) | refused up front: a stand-in folder (holding only a `.gitignore` that ignores everything), bound read-only, holds the name (its first missing component) while the command runs (`EISDIR`, `EROFS`, `EBUSY`); git does not see it (`git add -A`, `git stash -u` work), nor do the programs reading those names (rustup, cargo, npm work beside it); commands share it, and it is removed (if nothing else is in it) once unused for two seconds, when the computer is dropped, or when a command beneath the same root starts elsewhere; the ones a host that died left (killed during a command or within those two seconds) are removed by the next host's first confined run in that folder: each names its host in its `.gitignore` (pid, start time, PID namespace, boot), and only a folder holding nothing but that file, of a host no longer running, is removed (the private `stand_in_owner` module) | `sandbox_protected::missing_protected_entries_are_refused_up_front_and_leave_nothing`, `sandbox_stand_ins::stand_ins_left_by_a_host_killed_during_a_command_are_removed_by_the_next_host`, as root and as an unprivileged host: `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left` |
//! | protected **files whose readers fail on a folder** that do **not exist** there yet (`.yarnrc`, `.yarnrc.yml`, `.pnpmfile.cjs`, `bunfig.toml`, `mise.toml`, `.bazelrc`, `lefthook.yaml`, `.huskyrc`, the usual `.lintstagedrc*` and `lint-staged.config.*` names, `.env.sh`, `.nvimrc`, `.dir-locals.el`, `.cursor/mcp.json`, `.claude/settings.json`, `.travis.yml`…: the table of the private `placeholder` module, with what each makes run) | refused up front (by default, [`SandboxOptions::file_stand_ins`]): the name is an empty read-only regular file in the command (`cat` prints nothing, `stat` says regular and 0 bytes; an empty file bound read-only over a socket the runtime puts in the host's folder; a missing folder on the way, `.claude/`, gets a stand-in folder); a write fails (`EROFS`; an append `EACCES`, the mode being 0444), it cannot be removed, renamed, replaced or have its mode changed (`EBUSY`, `EROFS`); `ls -a` lists it, `cp -a .` and `tar c .` copy it as an empty file; git lists it neither in the command (`git add -A` leaves it: its directory entry says socket) nor in the host (a socket: `git status` stays clean while a command runs and after); a command working elsewhere beneath the same root sees no socket (an idle stand-in is removed first, one another running command uses is an empty file there too), and a socket already at such a name that is not this host's (another host's stand-in) is an empty file in the command too, and left; shared and removed like the stand-in folders, nothing left once the computer is dropped; the ones a host that died left are removed by the next host when it makes its first computer: each host lists its sockets (device, inode, path) in a registry beside its private temp dirs, locked while it lives, and a later host removes, from an unlocked one, only a socket, only the very one listed (same inode), only at a name of the table, reached from its root without following a symlink (the private `stand_in_registry` module). With the option off, the named fallback: made by the command, then moved to the quarantine after the run and reported (`protectedCreated`, a content line), the folder exactly as it is | `sandbox_stand_ins::by_default_missing_protected_files_are_empty_read_only_files_that_copy_and_git_skips`, `sandbox_protected::missing_protected_entries_are_refused_up_front_and_leave_nothing`, dead hosts: `sandbox_stand_ins::stand_ins_left_by_a_host_killed_during_a_command_are_removed_by_the_next_host`, `sandbox_user::a_private_temp_dir_left_by_a_host_that_died_is_removed_by_the_next_host`, `stand_in_registry::tests::only_the_recorded_sockets_at_stand_in_names_are_removed`; as root and as an unprivileged host (writes refused, `cat` and Python read an empty file, `cp -a`, `tar`, git in the command and in the host, nothing left): `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left`; the fallback: `sandbox_protected::with_file_stand_ins_off_a_protected_file_is_swept_and_reported_and_the_folder_copies` |
//! | a project's existing **`.cargo`** folder (not the home's) | read-only whole: neither `config.toml` nor `config` can be added (cargo reads either, so no stand-in can hold one next to the other); cargo builds beside it | `sandbox::cargo_builds_and_tests_offline_with_the_populated_cache`, `sandbox_protected::missing_protected_entries_are_refused_up_front_and_leave_nothing`, as root and as an unprivileged host: `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left` |
//! | the other protected entries that do not exist there yet (the other names of patterns: `*.code-workspace`, `.huskyrc.yaml`…; `.mvn/`, `gradle/wrapper`, `.config/husky` and the other folders no stand-in is made for; the files of the row above with [`SandboxOptions::file_stand_ins`] off), and every missing name under the fallback (no namespace: nothing to mount a stand-in with) | creatable, then moved into the quarantine folder when the command has ended (no process of it is left: PID namespace), never silently: listed in `protectedCreated` and in one content line; one reached through a symlink the command made is moved where it really is when that is in the workspace, never from outside it | `sandbox_protected::protected_entries_a_command_creates_in_a_git_workspace_are_moved_to_quarantine`, `sandbox_protected::the_landlock_fallback_sweeps_too`, `sandbox_new_repos::a_protected_name_behind_a_planted_symlink_is_taken_out_inside_and_never_from_outside` |
//! | a `*.pth` file outside a site directory (`site-packages`, `dist-packages`) | creatable and left: Python runs a `.pth` file's `import` lines only in its site directories, so one in a project folder runs nothing | same tests |
//! | **read**: the system (`/usr`, `/etc` but secrets), the workspace, the toolchain locations of the home (`~/.cargo/bin`, `~/.rustup`, `~/.pyenv`, `~/.nvm`, git's settings…: the table of the private `home` module) | yes | `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold` |
//! | **write** the toolchain caches (`~/.cargo/registry`, `~/.npm`, `~/.cache/pip`, `~/go/pkg/mod`…) | yes ([`SandboxOptions::toolchain_caches_writable`], default on) | same |
//! | **read** the rest of the home (`~/.wakatime.cfg`, kubeconfigs, other projects) | no (contents; the names of a folder on the way to a hidden one can be listed) | same |
//! | **read** secrets: the secret classes' fixed locations (`~/.ssh`, `~/.aws`, `/etc/shadow`…), secret files at a root's top and on the way to the working directory (`.env`, `*.tfstate`…) | no (masked: a file reads as an empty read-only regular file, so `git add -A` and `git commit` go on and commit it empty, as root and as an unprivileged host; a folder as an empty read-only tmpfs; under the fallback Landlock refuses the read, `EACCES`) | `sandbox::secret_locations_are_unreadable_and_the_rest_readable`, `sandbox_git::a_git_workspace_takes_new_files_at_its_root_and_git_stays_read_only`, `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left` |
//! | git's `http.*.extraheader` (a CI token) in a git config found, in the user's (`~/.gitconfig`, `~/.config/git/config`, `$GIT_CONFIG_GLOBAL`) or the system's (`/etc/gitconfig`), or in any file these reach by `include.path` / `includeIf.*.path` (any condition, ten levels) | withheld: the command sees each such file (at its real path) without those lines, readable where the file was (`~/.gitconfig` is a toolchain location), a hidden home's others unreadable (the private `git_token` module) | `sandbox_git::the_ci_token_in_a_git_extraheader_is_withheld`, `sandbox_git::a_ci_token_in_an_included_git_config_is_withheld`, `git_token::tests::tokens_in_the_home_config_and_in_included_files_are_found`, the home's as root and as an unprivileged host: `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left` |
//! | **environment**: the host's variables that look secret (the rules of the private `env` module: names with KEY, SECRET, TOKEN, PASSWORD, CREDENTIAL, AUTH…, a named list, credential-shaped values) | withheld (names in `sandbox.envWithheld`), also from `/proc/self/environ`; [`SandboxOptions::env_pass`] passes one through; the call's own variables are kept | `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold` |
//! | **other processes**: `/proc/PID/*` of processes outside the command, signals, `ptrace` | invisible (fresh `/proc` of its PID namespace), refused | `sandbox::no_capabilities_even_as_root_a_fresh_proc_a_minimal_dev_and_refused_calls` |
//! | **capabilities**, as root too | none: user namespace, empty bounding, ambient, effective and permitted sets, secure bits locked (`NOROOT`, `NO_SETUID_FIXUP`, `NO_CAP_AMBIENT_RAISE`, their locks, `KEEP_CAPS_LOCKED`), `no_new_privs`; every mount `nosuid`, and `nodev` but the fresh `/dev`, its `pts` and the device files bound there (the private `/tmp` too, with or without the overlay) | same test, `sandbox_guide_rows::as_root_the_secure_bits_are_locked_no_new_privs_is_set_and_no_capability_is_left`, `sandbox_guide_rows::every_mount_of_a_confined_command_is_nosuid_and_nodev_but_the_devices`, `sandbox_guide_rows::without_the_overlay_the_private_tmp_is_nosuid_and_nodev_too`, as an unprivileged host: `sandbox_guide_rows::as_an_unprivileged_host_no_capability_is_left_and_every_mount_follows_the_rule`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left` |
//! | **devices** | a fresh `/dev`: `null`, `zero`, `full`, `random`, `urandom`, `tty`, a private `pts` and `shm`; no disks, no `mem` | `sandbox::no_capabilities_even_as_root_a_fresh_proc_a_minimal_dev_and_refused_calls` |
//! | **refused calls** (seccomp; table with reasons in the `linux` module): mounts, `open_by_handle_at`, `name_to_handle_at`, `chattr` ioctls, `TIOCSTI`, `mknod`, new namespaces, keyrings, `bpf`, `perf_event_open`, `kexec`, modules, `reboot`, clock and host name changes; set-id mode bits (`fchmodat2` too, on every architecture); on x86_64 every call of the x32 ABI (`ENOSYS`); extended attributes answer "not supported" | refused | same test, `sandbox::ownership_xattrs_and_set_id_bits_are_refused_plain_modes_inside_work`, by numbers from `libc` rather than one architecture's: `sandbox_guide_rows::calls::every_refused_call_is_refused_on_any_architecture`; the compiled programs run on made-up calls (x32, other architectures): `sandbox::linux::bpf_tests` |
//! | **network**: new sockets of every family (Unix-domain too: daemons' sockets), `io_uring` | none unless `network: true` (`socketpair` works), or by name through the proxy (next row) | `sandbox::loopback_connections_are_refused_with_network_off_and_work_with_it_on`, `sandbox::unix_sockets_to_local_daemons_are_refused_with_network_off`, `daemons::a_confined_command_cannot_ask_a_tmux_server_to_run_a_command` |
//! | **network by name** (the confinement's [`tool_core::approval::Egress`]: `allow`, `deny`, `methods`) | only through the runtime's egress proxy, in a network namespace of the command's own (loopback only); TCP/IP sockets only, no Unix-domain sockets, no DNS; names on the allow-list and not denied, never an IP address, never a private or loopback address after resolution (unless [`EgressOptions::allow_addresses`]); a method limit refuses other methods and HTTPS tunnels; each refusal in `networkBlocked` (host, port, reason) and one content line; how it works: [`EgressOptions`] | `confinement::egress::an_allowed_name_is_reached_through_the_proxy_and_the_rest_refused_and_reported`, `confinement::egress::loopback_behind_an_allowed_name_is_refused_without_the_explicit_setting`, `confinement::egress::a_method_limit_lets_get_through_and_refuses_post_and_tunnels`, `confinement::egress::a_tunnel_whose_tls_asks_for_another_site_is_closed_and_reported`, as root and as an unprivileged host: `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left` |
//! | **brokered secrets** ([`CredentialBinding`]) | the command sees a dummy of the same shape; the proxy puts the real value in the request target and headers of requests to the bound hosts only (HTTPS to them intercepted with a CA made for the command and trusted only through its environment; HTTPS elsewhere tunnelled untouched) | `confinement::egress::the_brokered_token_reaches_only_its_host_and_the_command_sees_a_dummy`, `confinement::egress::over_https_the_bound_host_gets_the_token_through_the_commands_own_ca` |
//! | **keep running**: background children, `setsid`, `nohup`, double forks | end with the command (PID 1 of its namespace exits when the shell does; the kernel kills the rest) | `sandbox_protected::a_killed_command_is_swept_and_nothing_it_started_outlives_it`, `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold` |
//! | **limits** ([`Limits`]): processes, memory of the whole run, CPU time, file size, open files | cgroups of the command (processes, memory) where the host can make them, else the PID namespace's own `pid_max` for processes (Linux 6.14: `processLimit: "pid_namespace"`, root hosts too) beside `RLIMIT_NPROC`, and `RLIMIT_DATA` per process for memory (`memoryLimit: "rlimit"`); a hit is named in the content (`memory limit`, `cpu time limit`, `file size limit`, `process limit`) and typed in the state (`limitHit`: [`LimitHit`]) | `sandbox_tmp::a_run_over_its_memory_limit_is_killed_and_named_and_one_under_it_ends_normally`, `sandbox_tmp::a_run_over_its_cpu_time_is_stopped_and_named`; file size, processes, CPU time, the private `/tmp`, how memory is limited and a Python allocation past the memory limit (cgroup as root, `RLIMIT_DATA` as the unprivileged host), as root and as an unprivileged host: `sandbox_user::as_root_the_environment_and_home_are_scrubbed_and_limits_hold`, `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left`; a root host without cgroups: `sandbox_process_limit::a_root_host_without_cgroups_is_held_to_its_process_limit_by_the_pid_namespace`; open files (`EMFILE` past the limit): `sandbox_guide_rows::the_open_files_limit_is_the_configured_one_and_an_open_past_it_fails_with_emfile` |
//! | **fill the private `/tmp`** ([`Limits::tmp_bytes`], default 1 GiB, shared by the computer's commands) | measured every 100 ms (less often for a large one) while a command runs and when it ends; past the limit the command is killed and named (`tmp size limit`, `tmpLimitHit`); a command under it runs to its end | `sandbox_tmp::a_command_filling_the_private_tmp_past_its_limit_is_killed_and_named`, `sandbox_tmp::a_command_staying_under_the_private_tmp_limit_runs_to_its_end` |
//! | **temp dir** | nothing of a computer is left after it is dropped (as an unprivileged host too); what a host that died left is removed by the next | `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left`, `sandbox_user::a_private_temp_dir_left_by_a_host_that_died_is_removed_by_the_next_host` |
//!
//! `read_only` is the same with no writable root (the private `/tmp`'s
//! upper layer read-only too). `full_access` confines nothing.
//!
//! - `/tmp` is private: an overlay whose lower layer is the host's `/tmp`
//!   (readable, never changed) and whose upper layer is the computer's
//!   private temp dir (later commands of the computer see it;
//!   `TMPDIR=/tmp`, `hostTmpReadable: true`); where the kernel has no such
//!   overlay, the private temp dir replaces `/tmp` and only the working
//!   directory under `/tmp` is bound back, read-only.
//! - The confinement is applied in the child between `fork` and `exec`
//!   (three processes, see the private `syscalls` module), never to the
//!   host process.
//! - Refusals are the command's own errors (`EACCES`, `EROFS`, `EPERM`,
//!   `EXDEV`); the content adds a hint naming what the sandbox allows.
//! - The fallback (`landlock+seccomp`, no namespaces) differs: the top of a
//!   root holding protected entries is closed to new entries (Landlock
//!   cannot say "writable except that subtree"); plain permission bits and
//!   times outside the roots can change; no private `/tmp`, `/proc` or
//!   `/dev`; no PID namespace, so a `setsid` child survives the command;
//!   capabilities are still dropped.
//!
//! # File operations
//!
//! The same policy confines [`LocalComputer`](crate::LocalComputer)'s file
//! operations (`readFile`, `writeFile`, `editFile`, `moveFiles`,
//! `renameFile`, `listFiles`, `globFiles`, `searchFiles`, `grepContent`)
//! when the call runs confined, checked in-process on the path actually
//! reached: writes only in the writable roots, protected entries never
//! written or created (at any depth, whether or not they exist; in a git
//! directory only its code parts), secrets never read; searches skip secret
//! entries and report how many (`secretsSkipped`). No file tool can be
//! raced by a concurrent command that swaps a folder for a symlink: writes,
//! moves and renames walk from a handle of their root without following
//! symlinks, reads judge the file they opened, `listFiles` reads the
//! directory it judged from a handle, and the searches confirm every entry
//! their walk finds from a handle of the start directory (no symlink
//! followed) and open the files they search from there, so a race can drop
//! an entry from one result, never add one from elsewhere
//! (`confined_files::file_tools_cannot_be_raced_by_a_confined_command_flipping_a_symlink`:
//! all six tools, 300 rounds, a symlink swapped and a folder flipped into a
//! symlink to a secret folder; the same as an unprivileged host in
//! `sandbox_user::as_an_unprivileged_user_the_same_wall_holds_and_no_temp_dir_is_left`;
//! `confined_files::moves_renames_and_writes_cannot_be_raced_by_a_flipped_symlink`).
//! A refusal fails with `confinement_refused` and says what the
//! confinement allows. The call's [`tool_core::Confinement`] (a gated
//! invoker puts the decision's in the context) replaces the configured
//! sandbox for that call, for commands and files alike.
//!
//! # What is not guaranteed
//!
//! - **Deeper entries.** Protected and secret entries deeper than a root's
//!   top and the way to the working directory are not found (no walk: the
//!   cost of a command does not grow with the workspace): a nested
//!   `app/.env` is readable, a nested `app/.envrc` writable and not moved
//!   by a command working at the root. File operations check every path.
//!   Nested repositories are looked for two folders deep and through
//!   `.gitmodules` only: a repository deeper than that and not a
//!   submodule (`a/b/c/.git`), or one inside `node_modules` or `target`,
//!   is not protected, and one a command creates there keeps what the
//!   command wrote into its config. That reaches the user only when the
//!   user runs git in that repository (git in the outer repository does
//!   not read an untracked nested repository's config).
//! - **Missing protected entries off the stand-in tables** (the other
//!   names of a pattern, such as `team.code-workspace`; the few folders
//!   left out, see the `placeholder` module; the files of the empty-file
//!   table when [`SandboxOptions::file_stand_ins`] is off) are creatable during the run
//!   and moved out only after it (a name without an inode has nothing for
//!   a mount or a Landlock rule to attach to); while the command runs, a
//!   program watching the tree may see them. Under the Landlock fallback
//!   (no namespace) no stand-in is made: every missing protected name is
//!   swept, not refused.
//! - **The stand-ins show** in the host's workspace while a command runs
//!   and for two seconds after (folders, sockets), and in the command
//!   (`ls -a` lists them; the empty-file ones as empty read-only regular
//!   files, which `cp -a` and `tar` copy as such): git does not list them
//!   (a folder holds a `.gitignore` ignoring everything; git skips
//!   sockets, and takes the type from the directory entry, which says
//!   socket in the command too; on a file system whose directory entries
//!   carry no type git would look further and list an empty file; `git add
//!   NAME` by name adds it; `git clean -x` in the command fails on a
//!   folder), but the host cannot create a file of that name meanwhile
//!   (`EISDIR`, `EEXIST`; a program in the host reading such a name gets
//!   `ENXIO`); a stand-in for `.github` (no `.github` yet) keeps the
//!   command from creating anything beneath it. Programs that list a
//!   folder and trust the entry's type (`find -type f`, Python's
//!   `os.scandir`) see a socket where a command's `stat` says file.
//!   Another host's stand-ins (a second host process working in the same
//!   folder) are empty files in this host's commands only in the places
//!   they examine; elsewhere they are sockets, which `cp -a` cannot copy.
//! - **A dead host's socket stand-ins** are removed by the next host from
//!   the list in the dead host's registry; one made in the moment between
//!   the socket's creation and the registry's update (microseconds) is
//!   not listed and is left. When the
//!   next host removes them while a third, live host of the same user has
//!   a command in that folder, that command's read-only mount on the name
//!   goes with it (the name is then creatable in it until it ends).
//! - **The process limit** is a pids cgroup of the command where the host
//!   can make one (state `processLimit: "cgroup"`); elsewhere, on Linux
//!   6.14 and later, the `pid_max` of the run's own PID namespace
//!   (`"pid_namespace"`, root hosts too; the private `pid_limit` module):
//!   the kernel's floor makes a limit under 300 bind at 300, and once the
//!   run has used its numbers up the lowest 299 are not reused, so a
//!   long run may keep fewer, never more
//!   (`sandbox_process_limit::a_root_host_without_cgroups_is_held_to_its_process_limit_by_the_pid_namespace`);
//!   on an older kernel it is `RLIMIT_NPROC` (`"rlimit"`), which the
//!   kernel does not apply to uid 0 of the initial user namespace: there a
//!   root host without cgroup access has no process limit (the PID
//!   namespace still ends every process with the command). The memory of the whole run is likewise a memory cgroup
//!   where the host can make one (`memoryLimit: "cgroup"`), else
//!   `RLIMIT_DATA` of each process (`"rlimit"`): one process cannot take
//!   more than the limit, but several together can (up to the process
//!   limit times it), and an allocation fails instead of the kernel
//!   killing; sanitizer builds (ASan, TSan), which map terabytes of
//!   writable shadow memory, do not start under it (see the private
//!   `memory_signs` module for why `RLIMIT_DATA` and not `RLIMIT_AS`).
//!   CPU time is per process (`RLIMIT_CPU`).
//! - **The private `/tmp`'s size** is measured, not enforced by a mount
//!   (it is a host folder shared by the computer's commands): a command
//!   can pass the limit by what it writes between two measures (100 ms;
//!   each file stays under the file-size limit) before it is killed.
//! - **Network by name** needs the namespaces (without them, and under
//!   `read_only`, which gets none, a confinement with an egress list fails
//!   with `sandbox_unavailable`:
//!   `confinement::egress::egress_under_read_only_is_refused_with_a_named_reason_and_runs_nothing`) and clients
//!   that honour `HTTP_PROXY`/`HTTPS_PROXY` (others fail to connect: there
//!   is no other route). Plain HTTP requests and HTTPS `CONNECT` tunnels
//!   only: no UDP, no other protocol. A tunnel must start with a TLS
//!   ClientHello naming the host its `CONNECT` was checked for (another
//!   name, none, or plain bytes close it and are reported), so a site
//!   that shares an allowed name's address (a CDN) cannot be picked by
//!   its server name; after that a tunnel's bytes are not inspected. Only
//!   HTTPS to a host a secret is bound to is intercepted, and a client
//!   that ignores the trust-store variables fails there. The HTTP `Host`
//!   inside a tunnel's TLS is not seen, so a CDN that still routes by it
//!   (domain fronting) is not stopped, and a client using Encrypted
//!   Client Hello shows only its outer name, which fails the check; where
//!   the proxy does see requests (plain HTTP, intercepted HTTPS) it sets
//!   `Host` to the name it checked.
//! - **Listing**: the names inside a folder on the way to a hidden or
//!   secret one (`~`, `/`) can be listed; contents cannot be read.
//! - A host that ends without dropping its computer (killed, or ended by a
//!   signal it does not handle) leaves the computer's private temp dir
//!   behind until the next computer of the same user is made: each
//!   private temp dir holds a lock its computer keeps, and a new computer
//!   removes those whose lock nobody holds.
//! - 32-bit (`i386`) programs are killed by the seccomp filter's
//!   architecture check; x32 programs' calls answer `ENOSYS`.
//!
//! # Mechanisms and platforms
//!
//! - Linux: Landlock for files (the ABI is negotiated with the kernel at
//!   each spawn), seccomp for calls and the network, user + mount + PID
//!   namespaces for mounts, processes and capabilities. The ruleset and
//!   the filters are built in the host before the fork; the children only
//!   install them (see the private `syscalls` module, the crate's only
//!   `unsafe`). A pre-exec hook rather than a helper binary keeps the
//!   crate self-contained.
//! - A kernel without Landlock (or without seccomp): a confining policy
//!   fails with `sandbox_unavailable`, unless the host set
//!   [`SandboxFallback::Unconfined`]; then the command runs unconfined and
//!   its state says `mechanism: "unconfined"` with the reason. Never a
//!   silent unconfined run.
//! - Other platforms: the types compile; no mechanism is implemented, so a
//!   confining policy behaves as on a kernel without Landlock.
//!
//! # Example
//!
//! ```
//! use tool_core::ToolContext;
//! use tool_runtime::{ComputerRuntime, LocalComputer, LocalConfig, RunCommandParams, SandboxPolicy};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let dir = tempfile::tempdir().unwrap();
//! let computer = LocalComputer::new(LocalConfig::default().with_sandbox(SandboxPolicy::workspace_write()));
//! let ctx = ToolContext::new().with_cwd(dir.path());
//! let out = computer.run_command(RunCommandParams::new("echo hi > inside.txt"), &ctx).await;
//! let state = out.state.unwrap();
//! if out.success {
//!     // Confined (Linux with Landlock), or refused with `sandbox_unavailable` elsewhere.
//!     assert_eq!(state["sandbox"]["policy"], "workspace_write");
//! }
//! # });
//! ```

#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(target_os = "linux")]
mod child;
mod classes;
mod egress;
mod entries;
pub(crate) mod env;
mod git_token;
mod home;
mod memory_signs;
#[cfg(target_os = "linux")]
mod namespace;
mod nested;
mod new_repo;
#[cfg(target_os = "linux")]
mod pid_limit;
pub(crate) use classes::Classes;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod placeholder;
mod plan;
mod policy;
mod quarantine;
#[cfg(target_os = "linux")]
mod stand_in_owner;
#[cfg(target_os = "linux")]
mod stand_in_registry;
#[cfg(unix)]
pub(crate) mod tmp_limit;
pub(crate) use egress::Log as EgressLog;
pub use egress::{BlockedConnection, CredentialBinding, DEFAULT_PROXY_PORT, EgressOptions};
pub use quarantine::ProtectedCreated;
pub(crate) use quarantine::Watch;

/// Which mount namespace a command gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Namespaces {
    /// None: Landlock and seccomp only.
    Off,
    /// A private mount namespace with the private temp dir over `/tmp`.
    PrivateTmp,
    /// A private mount namespace with an overlay over `/tmp`: the host's
    /// `/tmp` read-only beneath, the private temp dir as the upper layer.
    TmpOverlay,
}
#[cfg(target_os = "linux")]
mod syscalls;

use std::path::Path;

pub use policy::{
    AppliedSandbox, DEFAULT_SCAN_LIMIT, KernelSupport, LimitHit, Limits, ProbeFailure,
    SandboxFallback, SandboxOptions, SandboxPolicy,
};

use crate::error::{Error, Result};

/// What the running kernel offers for confinement.
///
/// Linux: the Landlock ABI version (`landlock_create_ruleset` with the
/// version flag) and whether seccomp filtering is built in
/// (`/proc/self/status` lists `Seccomp_filters`). Elsewhere: always a
/// failure.
pub fn probe_kernel() -> Result<KernelSupport, ProbeFailure> {
    #[cfg(target_os = "linux")]
    {
        let abi = syscalls::landlock_abi().map_err(|e| match e.raw_os_error() {
            Some(libc::EOPNOTSUPP) => {
                "Landlock is built into this kernel but not enabled (add `landlock` to the `lsm=` boot parameter)".to_owned()
            }
            Some(libc::ENOSYS) => "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK is needed)".to_owned(),
            _ => format!("the Landlock probe failed: {e}"),
        })?;
        let seccomp = std::fs::read_to_string("/proc/self/status")
            .map(|s| s.lines().any(|l| l.starts_with("Seccomp_filters:")))
            .unwrap_or(false);
        Ok(KernelSupport {
            landlock_abi: u8::try_from(abi.clamp(1, 255)).unwrap_or(u8::MAX),
            seccomp,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(format!(
            "no sandbox mechanism is implemented on {}",
            std::env::consts::OS
        ))
    }
}

/// Whether this machine can enforce a confining [`SandboxPolicy`] for
/// commands, as the gate needs to know
/// ([`tool_core::ConfinementSupport`]): `Available` with the mechanism's
/// name when the probe of `options` finds Landlock and seccomp, else
/// `Unavailable` with the reason. File operations are confined in-process
/// and need no mechanism, so a host whose commands cannot be confined may
/// still run confined file operations.
///
/// ```
/// let support = tool_runtime::confinement_support(&tool_runtime::SandboxOptions::default());
/// if let tool_core::ConfinementSupport::Available { mechanism } = &support {
///     assert!(mechanism.contains("landlock"));
/// }
/// ```
pub fn confinement_support(options: &SandboxOptions) -> tool_core::ConfinementSupport {
    match (options.probe)() {
        #[cfg(target_os = "linux")]
        Ok(support) if support.seccomp => tool_core::ConfinementSupport::Available {
            mechanism: linux::MECHANISM.to_owned(),
        },
        Ok(_) => tool_core::ConfinementSupport::Unavailable {
            reason: "seccomp filters are not available in this kernel".to_owned(),
        },
        Err(reason) => tool_core::ConfinementSupport::Unavailable { reason },
    }
}

/// What must live as long as a confined command runs (its cgroups, its
/// egress proxy), dropped when it has ended.
#[derive(Debug, Default)]
pub(crate) struct Held {
    #[cfg(target_os = "linux")]
    groups: cgroup::RunGroups,
    #[cfg(all(target_os = "linux", feature = "egress"))]
    _proxy: Option<egress::Proxy>,
    /// The empty read-only folders standing in for missing protected names.
    #[cfg(target_os = "linux")]
    placeholders: placeholder::Claimed,
    /// The egress proxy's refusals.
    egress_log: Option<std::sync::Arc<egress::Log>>,
    /// The variables the command gets for egress (the proxy, dummies).
    egress_env: Vec<(String, String)>,
    /// The trust store with the interception CA, removed when dropped.
    #[cfg(all(target_os = "linux", feature = "egress"))]
    _ca_bundle: Option<tempfile::NamedTempFile>,
}

impl Held {
    /// Lets go of the stand-ins for missing protected folders (removed
    /// once no command has used them for a while, see the private
    /// `placeholder` module), before the command is reported ended.
    pub(crate) fn release_placeholders(&mut self) {
        #[cfg(target_os = "linux")]
        drop(std::mem::take(&mut self.placeholders));
    }

    /// Whether the kernel killed a process of the command for going over
    /// its memory limit (read once the command has ended).
    pub(crate) fn memory_exceeded(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.groups.memory_exceeded();
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// The egress proxy's refusals, when the command has a proxy.
    pub(crate) fn egress_log(&self) -> Option<std::sync::Arc<egress::Log>> {
        self.egress_log.clone()
    }

    /// The variables the command gets for egress by name: the proxy's
    /// address under every name clients read, the brokered dummies.
    pub(crate) fn egress_env(&self) -> &[(String, String)] {
        &self.egress_env
    }
}

/// A command's sandbox, ready to install on its `Command`.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// What the command runs under, for its state.
    pub(crate) applied: AppliedSandbox,
    /// The protected entries before it ran, for the sweeps after it.
    watch: Option<Watch>,
    /// What must outlive the command's start.
    held: Held,
    #[cfg(target_os = "linux")]
    confinement: Option<child::Confinement>,
}

impl Prepared {
    /// Makes `cmd`'s child confine itself before `exec` (no-op when
    /// unconfined); returns the report and, for a confined command with
    /// writable roots, the watch its sweeps use.
    pub(crate) fn install(
        self,
        cmd: &mut tokio::process::Command,
    ) -> (AppliedSandbox, Option<Watch>, Held) {
        #[cfg(target_os = "linux")]
        if let Some(confinement) = self.confinement {
            syscalls::confine_child(cmd, confinement);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = cmd;
        (self.applied, self.watch, self.held)
    }
}

/// Gives the overlay's work directories beneath `dir` (`work`, `work/work`,
/// left without permissions by the kernel) their owner's rights back, so
/// that `dir` can be removed by an unprivileged host.
pub(crate) fn make_removable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    for sub in ["work", "work/work", "work/index"] {
        let path = dir.join(sub);
        if path.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700));
        }
    }
}

/// Starts the egress proxy of one command under `allowed`: the channel
/// its child hands the listener over, the proxy serving it (kept in
/// `held`), the command's variables; returns the child's side and the
/// names of the brokered secrets.
#[cfg(all(target_os = "linux", feature = "egress"))]
fn start_egress(
    allowed: &tool_core::approval::Egress,
    options: &SandboxOptions,
    held: &mut Held,
    tmp_dir: Option<std::path::PathBuf>,
) -> Result<(child::EgressChild, Vec<String>)> {
    let setup = |message: String| Error::SandboxSetup {
        path: "egress".into(),
        message,
    };
    let handle = tokio::runtime::Handle::try_current()
        .map_err(|e| setup(format!("the egress proxy needs a tokio runtime: {e}")))?;
    let broker = egress::Broker::new(&options.egress.credentials);
    let rules = egress::Rules::new(allowed, &options.egress, broker.clone())?;
    let trust = match (rules.ca_pem(), tmp_dir) {
        (Some(ca), Some(dir)) => Some(egress::trust_store(&ca, &dir).map_err(setup)?),
        (Some(_), None) => {
            return Err(setup(
                "the credential broker needs the command's private /tmp for its trust store"
                    .to_owned(),
            ));
        }
        (None, _) => None,
    };
    let (host_end, child_end) = std::os::unix::net::UnixStream::pair()
        .map_err(|e| setup(format!("cannot make the proxy's channel: {e}")))?;
    let log = std::sync::Arc::new(egress::Log::default());
    held._proxy = Some(egress::Proxy::start(
        &handle,
        host_end.into(),
        rules,
        std::sync::Arc::clone(&log),
    ));
    held.egress_log = Some(log);
    let port = options.egress.port;
    let address = format!("http://127.0.0.1:{port}");
    held.egress_env = [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ]
    .into_iter()
    .map(|name| (name.to_owned(), address.clone()))
    // Node's own fetch follows the variables only when told to.
    .chain([("NODE_USE_ENV_PROXY".to_owned(), "1".to_owned())])
    .chain(broker.env())
    .collect();
    if let Some((file, inside)) = trust {
        held.egress_env.extend(
            egress::TRUST_STORE_VARIABLES
                .iter()
                .map(|name| ((*name).to_owned(), inside.clone())),
        );
        held._ca_bundle = Some(file);
    }
    Ok((
        child::EgressChild {
            channel: child_end.into(),
            port,
        },
        broker.names(),
    ))
}

/// Removes the stand-ins for missing protected folders that no command
/// uses now (a computer being dropped leaves none behind).
pub(crate) fn remove_unused_placeholders() {
    #[cfg(target_os = "linux")]
    placeholder::remove_unused();
}

/// The prefix of the folders a host keeps in the system temp dir (private
/// temp dirs, the registry of its socket stand-ins), each holding a
/// [`HOST_LOCK`] the host keeps locked while it lives.
pub(crate) const HOST_DIR_PREFIX: &str = "tool-sandbox-";
/// The lock file of each such folder.
pub(crate) const HOST_LOCK: &str = ".host.lock";

/// Before the folder `dir` of a host that is gone (its [`HOST_LOCK`] is
/// free) is removed: removes the socket stand-ins its registry lists, if
/// it is one (the private `stand_in_registry` module).
pub(crate) fn remove_dead_hosts_file_stand_ins(dir: &Path) {
    #[cfg(target_os = "linux")]
    {
        let removed = placeholder::remove_dead_hosts_sockets(dir);
        if removed > 0 {
            tracing::debug!(removed, "a dead host's socket stand-ins removed");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = dir;
}

/// The placeholder folders of a `workspace_write` command: in the places
/// examined of the workspace and the host's writable roots (not the
/// shared or the computer's private temp dir: not workspaces).
#[cfg(target_os = "linux")]
fn claim_placeholders(
    workspace: &Path,
    writable_roots: &[std::path::PathBuf],
    cwd: &Path,
    private_tmp: Option<&Path>,
    options: &SandboxOptions,
    home: Option<&Path>,
) -> Result<placeholder::Claimed> {
    let temps: Vec<std::path::PathBuf> = [Some(std::env::temp_dir().as_path()), private_tmp]
        .into_iter()
        .flatten()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let roots: Vec<std::path::PathBuf> = std::iter::once(workspace)
        .chain(writable_roots.iter().map(std::path::PathBuf::as_path))
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .filter(|r| !temps.contains(r))
        .collect();
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let classes = Classes::new(options, home)?;
    Ok(placeholder::claim(
        &roots,
        &cwd,
        &classes,
        options.file_stand_ins,
    ))
}

/// Builds the sandbox of one command whose workspace is `workspace`.
pub(crate) fn prepare(
    policy: &SandboxPolicy,
    options: &SandboxOptions,
    workspace: &Path,
    cwd: &Path,
    private_tmp: Option<&Path>,
) -> Result<Prepared> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    #[cfg(target_os = "linux")]
    let namespaces = if options.namespaces
        && private_tmp.is_some()
        && policy.is_confined()
        && namespace::available().is_ok()
    {
        if options.tmp_overlay && namespace::overlay_available().is_ok() {
            Namespaces::TmpOverlay
        } else {
            Namespaces::PrivateTmp
        }
    } else {
        Namespaces::Off
    };
    #[cfg(not(target_os = "linux"))]
    let namespaces = {
        let _ = (private_tmp, cwd);
        Namespaces::Off
    };
    // Missing protected folders get a read-only stand-in for the command's
    // run (namespaces only: the mounts are what makes them read-only).
    #[cfg(target_os = "linux")]
    let placeholders = match policy {
        SandboxPolicy::WorkspaceWrite { writable_roots, .. } if namespaces != Namespaces::Off => {
            claim_placeholders(
                workspace,
                writable_roots,
                cwd,
                private_tmp,
                options,
                home.as_deref(),
            )?
        }
        _ => placeholder::Claimed::default(),
    };
    #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
    let Some(mut plan) = plan::plan(
        policy,
        options,
        workspace,
        home.as_deref(),
        plan::TempDirs {
            shared: &std::env::temp_dir(),
            private: private_tmp,
        },
        cwd,
        namespaces != Namespaces::Off,
    )?
    else {
        return Ok(Prepared {
            applied: AppliedSandbox::full_access(),
            watch: None,
            held: Held::default(),
            #[cfg(target_os = "linux")]
            confinement: None,
        });
    };
    #[cfg(target_os = "linux")]
    {
        let mut known: std::collections::HashSet<std::path::PathBuf> =
            plan.read_only.iter().cloned().collect();
        for path in placeholders.paths().iter().chain(placeholders.files()) {
            if known.insert(path.clone()) {
                plan.read_only.push(path.clone());
            }
        }
    }
    #[cfg(target_os = "linux")]
    {
        plan.empty_files = placeholders.files().to_vec();
    }
    let mut applied = AppliedSandbox {
        policy: policy.name().to_owned(),
        mechanism: String::new(),
        landlock_abi: None,
        network: plan.network,
        writable_roots: plan.writable_roots.clone(),
        read_only_paths: plan.read_only.clone(),
        unconfined_reason: None,
        secrets_hidden: plan.secrets_in_roots.len(),
        scan_truncated: plan.scan_truncated,
        private_tmp: false,
        host_tmp_readable: false,
        limits: None,
        env_withheld: Vec::new(),
        home_hidden: plan.home_hidden,
        process_limit: None,
        egress: policy.egress().cloned(),
        credentials_brokered: Vec::new(),
        tmp_limit_hit: false,
        memory_limit: None,
        memory_limit_hit: false,
        limit_hit: None,
    };
    let unavailable = |applied: AppliedSandbox, reason: String| -> Result<Prepared> {
        match options.fallback {
            SandboxFallback::Refuse => Err(Error::SandboxUnavailable {
                policy: policy.name().to_owned(),
                reason,
            }),
            SandboxFallback::Unconfined => Ok(Prepared {
                applied: AppliedSandbox {
                    mechanism: "unconfined".to_owned(),
                    network: true,
                    egress: None,
                    unconfined_reason: Some(reason),
                    ..applied
                },
                watch: None,
                held: Held::default(),
                #[cfg(target_os = "linux")]
                confinement: None,
            }),
        }
    };
    let support = match (options.probe)() {
        Ok(support) => support,
        Err(reason) => return unavailable(applied, reason),
    };
    #[cfg(target_os = "linux")]
    {
        if !support.seccomp {
            return unavailable(
                applied,
                "seccomp filters are not available in this kernel".to_owned(),
            );
        }
        // The overlay's rule covers all of /tmp: not when a secret that
        // only Landlock keeps out lies there.
        let overlay = namespaces == Namespaces::TmpOverlay
            && !plan
                .excluded
                .iter()
                .any(|p| p.starts_with(std::path::Path::new("/tmp")));
        let mounts = if namespaces != Namespaces::Off {
            Some(namespace::mounts(&plan, private_tmp, cwd, overlay)?)
        } else {
            None
        };
        let overlay = mounts.as_ref().is_some_and(|m| m.tmp_overlay.is_some());
        if let Some(mounts) = &mounts {
            let readable: Vec<_> = plan.read.iter().chain(&plan.write).cloned().collect();
            let copies =
                git_token::readable_copies((&readable, &plan.excluded), &mounts.replacements);
            plan.read.extend(copies);
        }
        let mut held = Held::default();
        let egress_child = match policy.egress() {
            None => None,
            Some(_) if namespaces == Namespaces::Off => {
                let reason = if matches!(policy, SandboxPolicy::ReadOnly { .. }) {
                    "egress by name needs the command's own namespaces, which `read_only` commands do not get: use `workspace_write`"
                } else {
                    "egress by name needs a network namespace (user namespaces), which this machine does not give"
                };
                return unavailable(applied, reason.to_owned());
            }
            Some(_) if namespace::network_available().is_err() => {
                let reason = namespace::network_available().err().unwrap_or_default();
                return unavailable(applied, reason);
            }
            #[cfg(feature = "egress")]
            Some(allowed) => {
                // Where the command's trust store goes: a file its /tmp shows.
                let tmp_dir = if overlay {
                    Some(std::path::PathBuf::from("/tmp"))
                } else {
                    private_tmp.map(Path::to_path_buf)
                };
                let (child, brokered) = start_egress(allowed, options, &mut held, tmp_dir)?;
                applied.credentials_brokered = brokered;
                Some(child)
            }
            #[cfg(not(feature = "egress"))]
            Some(_) => {
                return unavailable(
                    applied,
                    "tool-runtime was built without its `egress` feature".to_owned(),
                );
            }
        };
        let mut confinement = linux::build(&plan, support, mounts, &options.limits, egress_child)?;
        applied.limits = Some(options.limits);
        let groups = cgroup::make(options.limits.processes, options.limits.run_memory_bytes);
        confinement.cgroup_joins = groups.joins();
        // Without a pids cgroup, the run's PID namespace bounds it where
        // the kernel lets the namespace have its own `pid_max`, root hosts
        // too (the `pid_limit` module); `RLIMIT_NPROC` stays beside it.
        let by_namespace = match (options.limits.processes, confinement.mounts.as_mut()) {
            (Some(processes), Some(mounts))
                if !groups.limits_processes() && pid_limit::supported() =>
            {
                mounts.pid_max = Some(pid_limit::pid_max_text(processes));
                true
            }
            _ => false,
        };
        applied.process_limit = options.limits.processes.map(|_| {
            if groups.limits_processes() {
                "cgroup"
            } else if by_namespace {
                "pid_namespace"
            } else {
                "rlimit"
            }
            .to_owned()
        });
        // Without a memory cgroup, the run's memory is limited per process
        // (`RLIMIT_DATA`: what a process makes writable, not what it only
        // reserves; see the `memory_signs` module).
        applied.memory_limit = options.limits.run_memory_bytes.map(|bytes| {
            if groups.limits_memory() {
                "cgroup"
            } else {
                confinement.limits.push((libc::RLIMIT_DATA, bytes, bytes));
                "rlimit"
            }
            .to_owned()
        });
        applied.mechanism = if namespaces != Namespaces::Off {
            namespace::MECHANISM.to_owned()
        } else {
            linux::MECHANISM.to_owned()
        };
        applied.private_tmp = namespaces != Namespaces::Off;
        applied.host_tmp_readable = overlay;
        applied.landlock_abi = Some(support.landlock_abi);
        // The shared and the private temp dirs are not the workspace: what
        // appears there is not swept.
        let temps: Vec<std::path::PathBuf> = [
            Some(std::env::temp_dir()),
            private_tmp.map(Path::to_path_buf),
        ]
        .into_iter()
        .flatten()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
        let roots: Vec<std::path::PathBuf> = plan
            .writable_roots
            .iter()
            .filter(|r| !temps.contains(r))
            // Only the roots whose entries were examined (not the home's
            // toolchain caches).
            .filter(|r| plan.examined.iter().any(|d| d.starts_with(r)))
            .cloned()
            .collect();
        let classes = Classes::new(options, home.as_deref())?;
        let watch = (!roots.is_empty()).then(|| {
            Watch::new(
                roots,
                plan.examined.clone(),
                plan.git_dirs.clone(),
                classes,
                options.scan_limit,
            )
        });
        held.groups = groups;
        held.placeholders = placeholders;
        Ok(Prepared {
            applied,
            watch,
            held,
            confinement: Some(confinement),
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = support;
        applied.mechanism = String::new();
        unavailable(
            applied,
            format!(
                "no sandbox mechanism is implemented on {}",
                std::env::consts::OS
            ),
        )
    }
}
