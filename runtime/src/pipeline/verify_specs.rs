//! `verify_specs`: everything `taskc verify` does past its arguments, as one entry point.
//! Read the imported oracle to compare with (`--compare-oracle`), open the session, and for
//! every spec verify it, compare its derived oracle, and write its lock when it is sound.
//! What happens is told as [`VerifyEvent`]s, in order; the caller renders them. One spec's
//! failure is an event and the others go on; Ctrl-C stops the whole verification.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use taskc_compiler::lower::LowerOptions;

use super::{append_run, RunCommand, RunId, RunRecord};
use super::{
    open_session, verify, write_lock, CheckedSpec, PipelineError, Selection, SessionOptions,
    TimeoutMultiplier, VerifyOptions, VerifyOutcome,
};
use crate::canary::{summarise, CanarySummary};
use crate::import::oracle::{self, Oracle, RepoAgreement};

/// What `taskc verify` asks besides its specs.
#[derive(Debug, Clone)]
pub struct VerifySpecsOptions {
    /// Backend, jobs, cache and progress style of the session.
    pub session: SessionOptions,
    /// Check the `uses` declarations too (every target against every gold subset).
    pub exhaustive: bool,
    /// Run the full hidden-test command in every configuration.
    pub full: bool,
    /// Run every run this many times (≥ 1) to find flaky tests.
    pub repeat: usize,
    /// Write the lock of every sound spec beside it.
    pub write_lock: bool,
    /// An imported oracle file (`taskc import` writes `<task>.oracle.toml`) every derived
    /// oracle is compared with.
    pub compare_oracle: Option<PathBuf>,
    /// The tasks verified (`--task`, `--exclude-task`).
    pub selection: Selection,
    /// Every test step's limit × this (`--timeout-multiplier`).
    pub timeout_multiplier: TimeoutMultiplier,
    /// `--run-id`; `None`: one is generated.
    pub run_id: Option<RunId>,
}

/// The derived oracle against the imported one, per repository.
#[derive(Debug, Clone)]
pub struct OracleComparison {
    pub rows: Vec<RepoAgreement>,
    /// Every repository agrees.
    pub agree: bool,
}

/// What happened, in the order it happened.
#[derive(Debug)]
pub enum VerifyEvent<'a> {
    /// `--task` / `--exclude-task` kept `kept` of the `of` specs given (told only when a
    /// selection was asked for; `kept == 0` means nothing is verified).
    Selected { kept: usize, of: usize },
    /// How the backend was chosen (`--backend auto` fell back, or local is unsandboxed).
    BackendNote(&'a str),
    /// One spec verified (sound or not), with its canary record per repository and, when
    /// an imported oracle was given, the comparison with it.
    Verified {
        spec: &'a CheckedSpec,
        outcome: &'a VerifyOutcome,
        canaries: &'a BTreeMap<String, CanarySummary>,
        comparison: Option<&'a OracleComparison>,
    },
    /// The lock of a sound spec was written to `path`.
    LockWritten {
        spec: &'a CheckedSpec,
        path: &'a Path,
    },
    /// The lock of a sound spec could not be written.
    LockFailed {
        spec: &'a CheckedSpec,
        error: PipelineError,
    },
    /// The run was appended to the index of runs at `index` (or could not be: the error).
    RunRecorded {
        record: &'a RunRecord,
        index: Result<PathBuf, PipelineError>,
    },
    /// The verification of one spec could not run; the others go on (unless interrupted).
    SpecFailed {
        spec: &'a CheckedSpec,
        error: PipelineError,
    },
}

/// Why an imported oracle file cannot be compared with.
#[derive(Debug, thiserror::Error)]
pub enum OracleFileError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not an oracle file: {detail}", path.display())]
    Parse { path: PathBuf, detail: String },
}

impl OracleFileError {
    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            OracleFileError::Read { .. } => None,
            OracleFileError::Parse { .. } => {
                Some("`taskc import` writes <task>.oracle.toml beside the spec".to_string())
            }
        }
    }
}

/// Why nothing could be verified.
#[derive(Debug, thiserror::Error)]
pub enum VerifySpecsError {
    /// The imported oracle to compare with cannot be read.
    #[error(transparent)]
    Oracle(OracleFileError),
    /// No backend opens.
    #[error(transparent)]
    Session(PipelineError),
}

/// How a verification ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyEnd {
    /// No spec to verify: nothing was read or opened.
    NothingToVerify,
    /// Ctrl-C: finished runs are kept.
    Interrupted,
    /// Every spec was verified or failed (told by events).
    Done {
        /// Specs verified unsound.
        unsound: usize,
        /// Specs whose derived oracle differs from the imported one.
        oracle_differs: usize,
    },
}

/// Read an imported oracle file.
fn read_oracle(path: &Path) -> Result<Oracle, OracleFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| OracleFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    oracle::parse_oracle(&text).map_err(|e| OracleFileError::Parse {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

/// The derived oracle of `outcome` against `imported`.
fn compare(imported: &Oracle, outcome: &VerifyOutcome) -> OracleComparison {
    let derived: BTreeMap<String, (Vec<String>, Vec<String>)> = outcome
        .verification
        .oracles
        .iter()
        .map(|(k, o)| (k.clone(), (o.f2p.clone(), o.p2p.clone())))
        .collect();
    let rows = oracle::compare(imported, &derived);
    let agree = rows.iter().all(|r| r.agrees());
    OracleComparison { rows, agree }
}

/// Verify `specs` as `opts` asks, telling `on_event` what happens.
pub async fn verify_specs(
    specs: &[CheckedSpec],
    opts: &VerifySpecsOptions,
    on_event: &mut (dyn FnMut(VerifyEvent<'_>) + Send),
) -> Result<VerifyEnd, VerifySpecsError> {
    let sel = &opts.selection;
    let of = specs.len();
    let specs: Vec<&CheckedSpec> = sel.pick(specs, |s| &s.task.id);
    if !sel.is_all() {
        on_event(VerifyEvent::Selected {
            kept: specs.len(),
            of,
        });
    }
    if specs.is_empty() {
        return Ok(VerifyEnd::NothingToVerify);
    }
    let imported = match &opts.compare_oracle {
        Some(path) => Some(read_oracle(path).map_err(VerifySpecsError::Oracle)?),
        None => None,
    };
    let opened = open_session(&opts.session)
        .await
        .map_err(VerifySpecsError::Session)?;
    if let Some(note) = &opened.note {
        on_event(VerifyEvent::BackendNote(note));
    }
    let session = opened.session;
    let mut record = RunRecord::start(
        opts.run_id.clone().unwrap_or_else(RunId::generate),
        RunCommand::Verify,
        session.backend.name(),
        sel,
        opts.timeout_multiplier,
    );
    let (mut unsound, mut oracle_differs) = (0, 0);
    for spec in specs {
        let verify_opts = VerifyOptions {
            lower: LowerOptions {
                exhaustive: opts.exhaustive,
                full: opts.full,
                ..spec.lower_options()
            },
            repeat: opts.repeat,
            site: spec.site.clone(),
        };
        let outcome = match verify(
            &session,
            &opts.timeout_multiplier.apply(&spec.task),
            &spec.dir,
            &verify_opts,
        )
        .await
        {
            Ok(outcome) => outcome,
            Err(error) => {
                let interrupted = error.is_interrupted();
                on_event(VerifyEvent::SpecFailed { spec, error });
                if interrupted {
                    return Ok(VerifyEnd::Interrupted);
                }
                continue;
            }
        };
        let sound = outcome.verification.is_sound();
        let canaries = summarise(&outcome.execution.results);
        let comparison = imported.as_ref().map(|o| compare(o, &outcome));
        on_event(VerifyEvent::Verified {
            spec,
            outcome: &outcome,
            canaries: &canaries,
            comparison: comparison.as_ref(),
        });
        if comparison.is_some_and(|c| !c.agree) {
            oracle_differs += 1;
        }
        if !sound {
            unsound += 1;
        } else if opts.write_lock {
            match write_lock(
                &spec.path,
                &spec.task,
                spec.base_image_override.clone(),
                &outcome,
            ) {
                Ok(path) => {
                    if let Ok(bytes) = std::fs::read(&path) {
                        record.locks.insert(
                            spec.task.id.clone(),
                            taskc_compiler::plan::sha256_hex(&bytes),
                        );
                    }
                    on_event(VerifyEvent::LockWritten { spec, path: &path })
                }
                Err(error) => on_event(VerifyEvent::LockFailed { spec, error }),
            }
        }
    }
    let index = append_run(&session.cache, &record);
    on_event(VerifyEvent::RunRecorded {
        record: &record,
        index,
    });
    Ok(VerifyEnd::Done {
        unsound,
        oracle_differs,
    })
}
