//! The lock file beside a spec: written after a sound verification (the derived oracle,
//! the truth table and the digests of every input, `docs/lock.md`), and checked for
//! staleness by `taskc check`.

use std::path::PathBuf;

use taskc_compiler::lock::{
    invalid_lock_diagnostic, lock_inputs, lock_path_for, parse_lock, stale_inputs_with,
    stale_lock_diagnostic, DroppedLock, Lock, Provenance, RepoLock, TruthCell, TruthRow,
};
use taskc_compiler::lower::LowerOptions;
use taskc_compiler::model::Task;
use taskc_compiler::{Diagnostic, SourceMap};
use taskc_runtime::pipeline::VerifyOutcome;

use super::spec::Loaded;

/// The lock of a verification.
pub fn lock_of(l: &Loaded, o: &VerifyOutcome) -> Result<Lock, String> {
    let opts = LowerOptions {
        base_image_override: l.base_image_override.clone(),
        exhaustive: false,
        full: false,
        base_image_id: None,
    };
    let inputs = lock_inputs(&l.task, &opts).map_err(|e| format!("{}: {e}", l.name))?;
    let mut lock = Lock::new(&l.task.id, inputs);
    let v = &o.verification;
    for (name, oracle) in &v.oracles {
        lock.repos.insert(
            name.clone(),
            RepoLock {
                f2p: oracle.f2p.clone(),
                p2p: oracle.p2p.clone(),
                dropped: oracle
                    .dropped
                    .iter()
                    .map(|d| DroppedLock {
                        test: d.test.clone(),
                        rule: d.rule,
                    })
                    .collect(),
                skipped: oracle.skipped.clone(),
                skipped_unnamed: oracle.skipped_unnamed,
            },
        );
    }
    let images = &o.plan.images;
    lock.provenance = Provenance {
        backend: o.backend.clone(),
        taskc: env!("CARGO_PKG_VERSION").to_string(),
        images: [
            ("base", images.environment.base_image.clone()),
            ("environment", images.environment.id.clone()),
            ("task", images.task.id.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        tools: v.tools.clone(),
    };
    lock.truth = v
        .rows
        .iter()
        .map(|r| TruthRow {
            gold: r.gold.clone(),
            expected: r.expected,
            pass: r.pass,
            ok: r.ok,
            repos: r
                .cells
                .iter()
                .map(|(k, c)| {
                    (
                        k.clone(),
                        TruthCell {
                            passed: c.passed as u64,
                            failed: c.failed as u64,
                            targeted: c.targeted,
                        },
                    )
                })
                .collect(),
        })
        .collect();
    Ok(lock)
}

/// Write `<spec>.lock` beside the spec, atomically; returns its path.
pub fn write_lock(l: &Loaded, o: &VerifyOutcome) -> Result<PathBuf, String> {
    let lock = lock_of(l, o)?;
    let path = PathBuf::from(lock_path_for(&l.path.to_string_lossy()));
    taskc_runtime::atomic::write_atomic(&path, lock.to_toml().as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// W0900 / E0901 for the lock beside the spec at `path` (shown as `name`), if there is one:
/// stale when any input changed since `taskc verify` wrote it. The lock's text is added to
/// `sources` so the diagnostic can point into it.
pub fn lock_diagnostics(
    path: &std::path::Path,
    name: &str,
    task: &Task,
    base_image_override: Option<String>,
    sources: &mut SourceMap,
) -> Vec<Diagnostic> {
    let lock_path = lock_path_for(&path.to_string_lossy());
    let lock_name = lock_path_for(name);
    let Ok(text) = std::fs::read_to_string(&lock_path) else {
        return Vec::new();
    };
    let id = sources.add(lock_name.clone(), text.clone());
    let lock = match parse_lock(&text) {
        Ok(l) => l,
        Err(e) => return vec![invalid_lock_diagnostic(&lock_name, name, id, &e)],
    };
    let opts = LowerOptions {
        base_image_override,
        exhaustive: false,
        full: false,
        base_image_id: None,
    };
    match stale_inputs_with(task, &lock, &opts) {
        Ok(stale) => stale_lock_diagnostic(&lock_name, name, id, &text, &stale)
            .into_iter()
            .collect(),
        Err(_) => Vec::new(),
    }
}
