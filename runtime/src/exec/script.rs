//! Turning a plan [`Run`] into the bash script a backend executes in the run's fresh
//! sandbox, the files uploaded into it (patches, hidden tests: never baked into an image),
//! and the files read back.
//!
//! # The contract between this script and every backend
//!
//! - **Who runs it.** The backend runs the script with `bash -c` **as root inside the run's
//!   own sandbox** (Docker: a fresh container; local: root in bubblewrap's namespaces), with
//!   `$TASKC_ROOT` the path of the sandbox's `/` as the script sees it (`""` in Docker and
//!   wherever the run's root is bound at `/`). Every absolute path in the script is
//!   prefixed with `"$TASKC_ROOT"`.
//! - **Uploads** (patches, hidden tests) are written by the backend under
//!   `$TASKC_ROOT`[`BLOB_DIR`] before the script starts.
//! - **The log.** The script's stdout and stderr are the run's log, exactly as the backend
//!   receives them from the process (never a file the tests could rewrite); the backend
//!   caps them at [`crate::backend::LOG_CAP`] and stops the run beyond (`output-too-large`).
//!   The harness writes nothing of its own there: its messages, and the records of the test
//!   command (exit code, duration, whether it reached its limit), go to
//!   `$TASKC_ROOT`[`HARNESS_DIR`] (root only, mode 0700), read back after the run.
//! - **Phases, in order** (each a function below; a phase that has nothing to do writes
//!   nothing): apply patches → restore the test surface → apply hidden tests → inject
//!   canaries → delete blobs → drop privileges → run.
//! - **Least privilege.** Whenever the script runs as root, the test command runs as
//!   uid/gid [`TEST_UID`] (`taskc-test`) with no capabilities, through
//!   `setpriv --reuid --regid --clear-groups --inh-caps=-all --bounding-set=-all
//!   --no-new-privs`: its own repository is handed to it, `HOME` is a fresh folder of its
//!   own, it can read nothing under `/taskc` (the blobs are deleted before it starts, and the
//!   folder is root-only). The harness keeps its own `PATH` of system folders, so nothing the
//!   tests write is ever run as root. The one exception is a backend without a sandbox of
//!   its own, which says so with [`UNSANDBOXED_VAR`]`=1` (the local backend without
//!   bubblewrap: its run folder is not reachable by another user): the command then runs as
//!   the script does, and only trusted predictions run there (`docs/security.md`, defence 9).
//! - **Time.** The test command is killed with SIGKILL (its process group) at its timeout;
//!   every process the test user left is killed when it ends; the harness records by the
//!   clock whether it reached its limit, and a run that reached it is a `timeout` whatever
//!   its exit code. The backend adds a hard wall ([`backend_timeout`]) at which it kills the
//!   whole sandbox.

use std::collections::BTreeMap;
use std::time::Duration;

use taskc_compiler::parser::{Input, REPORT_ENV};
use taskc_compiler::patch::{numstat_z, parse_patch};
use taskc_compiler::plan::{Run, SelectHow, Step, TestSelection};

use super::surface;
use crate::backend::{Upload, LOG_CAP};
use crate::canary;

/// The harness's root-only folder; uploads land under it.
pub const TASKC_DIR: &str = "/taskc";
/// Where uploads land (deleted before the test command starts).
pub const BLOB_DIR: &str = "/taskc/blobs";
/// Where the harness writes its messages and its records of the test command.
pub const HARNESS_DIR: &str = "/taskc/harness";
/// Where the test-selection harness (pytest plugin, selection files) is uploaded: outside
/// the root-only [`TASKC_DIR`], readable by the test user (verification only; it holds the
/// selected test ids, never a patch).
pub const SELECT_DIR: &str = "/taskc-select";
/// The pytest selection plugin (`PYTEST_PLUGINS=taskc_select`).
pub const PYTEST_PLUGIN: &str = include_str!("harness/taskc_select.py");
/// The line the plugin prints once it has narrowed the collection.
pub const PYTEST_PLUGIN_MARK: &str = "taskc-select: kept ";
/// The line the plugin prints when selected ids match no collected test of a file that
/// collected, followed by their count and a JSON list of them (`RepoTests::not_collected`).
pub const PYTEST_UNMATCHED_MARK: &str = "taskc-select: not collected: ";
/// Sourced by `bash -c` (`BASH_ENV`): keeps the plugin importable when a command sets
/// `PYTHONPATH` itself (`PYTHONPATH=../lib python3 -m pytest`).
const BASH_ENV: &str = r#"# taskc: keep the test-selection plugin importable when a command sets PYTHONPATH.
for __taskc_cmd in python python3 pytest py.test; do
  eval "$__taskc_cmd() { PYTHONPATH="\$TASKC_HARNESS\${PYTHONPATH:+:\$PYTHONPATH}" command $__taskc_cmd "\$@"; }"
done
unset __taskc_cmd
"#;
/// Exit status the script uses when a preparation step fails.
pub const STEP_FAILED: i64 = 86;
/// File under [`HARNESS_DIR`] a failed step writes: who caused it (a [`StepFailure`]), a
/// newline, then the message.
pub const FAILED_FILE: &str = "failed";
/// Files under [`HARNESS_DIR`] recording the test command.
pub const EXIT_FILE: &str = "exit";
pub const MS_FILE: &str = "ms";
/// What the run hit of its limits after the tests (`pids-max <n>`: how often a fork was
/// refused at the process limit).
pub const LIMITS_FILE: &str = "limits";
/// Present when the test command reached its time limit (by the clock).
pub const TIMED_OUT_FILE: &str = "timed-out";
/// The harness's own messages (what the preparation steps printed).
pub const HARNESS_LOG: &str = "harness.log";
/// Set to `1` by a backend whose runs have no sandbox of their own (the local backend
/// without bubblewrap): the test command then keeps the script's user.
pub const UNSANDBOXED_VAR: &str = "TASKC_UNSANDBOXED";
/// The unprivileged user and group the test command runs as (`taskc-test`, created in the
/// task image with this id by its lowered Dockerfile).
pub use taskc_compiler::plan::{TEST_UID, TEST_USER};
/// The test user's process limit where the sandbox has no pids cgroup (the local backend).
pub const LOCAL_NPROC: u32 = 4096;
/// Set to `1` by a backend whose run has a pids cgroup of its own (the local backend with
/// its cgroup v1 groups): the test command then gets no per-uid `prlimit --nproc`, which
/// counts the test user's processes of every run on the host.
pub const PIDS_CGROUP_VAR: &str = "TASKC_PIDS_CGROUP";
/// Set to `1` by a backend whose runs share a container without a pids limit of their own
/// (the exported Harbor grader): the test user then gets [`LOCAL_NPROC`] as on the local
/// backend, so a process-holding daemon cannot starve the harness or the grader.
pub const NPROC_VAR: &str = "TASKC_NPROC_LIMIT";
/// Set by a backend whose runs share the kernel's per-uid process count with runs it does
/// not control (the exported Harbor grader: trials of other tasks beside it on one Docker
/// host): the uid (and gid) the test command runs as instead of [`TEST_UID`], drawn per
/// trial, so [`LOCAL_NPROC`] is this trial's alone. Honoured only as a number in
/// [`TEST_UID_RANGE`]; anything else keeps [`TEST_UID`].
pub const TEST_UID_VAR: &str = "TASKC_TEST_UID";
/// The uids [`TEST_UID_VAR`] may name: above every uid a Debian image allocates
/// (`SYS_UID_MAX`, `UID_MAX` = 60000, `nobody` = 65534), below 2^31 (`int` in C).
pub const TEST_UID_RANGE: std::ops::RangeInclusive<u32> = 100_000..=2_147_483_646;
/// Time the harness may take around the test command (patches, uploads, collect) before
/// the backend kills the whole run.
pub const SETUP_ALLOWANCE: Duration = Duration::from_secs(120);
/// `PATH` of the harness itself: system folders no test can write.
const HARNESS_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Who a failed preparation step is charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepFailure {
    /// The prediction's own patch did not apply (written `prediction:<repo>`).
    Prediction,
    /// The spec's gold or hidden-test patch did not apply at base: infrastructure.
    Spec,
    /// Restoring or applying the hidden tests failed over the prediction's changes.
    AfterPrediction,
    /// The harness itself (a missing folder, a tool): infrastructure.
    Harness,
}

impl StepFailure {
    pub fn as_str(self) -> &'static str {
        match self {
            StepFailure::Prediction => "prediction",
            StepFailure::Spec => "spec",
            StepFailure::AfterPrediction => "after-prediction",
            StepFailure::Harness => "harness",
        }
    }
}

/// The script, uploads and files to collect for one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunScript {
    pub script: String,
    pub uploads: Vec<Upload>,
    pub collect: Vec<String>,
}

/// Why a run cannot even be prepared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    #[error("the plan names blob {0} but does not hold it; re-run `taskc plan`")]
    MissingBlob(String),
}

/// Quote `s` for bash as one word (the compiler's quoting, which lowered Dockerfiles use).
pub use taskc_compiler::lower::shell_quote as sh_quote;

fn repo_dir(repo: &str) -> String {
    format!("\"$TASKC_ROOT\"/work/{}", sh_quote(repo))
}

/// A harness file's container path.
pub fn harness_file(name: &str) -> String {
    format!("{HARNESS_DIR}/{name}")
}

/// The backend's hard wall for `run`: the test limit plus [`SETUP_ALLOWANCE`].
pub fn backend_timeout(run: &Run) -> Duration {
    Duration::from_secs(run.test.timeout_secs) + SETUP_ALLOWANCE
}

/// The script under construction: its text and its uploads.
struct Script<'a> {
    text: String,
    uploads: Vec<Upload>,
    blobs: &'a BTreeMap<String, String>,
}

impl Script<'_> {
    fn line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// Upload `text` as `name` under the blob folder; returns its quoted script path.
    fn upload(&mut self, name: String, text: &str) -> String {
        self.upload_bytes(name, text.as_bytes().to_vec())
    }

    /// Upload `bytes` as `name` under the blob folder; returns its quoted script path.
    fn upload_bytes(&mut self, name: String, bytes: Vec<u8>) -> String {
        let path = format!("{BLOB_DIR}/{name}");
        if !self.uploads.iter().any(|u| u.path == path) {
            self.uploads.push(Upload {
                path: path.clone(),
                bytes,
                mode: 0o600,
            });
        }
        format!("\"$TASKC_ROOT\"{}", sh_quote(&path))
    }

    fn blob(&self, digest: &str) -> Result<String, ScriptError> {
        self.blobs
            .get(digest)
            .cloned()
            .ok_or_else(|| ScriptError::MissingBlob(digest.to_string()))
    }
}

/// Build the script for `run`. `predictions` holds the agent's patch per repository, used
/// by `apply-prediction` steps (a repository without one is left as it is); `canaries`
/// are the run's canary tests, placed at run time; `base` the text at base of the files
/// the plan's patches name (`restore-test-modules` reads its Rust files there).
pub fn build(
    run: &Run,
    blobs: &BTreeMap<String, String>,
    predictions: &BTreeMap<String, String>,
    canaries: &canary::Placement,
    base: &canary::BaseFiles,
) -> Result<RunScript, ScriptError> {
    let mut s = Script {
        text: String::new(),
        uploads: Vec::new(),
        blobs,
    };
    let mut inline = inline_files(run, blobs, base)?;
    // The prediction's and gold patches keep out of the hidden tests' modules.
    let mut kept: BTreeMap<String, String> = BTreeMap::new();
    let mut gold_kept: BTreeMap<String, String> = BTreeMap::new();
    for step in &run.steps {
        let (repo, text, out) = match step {
            Step::ApplyPrediction { repo } => match predictions.get(repo) {
                Some(p) if !p.trim().is_empty() => (repo, p.clone(), &mut kept),
                _ => continue,
            },
            Step::ApplyGold { repo, blob } => (repo, s.blob(blob)?, &mut gold_kept),
            _ => continue,
        };
        let mut text = text;
        for f in inline
            .iter_mut()
            .filter(|f| &f.repo == repo && f.modules.is_some())
        {
            let regions: Vec<(u32, u32)> = f
                .modules
                .iter()
                .flatten()
                .map(|m| (m.start, m.end))
                .collect();
            match taskc_compiler::inline_tests::keep_outside(&text, &f.path, &regions) {
                Ok(k) => {
                    text = k.text;
                    f.starts = k.starts;
                    f.by_prediction |= matches!(step, Step::ApplyPrediction { .. });
                }
                // Created, deleted, renamed: the file is restored whole.
                Err(_) => f.modules = None,
            }
        }
        out.insert(repo.clone(), text);
    }
    let predictions = &kept;
    preamble(&mut s);
    // Once the prediction's patches are in, a hidden-test step that fails is theirs.
    let after_prediction = run.steps.iter().any(|st| {
        matches!(st, Step::ApplyPrediction { repo }
            if predictions.get(repo).is_some_and(|p| !p.trim().is_empty()))
    });
    let tests_who = if after_prediction {
        StepFailure::AfterPrediction
    } else {
        StepFailure::Spec
    };
    apply_patches(&mut s, run, predictions, &gold_kept)?;
    restore_surface(&mut s, run, predictions, tests_who, &inline);
    restore_test_modules(&mut s, &inline, tests_who);
    apply_hidden_tests(&mut s, run, tests_who, &inline)?;
    inject_canaries(&mut s, canaries);
    delete_blobs(&mut s);
    drop_privileges(&mut s, run);
    run_tests(&mut s, run, canaries);
    Ok(RunScript {
        script: s.text,
        uploads: s.uploads,
        // The whole harness folder in one request: each collected path costs a round trip.
        collect: vec![HARNESS_DIR.to_string()],
    })
}

/// `TU`, the test user's uid: the backend's per-trial one ([`TEST_UID_VAR`]) when it names
/// a number in [`TEST_UID_RANGE`], else [`TEST_UID`].
fn test_uid_line() -> String {
    format!(
        "TU={TEST_UID}; case \"${{{TEST_UID_VAR}:-}}\" in ''|*[!0-9]*|0*) ;; *) \
         [ ${{#{TEST_UID_VAR}}} -le 10 ] && [ \"${TEST_UID_VAR}\" -ge {lo} ] && [ \"${TEST_UID_VAR}\" -le {hi} ] && TU=${TEST_UID_VAR};; esac",
        lo = TEST_UID_RANGE.start(),
        hi = TEST_UID_RANGE.end(),
    )
}

/// Root-only harness folder, the harness's output away from the log, its own `PATH`.
fn preamble(s: &mut Script<'_>) {
    s.line("set +e");
    s.line("export TASKC_ROOT=\"${TASKC_ROOT:-}\"");
    s.line("umask 022");
    s.line(&test_uid_line());
    s.line(&format!("T=\"$TASKC_ROOT\"{TASKC_DIR}"));
    s.line(&format!("H=\"$TASKC_ROOT\"{HARNESS_DIR}"));
    s.line(&format!(
        "mkdir -p \"$H\" && chmod 0700 \"$T\" \"$H\" || exit {STEP_FAILED}"
    ));
    // fd 3/4: the run's log (the backend's output stream), kept for the test command only.
    s.line(&format!("exec 3>&1 4>&2 >>\"$H/{HARNESS_LOG}\" 2>&1"));
    s.line("TEST_PATH=\"$PATH\"");
    s.line(&format!("PATH={HARNESS_PATH}"));
    s.line(&format!(
        "fail() {{ printf '%s\\n%s\\n' \"$1\" \"$2\" > \"$H/{FAILED_FILE}\"; exit {STEP_FAILED}; }}"
    ));
    s.line(
        "apply() { git -C \"$1\" apply --whitespace=nowarn \"$2\" 2> \"$H/apply.err\" \
         || fail \"$3\" \"$4: $(head -c 400 \"$H/apply.err\")\"; }",
    ); // Freeze every process of the test user (until a pass finds none still running: a
       // stopped process cannot fork), then kill them all: builtins only, as root (`kill`,
       // `read`, globbing), so a sandbox whose process, memory or disk limit the tests left
       // full cannot keep the harness from it.
    s.line(
        "reap() { local pass d k v st uid live; for pass in 1 2 3 4 5 6 7 8 9 10 11 12; do live=0; \
         for d in /proc/[0-9]*; do st=; uid=; { while read -r k v _; do case $k in State:) st=$v;; Uid:) uid=$v; break;; esac; done < \"$d/status\"; } 2>/dev/null; \
         [ \"$uid\" = \"$TU\" ] || continue; kill -STOP \"${d#/proc/}\" 2>/dev/null; case $st in T|t|Z|X) ;; *) live=1;; esac; done; \
         [ $live = 0 ] && break; done; \
         for d in /proc/[0-9]*; do uid=; { while read -r k v _; do [ \"$k\" = Uid: ] && { uid=$v; break; }; done < \"$d/status\"; } 2>/dev/null; \
         [ \"$uid\" = \"$TU\" ] && kill -KILL \"${d#/proc/}\" 2>/dev/null; done; return 0; }",
    );
    // One reading of every patch: what the git that applies the prediction's patch says it
    // touches must be what taskc read (`exec::surface`, the flags); else the patch is refused.
    s.line(
        "same_reading() { git -C \"$1\" apply --numstat -z \"$2\" > \"$H/numstat\" 2> \"$H/numstat.err\" \
         && cmp -s \"$H/numstat\" \"$3\" || fail \"$4\" \"$5 (git: $(tr '\\0\\t\\n' ';  ' < \"$H/numstat\" | head -c 300)$(head -c 200 \"$H/numstat.err\"); taskc: $(tr '\\0\\t\\n' ';  ' < \"$3\" | head -c 300))\"; }",
    );
}

/// Phase 1: the prediction's patches, then the gold patches.
fn apply_patches(
    s: &mut Script<'_>,
    run: &Run,
    predictions: &BTreeMap<String, String>,
    gold: &BTreeMap<String, String>,
) -> Result<(), ScriptError> {
    for step in &run.steps {
        match step {
            Step::ApplyPrediction { repo } => {
                if let Some(p) = predictions.get(repo).filter(|p| !p.trim().is_empty()) {
                    let f = s.upload(format!("prediction-{repo}.patch"), p);
                    let who = sh_quote(&format!("{}:{repo}", StepFailure::Prediction.as_str()));
                    match parse_patch(p) {
                        Ok(parsed) => {
                            let expected = s.upload_bytes(
                                format!("prediction-{repo}.numstat"),
                                numstat_z(&parsed),
                            );
                            let why = sh_quote(&format!(
                                "taskc and git read the prediction's patch for `{repo}` differently \
                                 (its file headers or hunks): write it as `git diff` does"
                            ));
                            s.line(&format!(
                                "same_reading {} {f} {expected} {who} {why}",
                                repo_dir(repo)
                            ));
                        }
                        Err(e) => s.line(&format!(
                            "fail {who} {}",
                            sh_quote(&format!(
                                "the prediction's patch for `{repo}` cannot be read: {e}"
                            ))
                        )),
                    }
                    let why = sh_quote(&format!(
                        "the prediction's patch for `{repo}` does not apply"
                    ));
                    s.line(&format!("apply {} {f} {who} {why}", repo_dir(repo)));
                }
            }
            Step::ApplyGold { repo, blob } => {
                let text = match gold.get(repo) {
                    Some(t) => t.clone(),
                    None => s.blob(blob)?,
                };
                if text.trim().is_empty() {
                    continue;
                }
                let name = if gold.get(repo).is_some_and(|t| Some(t) != s.blobs.get(blob)) {
                    format!("{blob}.kept.patch")
                } else {
                    format!("{blob}.patch")
                };
                let f = s.upload(name, &text);
                let why = sh_quote(&format!("the gold patch of `{repo}` does not apply"));
                let who = StepFailure::Spec.as_str();
                s.line(&format!("apply {} {f} {who} {why}", repo_dir(repo)));
            }
            Step::RestoreSurface { .. }
            | Step::RestoreFiles { .. }
            | Step::RestoreTestModules { .. }
            | Step::ApplyTests { .. } => {}
        }
    }
    Ok(())
}

/// Phase 2: the test surface back to base — the prediction's changes to runner hooks and
/// configuration (`exec::surface`; disjoint from the gold-patched repositories), then the
/// files the hidden tests touch (deleted when absent at base).
fn restore_surface(
    s: &mut Script<'_>,
    run: &Run,
    predictions: &BTreeMap<String, String>,
    who: StepFailure,
    inline: &[InlineFile],
) {
    for step in &run.steps {
        if let Step::RestoreSurface { repo, globs } = step {
            if let Some(p) = predictions.get(repo).filter(|p| !p.trim().is_empty()) {
                s.text
                    .push_str(&surface::restore_script(repo, &repo_dir(repo), globs, p));
            }
        }
    }
    for step in &run.steps {
        if let Step::RestoreFiles { repo, paths } = step {
            let why = format!("could not restore {} in `{repo}`", list_paths(paths));
            s.text
                .push_str(&restore_paths(&repo_dir(repo), paths, false, who, &why));
        }
    }
    // Rust files whose hidden tests are not only in their test modules: restored whole.
    let mut whole: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for f in inline.iter().filter(|f| f.modules.is_none()) {
        whole.entry(&f.repo).or_default().push(f.path.clone());
    }
    for (repo, paths) in whole {
        let why = format!("could not restore {} in `{repo}`", list_paths(&paths));
        s.text
            .push_str(&restore_paths(&repo_dir(repo), &paths, false, who, &why));
    }
}

/// A Rust file of a `restore-test-modules` step (`taskc_compiler::inline_tests`).
#[derive(Debug, Clone)]
struct InlineFile {
    repo: String,
    path: String,
    /// Its `#[cfg(test)]` modules at base and with the hidden tests; `None` when the file
    /// is restored whole instead (hidden changes outside them, not readable at base, or a
    /// patch that creates, deletes or renames it).
    modules: Option<Vec<taskc_compiler::inline_tests::InlineModule>>,
    /// Where each module starts once the prediction's (or gold) patch is applied.
    starts: Vec<u32>,
    /// The prediction's patch moved them.
    by_prediction: bool,
}

/// The files of `run`'s `restore-test-modules` steps, read at base.
fn inline_files(
    run: &Run,
    blobs: &BTreeMap<String, String>,
    base: &canary::BaseFiles,
) -> Result<Vec<InlineFile>, ScriptError> {
    let mut out = Vec::new();
    for step in &run.steps {
        let Step::RestoreTestModules { repo, paths } = step else {
            continue;
        };
        let hidden = run.steps.iter().find_map(|st| match st {
            Step::ApplyTests { repo: r, blob } if r == repo => Some(blob),
            _ => None,
        });
        let hidden = match hidden {
            Some(b) => Some(
                blobs
                    .get(b)
                    .ok_or_else(|| ScriptError::MissingBlob(b.clone()))?,
            ),
            None => None,
        };
        let parsed = hidden.and_then(|t| parse_patch(t).ok());
        for path in paths {
            let sections: Vec<_> = parsed
                .iter()
                .flat_map(|p| p.files.iter())
                .filter(|f| f.path() == path)
                .collect();
            let text = base.get(repo).and_then(|b| b.get(path));
            let modules = match (sections.as_slice(), text) {
                ([f], Some(text)) => taskc_compiler::inline_tests::inline_file(text, f).ok(),
                _ => None,
            };
            let starts = modules.iter().flatten().map(|m| m.start).collect();
            out.push(InlineFile {
                repo: repo.clone(),
                path: path.clone(),
                modules,
                starts,
                by_prediction: false,
            });
        }
    }
    Ok(out)
}

/// Phase 2b: each Rust file's `#[cfg(test)]` modules, left as at base by the patches,
/// replaced by the hidden tests' (last first, so the lines above stay where they are).
/// A module not found where the patch's hunks put it fails the run (the prediction's
/// when it moved it).
fn restore_test_modules(s: &mut Script<'_>, inline: &[InlineFile], who: StepFailure) {
    let mut defined = false;
    for f in inline {
        let Some(modules) = &f.modules else {
            continue;
        };
        if !defined {
            s.line(
                "splice() { sed -n \"$2,$3p\" \"$1\" 2>/dev/null | cmp -s - \"$4\" || fail \"$6\" \"$7\"; \
                 { head -n $(($2 - 1)) \"$1\"; cat \"$5\"; tail -n +$(($3 + 1)) \"$1\"; } > \"$H/splice\" \
                 && cat \"$H/splice\" > \"$1\" || fail harness \"cannot write $1\"; }",
            );
            defined = true;
        }
        let who = if f.by_prediction {
            format!("{}:{}", StepFailure::Prediction.as_str(), f.repo)
        } else {
            who.as_str().to_string()
        };
        let target = format!("{}/{}", repo_dir(&f.repo), sh_quote(&f.path));
        for (k, m) in modules.iter().enumerate().rev() {
            let start = f.starts.get(k).copied().unwrap_or(m.start);
            let end = start + (m.end - m.start);
            let tag = sha256_tag(&format!("{}\0{}\0{k}", f.repo, f.path));
            let at_base = s.upload(format!("module-{tag}.base"), &m.base_text);
            let hidden = s.upload(format!("module-{tag}.hidden"), &m.hidden_text);
            let why = format!(
                "`{}` of `{}` does not hold its `#[cfg(test)] mod {}` at lines {start}-{end}, where the patches leave it",
                f.path, f.repo, m.name
            );
            s.line(&format!(
                "splice {target} {start} {end} {at_base} {hidden} {} {}",
                sh_quote(&who),
                sh_quote(&why)
            ));
        }
    }
}

/// A short name for uploads derived from `key`.
fn sha256_tag(key: &str) -> String {
    taskc_compiler::plan::sha256_hex(key.as_bytes())
        .chars()
        .take(16)
        .collect()
}

/// `` `a`, `b` `` (at most five, then how many more).
pub(crate) fn list_paths(paths: &[String]) -> String {
    let mut shown: Vec<String> = paths.iter().take(5).map(|p| format!("`{p}`")).collect();
    if paths.len() > 5 {
        shown.push(format!("{} more", paths.len() - 5));
    }
    shown.join(", ")
}

/// Script lines putting `paths` of the repository in `dir` (already quoted) back as they
/// are at its `HEAD` — deleted when absent there; `remove_first` deletes each one present
/// at `HEAD` before checking it out — with two `git` processes whatever the number of
/// paths (which `HEAD` has, then one checkout), paths taken literally; `fail`s with `who`
/// and `why`.
pub(crate) fn restore_paths(
    dir: &str,
    paths: &[String],
    remove_first: bool,
    who: StepFailure,
    why: &str,
) -> String {
    if paths.is_empty() {
        return String::new();
    }
    let list: Vec<String> = paths.iter().map(|p| sh_quote(p)).collect();
    let list = list.join(" ");
    let present = if remove_first {
        "rm -rf -- \"$p\" || exit 1; co+=(\"$p\")"
    } else {
        "co+=(\"$p\")"
    };
    format!(
        "( cd {dir} && export GIT_LITERAL_PATHSPECS=1 && declare -A at_head=() && \
         while IFS= read -r -d '' p; do at_head[$p]=1; done < <(git ls-tree -r -t -z --name-only HEAD -- {list} 2>/dev/null) && \
         co=() && for p in {list}; do if [ -n \"${{at_head[$p]:-}}\" ]; then {present}; else rm -rf -- \"$p\" || exit 1; fi; done && \
         {{ [ ${{#co[@]}} -eq 0 ] || git checkout -q HEAD -- \"${{co[@]}}\"; }} ) || fail {who} {why}\n",
        who = sh_quote(who.as_str()),
        why = sh_quote(why),
    )
}

/// Phase 3: the relaxed hidden tests.
fn apply_hidden_tests(
    s: &mut Script<'_>,
    run: &Run,
    who: StepFailure,
    inline: &[InlineFile],
) -> Result<(), ScriptError> {
    for step in &run.steps {
        if let Step::ApplyTests { repo, blob } = step {
            let mut text = s.blob(blob)?;
            // The files whose test modules were put in place already leave the patch.
            let spliced: Vec<&str> = inline
                .iter()
                .filter(|f| &f.repo == repo && f.modules.is_some())
                .map(|f| f.path.as_str())
                .collect();
            let mut name = format!("{blob}.patch");
            if !spliced.is_empty() {
                text = without_files(&text, &spliced);
                name = format!("{blob}.rest.patch");
                if text.trim().is_empty() {
                    continue;
                }
            }
            let f = s.upload(name, &text);
            let why = sh_quote(&format!("the hidden test patch of `{repo}` does not apply"));
            s.line(&format!(
                "apply {} {f} {} {why}",
                repo_dir(repo),
                who.as_str()
            ));
        }
    }
    Ok(())
}

/// `text` (a patch) without the sections of `paths`.
fn without_files(text: &str, paths: &[&str]) -> String {
    let Ok(p) = parse_patch(text) else {
        return text.to_string();
    };
    let mut out = String::new();
    let mut at = 0usize;
    for f in p.files.iter().filter(|f| paths.contains(&f.path())) {
        let (from, mut to) = (f.span.start as usize, f.span.end as usize);
        if text.get(to..to + 1) == Some("\n") {
            to += 1;
        }
        while text.get(to..).is_some_and(|r| r.starts_with('\\')) {
            to += text[to..].find('\n').map_or(text.len() - to, |k| k + 1);
        }
        out.push_str(text.get(at..from).unwrap_or(""));
        at = to;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    // Nothing but a preamble left: no file to apply.
    match parse_patch(&out) {
        Ok(p) if !p.files.is_empty() => out,
        _ => String::new(),
    }
}

/// Phase 4: canary tests written into the hidden test files just applied (`crate::canary`;
/// their uploads are blobs, deleted with the others).
fn inject_canaries(s: &mut Script<'_>, canaries: &canary::Placement) {
    s.text.push_str(&canaries.script);
    s.uploads.extend(canaries.uploads.iter().cloned());
}

/// Phase 5: no patch or hidden test stays readable once the tests start.
fn delete_blobs(s: &mut Script<'_>) {
    s.line(&format!(
        "rm -rf \"$TASKC_ROOT\"{BLOB_DIR} || fail {} 'cannot delete the uploads'",
        StepFailure::Harness.as_str()
    ));
}

/// Phase 6: hand the repository under test to the test user and build the command prefix
/// that drops to it (`drop` stays empty when the script cannot drop privileges).
fn drop_privileges(s: &mut Script<'_>, run: &Run) {
    let harness = StepFailure::Harness.as_str();
    let repo = repo_dir(&run.under_test);
    s.line("drop=()");
    s.line(&format!(
        "TH=\"$TASKC_ROOT\"/tmp/{TEST_USER}-home; rm -rf \"$TH\"; mkdir -p \"$TH\" || fail {harness} 'cannot create the test home'"
    ));
    s.line(&format!(
        "if [ \"$EUID\" = 0 ] && [ \"${{{UNSANDBOXED_VAR}:-}}\" != 1 ]; then"
    ));
    s.line(&format!(
        "  chown -R \"$TU:$TU\" {repo} \"$TH\" || fail {harness} {why}",
        why = sh_quote(&format!(
            "cannot hand `{}` to the test user",
            run.under_test
        )),
    ));
    s.line(
        "  drop=(setpriv --reuid=\"$TU\" --regid=\"$TU\" --clear-groups \
         --inh-caps=-all --bounding-set=-all --no-new-privs --)",
    );
    // Docker caps the processes of a run (its pids limit); bubblewrap has no cgroup, so on
    // the local backend without a pids group of its own ([`PIDS_CGROUP_VAR`]) the test user
    // gets a process limit (per uid, shared by the local runs in flight: one run's fork bomb
    // would make every other run's `setpriv` fail to exec, so never where the run has one),
    // and so does it in a container without a limit per run (the Harbor verifier, which sets
    // [`NPROC_VAR`]).
    s.line(&format!(
        "  {{ {{ [ -n \"$TASKC_ROOT\" ] && [ \"${{{PIDS_CGROUP_VAR}:-}}\" != 1 ]; }} || [ \"${{{NPROC_VAR}:-}}\" = 1 ]; }} && drop=(prlimit --nproc={LOCAL_NPROC}:{LOCAL_NPROC} -- \"${{drop[@]}}\")"
    ));
    s.line("fi");
}

/// Phase 7: run the test command with the log as its output, kill what it leaves, record
/// its exit code, its duration and whether it reached its limit.
fn run_tests(s: &mut Script<'_>, run: &Run, canaries: &canary::Placement) {
    let t = &run.test;
    let harness = StepFailure::Harness.as_str();
    // A narrowed verification run: the selection reaches the command through its
    // environment (the curator's command stays as written).
    let mut uploads = Vec::new();
    // The command as the canaries need it run (`cargo test --no-fail-fast`).
    let command = canaries.commands.get(&t.repo).unwrap_or(&t.command);
    let (select_env, command) = match &t.select {
        None => (String::new(), command.clone()),
        Some(sel) => narrow(
            sel,
            &t.repo,
            command,
            &canary_names(canaries, &t.repo),
            &mut |name, text| {
                let path = format!("{SELECT_DIR}/{name}");
                if !uploads.iter().any(|u: &Upload| u.path == path) {
                    uploads.push(Upload {
                        path,
                        bytes: text.as_bytes().to_vec(),
                        mode: 0o644,
                    });
                }
            },
        ),
    };
    s.uploads.extend(uploads);
    s.line(&format!(
        "cd \"$TASKC_ROOT\"{wd} || fail {harness} {why}",
        wd = sh_quote(&t.workdir),
        why = sh_quote(&format!("no folder {}", t.workdir)),
    ));
    // The records are written into files made now, while the disk is the harness's: from
    // here on nothing the harness does needs a new process, memory or disk (the tests may
    // leave the sandbox's process, memory or disk limit full): bash builtins only.
    s.line(&format!(
        "for f in {EXIT_FILE} {MS_FILE} {LIMITS_FILE}; do printf '%-40s\\n' '' > \"$H/$f\" || fail {harness} 'cannot write the records'; done"
    ));
    let report = report_file(t.parser.descriptor().input);
    for l in &report.before {
        s.line(l);
    }
    s.line("start=${EPOCHREALTIME//[.,]/}");
    s.line(&format!(
        "timeout -s KILL {secs} \"${{drop[@]}}\" env HOME=\"$TH\" USER={TEST_USER} LOGNAME={TEST_USER} \
         PATH=\"$TEST_PATH\" {report_env}{select_env}bash -c {cmd} >&3 2>&4 3>&- 4>&- </dev/null",
        secs = t.timeout_secs,
        cmd = sh_quote(&command),
        report_env = report.env,
    ));
    s.line("code=$?");
    s.line("end=${EPOCHREALTIME//[.,]/}");
    s.line("ms=$(( (end - start) / 1000 ))");
    s.line(&format!("printf '%s\\n' \"$code\" 1<> \"$H/{EXIT_FILE}\""));
    s.line(&format!("printf '%s\\n' \"$ms\" 1<> \"$H/{MS_FILE}\""));
    // Whatever the test user left running (daemons, detached writers, a process holding the
    // pids limit full) is frozen, then killed, by root, without a fork.
    s.line("[ ${#drop[@]} -gt 0 ] && reap");
    // The report file is read once nothing of the test user's runs any more.
    for l in &report.after {
        s.line(l);
    }
    // Whether the run reached its process limit (cgroup v2, then v1's pids controller).
    s.line(
        "hit=0; for f in /sys/fs/cgroup/pids.events /sys/fs/cgroup/pids/pids.events; do \
         [ -r \"$f\" ] && { while read -r k v; do [ \"$k\" = max ] && hit=$v; done < \"$f\"; break; }; done",
    );
    s.line(&format!(
        "printf 'pids-max %s\\n' \"$hit\" 1<> \"$H/{LIMITS_FILE}\""
    ));
    s.line(&format!(
        "[ \"$ms\" -ge {limit} ] && : > \"$H/{TIMED_OUT_FILE}\"",
        limit = t.timeout_secs.saturating_mul(1000)
    ));
    s.line("exit 0");
}

/// The harness record holding the report file of a parser that reads one.
pub const REPORT_FILE: &str = "report";

/// The lines around the test command of a parser reading [`Input::ReportFile`]: before it,
/// a fresh folder with a random name (`mktemp`) in a root-owned folder the test user can
/// pass through but not list (0711), handed to the test user; the command's environment
/// gets [`REPORT_ENV`] holding the report's path there; after it (and after the test user's
/// processes are killed), the report is read *as the test user* (a link it planted reads
/// only what it could print anyway), at most [`LOG_CAP`] bytes, into the harness record
/// [`REPORT_FILE`]. Nothing for [`Input::Log`].
struct ReportLines {
    before: Vec<String>,
    env: String,
    after: Vec<String>,
}

fn report_file(input: Input) -> ReportLines {
    let Input::ReportFile { file_name } = input else {
        return ReportLines {
            before: Vec::new(),
            env: String::new(),
            after: Vec::new(),
        };
    };
    let harness = StepFailure::Harness.as_str();
    let file = sh_quote(file_name);
    ReportLines {
        before: vec![
            "RP=\"$TASKC_ROOT\"/tmp/taskc-reports".to_string(),
            format!(
                "mkdir -p \"$RP\" && chmod 0711 \"$RP\" && R=$(mktemp -d \"$RP\"/XXXXXXXXXXXXXXXX) \
                 || fail {harness} 'cannot create the report folder'"
            ),
            format!(
                "if [ ${{#drop[@]}} -gt 0 ]; then chown \"$TU:$TU\" \"$R\" \
                 || fail {harness} 'cannot hand the report folder to the test user'; fi"
            ),
        ],
        env: format!("{REPORT_ENV}=\"$R\"/{file} "),
        after: vec![format!(
            "\"${{drop[@]}}\" head -c {cap} -- \"$R\"/{file} > \"$H/{REPORT_FILE}\" 2>/dev/null \
             || rm -f \"$H/{REPORT_FILE}\"",
            cap = LOG_CAP,
        )],
    }
}

fn canary_names(canaries: &canary::Placement, repo: &str) -> Vec<String> {
    canaries
        .canaries
        .iter()
        .filter(|c| c.repo == repo)
        .map(|c| c.name.clone())
        .collect()
}

/// A narrowed step keeps the selected tests and the canaries (`keep`, by name); a canary
/// that must fail does not trigger fail-fast.
fn narrow(
    sel: &TestSelection,
    repo: &str,
    command: &str,
    keep: &[String],
    upload: &mut dyn FnMut(String, &str),
) -> (String, String) {
    match &sel.how {
        SelectHow::PytestPlugin => {
            upload("taskc_select.py".into(), PYTEST_PLUGIN);
            upload("bash_env".into(), BASH_ENV);
            let file = format!("{repo}.select.json");
            let json = serde_json::json!({
                "ids": sel.ids,
                "fail_fast": sel.fail_fast,
                "keep": keep,
            });
            upload(file.clone(), &json.to_string());
            let h = format!("\"$TASKC_ROOT\"{SELECT_DIR}");
            (
                format!(
                    "TASKC_HARNESS={h} TASKC_SELECT={h}/{f} BASH_ENV={h}/bash_env \
                     PYTEST_PLUGINS=\"taskc_select${{PYTEST_PLUGINS:+,$PYTEST_PLUGINS}}\" \
                     PYTHONPATH={h}\"${{PYTHONPATH:+:$PYTHONPATH}}\" ",
                    f = sh_quote(&file)
                ),
                command.to_string(),
            )
        }
        SelectHow::GoRun { pattern } => {
            // Canaries join the alternation, anchored; `-failfast` would stop at the canary
            // that must fail, so it is dropped when there are canaries.
            let pattern = std::iter::once(pattern.clone())
                .chain(keep.iter().map(|k| format!("^{k}$")))
                .collect::<Vec<_>>()
                .join("|");
            let mut flags = format!("-run={pattern}");
            if sel.fail_fast && keep.is_empty() {
                flags.push_str(" -failfast");
            }
            (
                format!("GOFLAGS=\"${{GOFLAGS:+$GOFLAGS }}\"{} ", sh_quote(&flags)),
                command.to_string(),
            )
        }
        SelectHow::Command { command } => (String::new(), command.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test uid line, run by bash (`-u`, as every backend runs the script): the
    /// backend's per-trial uid when it is a number in range, the image's `taskc-test`
    /// otherwise — never root, a system account, or a word.
    #[test]
    fn the_test_uid_is_the_backends_per_trial_one_only_when_it_is_a_number_in_range() {
        for (value, expect) in [
            (None, TEST_UID),
            (Some("123456"), 123_456),
            (Some("100000"), 100_000),
            (Some("2147483646"), 2_147_483_646),
            (Some("99999"), TEST_UID),
            (Some("0"), TEST_UID),
            (Some("0123456"), TEST_UID),
            (Some("2147483647"), TEST_UID),
            (Some("99999999999999999999"), TEST_UID),
            (Some(""), TEST_UID),
            (Some("1e6"), TEST_UID),
            (Some("123456 0"), TEST_UID),
            (Some("$(id -u)"), TEST_UID),
        ] {
            let mut cmd = std::process::Command::new("bash");
            cmd.args(["-euo", "pipefail", "-c"])
                .arg(format!("{}\necho \"$TU\"", test_uid_line()))
                .env_remove(TEST_UID_VAR);
            if let Some(v) = value {
                cmd.env(TEST_UID_VAR, v);
            }
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{value:?}: {out:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                expect.to_string(),
                "{value:?}"
            );
        }
    }

    /// The report-file lines, run by bash: the command finds `$TASKC_REPORT` in a fresh
    /// folder of an unlistable one, and the harness keeps what it wrote (or nothing).
    #[test]
    fn a_report_file_reaches_the_harness_records_from_a_fresh_unlistable_folder() {
        use std::os::unix::fs::PermissionsExt;
        let lines = report_file(Input::ReportFile {
            file_name: "report.xml",
        });
        for (command, expect) in [
            ("printf '<r/>' > \"$TASKC_REPORT\"", Some("<r/>")),
            ("echo no report", None),
        ] {
            let root = tempfile::tempdir().unwrap();
            let mut script = format!(
                "set +e\nTASKC_ROOT={root}\nH=\"$TASKC_ROOT\"/h; mkdir -p \"$H\"\n\
                 fail() {{ printf '%s\\n%s\\n' \"$1\" \"$2\" > \"$H/{FAILED_FILE}\"; exit {STEP_FAILED}; }}\n\
                 drop=()\n",
                root = sh_quote(&root.path().display().to_string()),
            );
            for l in &lines.before {
                script.push_str(l);
                script.push('\n');
            }
            script.push_str(&format!("{}bash -c {}\n", lines.env, sh_quote(command)));
            for l in &lines.after {
                script.push_str(l);
                script.push('\n');
            }
            let status = std::process::Command::new("bash")
                .arg("-c")
                .arg(&script)
                .status()
                .unwrap();
            assert!(status.success(), "{script}");
            let got = std::fs::read(root.path().join("h").join(REPORT_FILE)).ok();
            assert_eq!(got.as_deref(), expect.map(str::as_bytes), "{command}");
            let reports = root.path().join("tmp/taskc-reports");
            let mode = std::fs::metadata(&reports).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o711);
            let folders: Vec<String> = std::fs::read_dir(&reports)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(folders.len(), 1);
            assert_eq!(folders[0].len(), 16, "a random name: {folders:?}");
        }
        let none = report_file(Input::Log);
        assert!(none.before.is_empty() && none.env.is_empty() && none.after.is_empty());
    }

    #[test]
    fn quoting_keeps_words_and_escapes_quotes() {
        assert_eq!(sh_quote("tests/a.py"), "tests/a.py");
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
    }

    /// The restore lines, run by bash on a real repository: files changed, added, deleted
    /// and replaced by a symlink come back as at `HEAD`; a path absent at `HEAD` goes.
    /// The run script's `same_reading`, by bash and the real git: a patch git reads as
    /// taskc does passes; the reading taskc had before it followed git's header rules (the
    /// timestamp kept in the path) fails the run as the prediction's, naming both readings.
    #[test]
    fn a_patch_git_reads_differently_fails_the_run_as_the_predictions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = root.join("work/r");
        std::fs::create_dir_all(&repo).unwrap();
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(init.status.success());
        let patch =
            "--- /dev/null\n+++ b/conftest.py 2024-01-01 00:00:00\n@@ -0,0 +1 @@\n+import os\n";
        std::fs::write(root.join("p.patch"), patch).unwrap();
        let ours = numstat_z(&parse_patch(patch).unwrap());
        assert_eq!(ours, b"1\t0\tconftest.py\0");
        std::fs::write(root.join("good"), &ours).unwrap();
        std::fs::write(root.join("old"), b"1\t0\tconftest.py 2024-01-01 00:00:00\0").unwrap();
        let mut s = Script {
            text: String::new(),
            uploads: Vec::new(),
            blobs: &BTreeMap::new(),
        };
        preamble(&mut s);
        let run = |expected: &str| {
            std::process::Command::new("bash")
                .arg("-c")
                .arg(format!(
                    "{}same_reading \"$TASKC_ROOT\"/work/r \"$TASKC_ROOT\"/p.patch \"$TASKC_ROOT\"/{expected} prediction:r 'read differently'\nexit 0\n",
                    s.text
                ))
                .env("TASKC_ROOT", root)
                .output()
                .unwrap()
        };
        let ok = run("good");
        assert_eq!(ok.status.code(), Some(0), "{ok:?}");
        assert!(!root.join("taskc/harness/failed").exists());
        let bad = run("old");
        assert_eq!(bad.status.code(), Some(STEP_FAILED as i32), "{bad:?}");
        let failed = std::fs::read_to_string(root.join("taskc/harness/failed")).unwrap();
        assert!(
            failed.starts_with("prediction:r\nread differently (git: 1 0 conftest.py;"),
            "{failed}"
        );
        assert!(
            failed.contains("taskc: 1 0 conftest.py 2024-01-01 00:00:00;"),
            "{failed}"
        );
    }

    #[test]
    fn restore_paths_puts_back_head_with_two_git_processes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        let sh = |script: &str| {
            std::process::Command::new("bash")
                .arg("-c")
                .arg(script)
                .current_dir(repo)
                .output()
                .unwrap()
        };
        let setup = sh("git init -q && mkdir -p tests/sub && echo a > tests/test_a.py && \
             echo b > 'tests/sub/t b.py' && echo c > 'tests/[c].py' && echo d > tests/test_d.py && \
             git add -A && git -c user.name=t -c user.email=t@t commit -qm base && \
             echo changed >> tests/test_a.py && rm 'tests/sub/t b.py' && echo new > tests/test_new.py && \
             echo x > tests/c.py && rm 'tests/[c].py' && rm tests/test_d.py && ln -s /etc/passwd tests/test_d.py");
        assert!(setup.status.success(), "{setup:?}");
        let paths: Vec<String> = [
            "tests/test_a.py",
            "tests/sub/t b.py",
            "tests/test_new.py",
            "tests/[c].py",
            "tests/test_d.py",
        ]
        .iter()
        .map(|p| p.to_string())
        .collect();
        for remove_first in [false, true] {
            let lines = restore_paths(".", &paths, remove_first, StepFailure::Spec, "why");
            assert_eq!(lines.matches("git ").count(), 2, "{lines}");
            let out = sh(&format!(
                "set -u; fail() {{ echo \"FAILED $1 $2\"; exit 86; }}\n{lines}git status --porcelain"
            ));
            assert!(out.status.success(), "{out:?}");
            let status = String::from_utf8_lossy(&out.stdout);
            // Only the untouched extra file is left over; everything else is as at HEAD.
            assert_eq!(status.trim(), "?? tests/c.py", "{lines}\n{status}");
            assert!(!repo.join("tests/test_new.py").exists());
            assert!(!repo.join("tests/test_d.py").is_symlink());
            let again = sh("echo changed >> tests/test_a.py && echo new > tests/test_new.py");
            assert!(again.status.success());
        }
        // A repository without HEAD cannot be restored: the step fails with its reason.
        let lines = restore_paths(
            "/nonexistent-taskc",
            &paths,
            false,
            StepFailure::Spec,
            "why",
        );
        let out = sh(&format!(
            "fail() {{ echo \"FAILED $1 $2\"; exit 86; }}\n{lines}"
        ));
        assert_eq!(out.status.code(), Some(86), "{out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "FAILED spec why"
        );
    }
}
