//! Recording a sound verification as the lock beside its spec (`Verification → Lock`,
//! `docs/lock.md`): the derived oracle per target, the truth table, the provenance and the
//! digests of every input, written atomically.

use std::path::{Path, PathBuf};

use taskc_compiler::lock::{
    lock_inputs, lock_path_for, parse_lock, DroppedLock, Lock, Provenance, RepoLock, TruthCell,
    TruthRow,
};
use taskc_compiler::lower::LowerOptions;
use taskc_compiler::model::Task;

use super::{PipelineError, VerifyOutcome};

/// The lock of `outcome`, the verification of `task` (lowered with `base_image_override`,
/// as `verify` lowered it).
pub fn lock_of(
    task: &Task,
    base_image_override: Option<String>,
    outcome: &VerifyOutcome,
) -> Result<Lock, PipelineError> {
    let opts = LowerOptions {
        base_image_override,
        exhaustive: false,
        full: false,
        base_image_id: None,
        stand_ins: Default::default(),
        base_digests: Default::default(),
        image_ids: Default::default(),
    };
    let mut lock = Lock::new(&task.id, lock_inputs(task, &opts)?);
    let v = &outcome.verification;
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
    let images = &outcome.plan.images;
    // A stand-in (`[images.map]`) is recorded beside what it stood in for, so a reviewer
    // sees that the oracle came from `taskc-standin/python:3.12`, not `python:3.12-bookworm`.
    let stood_in = images
        .environment
        .stands_in_for
        .iter()
        .map(|named| ("base-stands-in-for".to_string(), named.clone()))
        // … and each `FROM` image of a curator's Dockerfile it stood in for.
        .chain(
            images
                .environment
                .from_stand_ins
                .iter()
                .map(|(named, used)| (format!("from-stand-in:{named}"), used.clone())),
        );
    lock.provenance = Provenance {
        backend: outcome.backend.clone(),
        taskc: env!("CARGO_PKG_VERSION").to_string(),
        images: [
            ("base", images.environment.base_image.clone()),
            ("environment", images.environment.id.clone()),
            ("task", images.task.id.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .chain(stood_in)
        .collect(),
        tools: v.tools.clone(),
    };
    // The base images pulled by digest: a later build uses these digests.
    lock.base_images = images.environment.from_digests.clone();
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
                            passed: count(c.passed),
                            failed: count(c.failed),
                            targeted: c.basis.is_narrowed(),
                            not_run: c.basis == crate::verify::Basis::NotRun,
                        },
                    )
                })
                .collect(),
        })
        .collect();
    Ok(lock)
}

/// A test count as the lock stores it (`usize` is never wider than 64 bits here).
fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Write the lock of `outcome` beside the spec at `spec_path`, atomically; its path.
pub fn write_lock(
    spec_path: &Path,
    task: &Task,
    base_image_override: Option<String>,
    outcome: &VerifyOutcome,
) -> Result<PathBuf, PipelineError> {
    let lock = lock_of(task, base_image_override, outcome)?;
    let path = PathBuf::from(lock_path_for(&spec_path.to_string_lossy()));
    let existing = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| parse_lock(&text).ok());
    if existing.is_some_and(|old| same_but_machine_images(&old, &lock)) {
        // Only the machine's own image ids differ (a locally bootstrapped base image gives
        // every image another content id): the lock on disk says the same, and a checkout
        // stays clean after `verify` on a new machine.
        return Ok(path);
    }
    crate::atomic::write_atomic(&path, lock.to_toml().as_bytes()).map_err(|source| {
        PipelineError::Io {
            what: format!("cannot write {}", path.display()),
            source,
        }
    })?;
    Ok(path)
}

/// Whether `old` and `new` differ at most in the provenance's image ids, which name images
/// of the machine that verified (built on its own bootstrapped base image), not the oracle.
fn same_but_machine_images(old: &Lock, new: &Lock) -> bool {
    let mut old = old.clone();
    old.provenance.images = new.provenance.images.clone();
    old == *new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_machine_image_ids_keep_the_lock_on_disk() {
        let mut old = Lock::new("t", Default::default());
        old.provenance
            .images
            .insert("task".into(), "img-aaaa".into());
        old.provenance
            .images
            .insert("base-id".into(), "sha256:1".into());
        let mut new = old.clone();
        new.provenance
            .images
            .insert("task".into(), "img-bbbb".into());
        new.provenance.images.remove("base-id");
        assert!(same_but_machine_images(&old, &new));
        new.provenance.tools.insert("r".into(), "pytest 8".into());
        assert!(!same_but_machine_images(&old, &new));
        let mut other = old.clone();
        other.repos.insert("r".into(), RepoLock::default());
        assert!(!same_but_machine_images(&old, &other));
    }
}
