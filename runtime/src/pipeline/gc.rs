//! `taskc gc`: find (and unless dry-running, remove) what taskc left behind that no kept
//! spec needs. Only this cache's objects: the cache's session records
//! ([`SessionRecords`]) say which sessions are its own, which still run and which images
//! they used, and the backend collects only those ([`Backend::gc`]: runs of its sessions
//! that no longer run, images they used that no kept plan, running session or container
//! needs, never the base image); the pipeline adds the stored results whose run no kept
//! plan has ([`ResultStore::gc`]), none while a session of the cache runs.

use std::collections::BTreeSet;
use std::path::Path;

use taskc_compiler::plan::Plan;

use super::PipelineError;
use crate::backend::{Backend, GcItem, GcReport, KeepImages, Ownership};
use crate::exec::{ResultStore, SessionRecords};

/// What to keep: image tags and run ids referenced by the kept specs' plans.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcKeep {
    pub images: KeepImages,
    /// Run ids: their verification results, and their scoring results for every prediction.
    pub runs: BTreeSet<String>,
    /// Verification plans with phase-2 runs: their narrowed runs' ids follow from the
    /// stored phase-1 results, so they are known only when results are collected.
    pub targeted: Vec<taskc_compiler::plan::VerifyPlan>,
}

impl GcKeep {
    /// Keep the images of `plan` and the results of its runs.
    pub fn add_plan(&mut self, plan: &Plan) {
        self.images.tags.insert(plan.images.environment.tag());
        self.images.tags.insert(plan.images.task.tag());
        for id in plan.images.services.keys() {
            self.images
                .tags
                .insert(taskc_compiler::plan::service_image_tag(id));
        }
        for node in plan.images.nodes.values() {
            self.images.tags.insert(node.tag());
        }
        for run in plan.runs() {
            self.runs.insert(run.id.clone());
        }
        if let Some(v) = plan.verify().filter(|v| !v.targeted.is_empty()) {
            self.targeted.push(v.clone());
        }
    }

    /// The narrowed runs of the kept targeted plans, from the results stored in `store`.
    fn narrowed(&self, store: &ResultStore) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for v in &self.targeted {
            let mut results = std::collections::BTreeMap::new();
            for r in &v.runs {
                let reps: Vec<_> = (0..)
                    .map_while(|k| store.get(&crate::exec::ResultKey::verify(&r.id, k)))
                    .collect();
                if !reps.is_empty() {
                    results.insert(r.id.clone(), reps);
                }
            }
            for n in crate::verify::phases::Targeting::new(v, &results).possible_narrowed() {
                out.insert(n.run.id);
            }
        }
        out
    }
}

/// Collect garbage of `backend` and of its stored results under `cache`. With `dry_run`,
/// nothing is removed.
pub async fn gc(
    backend: &dyn Backend,
    cache: &Path,
    keep: &GcKeep,
    dry_run: bool,
) -> Result<GcReport, PipelineError> {
    let records = SessionRecords::new(cache);
    let records_error = |source| PipelineError::Io {
        what: format!(
            "cannot read the session records in {}",
            records.dir().display()
        ),
        source,
    };
    let census = records.census().map_err(records_error)?;
    let mut images = keep.images.clone();
    images.owner = Ownership {
        finished_sessions: census.finished.clone(),
        live_sessions: census.live.clone(),
        images: census
            .finished_images
            .union(&census.live_images)
            .cloned()
            .collect(),
        live_images: census.live_images.clone(),
    };
    let mut report = backend.gc(&images, dry_run).await?;
    if census.live.is_empty() {
        let store = ResultStore::new(cache, backend.name());
        let mut runs = keep.runs.clone();
        runs.extend(keep.narrowed(&store));
        let found = store
            .gc(&runs, dry_run)
            .map_err(|source| PipelineError::Io {
                what: format!("cannot remove stored results in {}", store.dir().display()),
                source,
            })?;
        report
            .removed
            .extend(found.into_iter().map(|path| GcItem::Result { path }));
    } else {
        report.left_alone.push(format!(
            "the stored results: {} session(s) of this cache still run ({})",
            census.live.len(),
            census.live.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    if !dry_run {
        let removed: BTreeSet<String> = report
            .removed
            .iter()
            .filter_map(|item| match item {
                GcItem::Image { name } => Some(name.clone()),
                _ => None,
            })
            .collect();
        let still_there: BTreeSet<String> = report
            .skipped
            .iter()
            .filter_map(|(item, _)| match item {
                GcItem::Container { session, .. }
                | GcItem::Network { session, .. }
                | GcItem::Service { session, .. }
                | GcItem::Config { session, .. } => Some(session.clone()),
                _ => None,
            })
            .collect();
        records
            .retire(&census, &removed, &still_there)
            .map_err(records_error)?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::LocalBackend;

    #[test]
    fn dry_run_on_a_local_cache_lists_without_removing() {
        let cache = tempfile::tempdir().unwrap();
        let img = cache
            .path()
            .join("local/images/taskc_task_img-1-aaaaaaaaaaaa");
        let base = cache
            .path()
            .join("local/images/taskc_base_bookworm-bbbbbbbbbbbb");
        let run = cache
            .path()
            .join("local/runs/s99999999-1f-cccccccccccc/run-1");
        let res = cache.path().join("results/local/run-1.0.json");
        for d in [&img, &base, &run] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(res.parent().unwrap()).unwrap();
        std::fs::write(&res, "{}").unwrap();
        let backend = LocalBackend::new(cache.path().join("local"));
        let rt = tokio::runtime::Runtime::new().unwrap();
        let report = rt
            .block_on(gc(&backend, cache.path(), &GcKeep::default(), true))
            .unwrap();
        assert_eq!(report.removed.len(), 3, "{:?}", report.removed);
        assert!(img.exists() && run.exists() && res.exists() && base.exists());
        let report = rt
            .block_on(gc(&backend, cache.path(), &GcKeep::default(), false))
            .unwrap();
        assert_eq!(report.removed.len(), 3);
        assert!(!img.exists() && !run.parent().unwrap().exists() && !res.exists());
        assert!(base.exists(), "the base image is never removed");
    }
}
