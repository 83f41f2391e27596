//! Turning a plan [`Run`] into the bash script a backend executes, the files uploaded
//! into the run (patches, hidden tests: never baked into an image), and the files read
//! back. Every absolute path in the script is prefixed with `$TASKC_ROOT`, empty in a
//! container and the workspace folder on the local backend.

use std::collections::BTreeMap;

use taskc_compiler::plan::{Run, Step};

use super::surface;
use crate::backend::Upload;
use crate::canary;

/// Where uploads land and where a run writes what it reports.
pub const BLOB_DIR: &str = "/taskc/blobs";
pub const OUT_DIR: &str = "/taskc/out";
/// Exit status the script uses when a preparation step fails.
pub const STEP_FAILED: i64 = 86;
/// File under [`OUT_DIR`] a failed step writes: who caused it (a [`StepFailure`]), a
/// newline, then the message.
pub const FAILED_FILE: &str = "failed";

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

/// Quote `s` for bash as one word.
pub fn sh_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn repo_dir(repo: &str) -> String {
    format!("\"$TASKC_ROOT\"/work/{}", sh_quote(repo))
}

/// Files of one repository's test step that the run reports.
pub fn out_files(repo: &str) -> [String; 3] {
    [
        format!("{OUT_DIR}/{repo}.log"),
        format!("{OUT_DIR}/{repo}.exit"),
        format!("{OUT_DIR}/{repo}.ms"),
    ]
}

/// Build the script for `run`. `predictions` holds the agent's patch per repository, used
/// by `apply-prediction` steps (a repository without one is left as it is).
pub fn build(
    run: &Run,
    blobs: &BTreeMap<String, String>,
    predictions: &BTreeMap<String, String>,
    canaries: &canary::Placement,
) -> Result<RunScript, ScriptError> {
    let mut uploads: Vec<Upload> = Vec::new();
    let mut upload = |name: String, text: &str| -> String {
        let path = format!("{BLOB_DIR}/{name}");
        if !uploads.iter().any(|u| u.path == path) {
            uploads.push(Upload {
                path: path.clone(),
                bytes: text.as_bytes().to_vec(),
                mode: 0o644,
            });
        }
        format!("\"$TASKC_ROOT\"{path}")
    };
    let blob = |d: &str| {
        blobs
            .get(d)
            .ok_or_else(|| ScriptError::MissingBlob(d.to_string()))
    };

    let mut s = String::new();
    s.push_str("set +e\n");
    s.push_str("export TASKC_ROOT=\"${TASKC_ROOT:-}\"\n");
    s.push_str(&format!(
        "OUT=\"$TASKC_ROOT\"{OUT_DIR}\nmkdir -p \"$OUT\"\n"
    ));
    // `fail WHO MESSAGE`: WHO says who caused it (see [`StepFailure`]).
    s.push_str(&format!(
        "fail() {{ printf '%s\\n%s\\n' \"$1\" \"$2\" > \"$OUT/{FAILED_FILE}\"; exit {STEP_FAILED}; }}\n"
    ));
    s.push_str(
        "apply() { git -C \"$1\" apply --whitespace=nowarn \"$2\" 2> \"$OUT/apply.err\" \
         || fail \"$3\" \"$4: $(head -c 400 \"$OUT/apply.err\")\"; }\n",
    );
    // Once the prediction's patches are in, a hidden-test step that fails is theirs to answer for.
    let after_prediction = run.steps.iter().any(|st| {
        matches!(st, Step::ApplyPrediction { repo }
            if predictions.get(repo).is_some_and(|p| !p.trim().is_empty()))
    });
    let tests_who = if after_prediction {
        StepFailure::AfterPrediction
    } else {
        StepFailure::Spec
    }
    .as_str();
    for step in &run.steps {
        match step {
            Step::ApplyGold { repo, blob: d } => {
                let f = upload(format!("{d}.patch"), blob(d)?);
                let why = sh_quote(&format!("the gold patch of `{repo}` does not apply"));
                let who = StepFailure::Spec.as_str();
                s.push_str(&format!("apply {} {f} {who} {why}\n", repo_dir(repo)));
            }
            Step::ApplyPrediction { repo } => {
                if let Some(p) = predictions.get(repo).filter(|p| !p.trim().is_empty()) {
                    let f = upload(format!("prediction-{repo}.patch"), p);
                    let why = sh_quote(&format!(
                        "the prediction's patch for `{repo}` does not apply"
                    ));
                    let who = format!("{}:{}", StepFailure::Prediction.as_str(), repo);
                    s.push_str(&format!(
                        "apply {} {f} {} {why}\n",
                        repo_dir(repo),
                        sh_quote(&who)
                    ));
                }
            }
            Step::RestoreSurface { repo, globs } => {
                if let Some(p) = predictions.get(repo).filter(|p| !p.trim().is_empty()) {
                    s.push_str(&surface::restore_script(repo, &repo_dir(repo), globs, p));
                }
            }
            Step::RestoreFiles { repo, paths } => {
                for p in paths {
                    let q = sh_quote(p);
                    s.push_str(&format!(
                        "( cd {d} && if git cat-file -e HEAD:{q} 2>/dev/null; then git checkout -q HEAD -- {q}; else rm -rf -- {q}; fi ) \
                         || fail {tests_who} {why}\n",
                        d = repo_dir(repo),
                        why = sh_quote(&format!("could not restore `{p}` in `{repo}`")),
                    ));
                }
            }
            Step::ApplyTests { repo, blob: d } => {
                let f = upload(format!("{d}.patch"), blob(d)?);
                let why = sh_quote(&format!("the hidden test patch of `{repo}` does not apply"));
                s.push_str(&format!("apply {} {f} {tests_who} {why}\n", repo_dir(repo)));
            }
        }
    }
    // Canaries, written into the hidden test files just applied (their uploads are blobs).
    s.push_str(&canaries.script);
    uploads.extend(canaries.uploads.iter().cloned());
    // The whole output folder in one request: each collected path costs a round trip.
    let collect = vec![OUT_DIR.to_string()];
    for t in &run.tests {
        let [log, exit, ms] = out_files(&t.repo);
        let rel = |p: &str| format!("\"$TASKC_ROOT\"{p}");
        s.push_str(&format!(
            "cd \"$TASKC_ROOT\"{wd} || fail {harness} {why}\n\
             start=$(date +%s%N)\n\
             timeout -k 5 {secs} bash -c {cmd} > {log} 2>&1 < /dev/null\n\
             echo $? > {exit}\n\
             echo $(( ($(date +%s%N) - start) / 1000000 )) > {ms}\n",
            wd = sh_quote(&t.workdir),
            why = sh_quote(&format!("no folder {}", t.workdir)),
            harness = StepFailure::Harness.as_str(),
            secs = t.timeout_secs,
            cmd = sh_quote(&t.command),
            log = rel(&log),
            exit = rel(&exit),
            ms = rel(&ms),
        ));
    }
    s.push_str("exit 0\n");
    Ok(RunScript {
        script: s,
        uploads,
        collect,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_words_and_escapes_quotes() {
        assert_eq!(sh_quote("tests/a.py"), "tests/a.py");
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
    }
}
