//! Run results stored by backend and [`ResultKey`] (run id, prediction when scoring,
//! repetition), written atomically so an interrupted session keeps every finished result
//! and a re-run resumes.
//!
//! Files under `<cache>/results/<backend>/`: `<key>.json` (the [`RunResult`]) and
//! `<key>.<name>.log` (the logs of repository `name`, and `run` for the script's own
//! output), where `<key>` is the key's [`Display`](std::fmt::Display) form. The store owns
//! that convention: nothing else formats or parses these names.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::results::{RunResult, RESULT_SCHEMA};

/// Which stored result: one repetition of one plan run, for one prediction when scoring.
///
/// Written `<run>[-<prediction>].<repetition>`, e.g. `run-0123456789abcdef.0` or
/// `run-0123456789abcdef-pred-fedcba9876543210.2`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResultKey {
    /// The plan's run id (`run-<16 hex>`).
    pub run: String,
    /// The prediction's short id (`pred-<16 hex>`) when scoring; `None` when verifying.
    pub prediction: Option<String>,
    /// Which repetition (`verify --repeat`), from 0.
    pub repetition: usize,
}

/// Separates a run id from a prediction id in a key.
const PREDICTION_SEPARATOR: &str = "-pred-";

impl ResultKey {
    /// The key of repetition `repetition` of verification run `run`.
    pub fn verify(run: &str, repetition: usize) -> ResultKey {
        ResultKey {
            run: run.to_string(),
            prediction: None,
            repetition,
        }
    }

    /// The key of scoring run `run` for the prediction with short id `prediction`.
    pub fn score(run: &str, prediction: &str, repetition: usize) -> ResultKey {
        ResultKey {
            run: run.to_string(),
            prediction: Some(prediction.to_string()),
            repetition,
        }
    }

    /// What every repetition shares, `<run>[-<prediction>]`: the `run` field of a stored
    /// [`RunResult`] and the key of an execution's results.
    pub fn subject(&self) -> String {
        match &self.prediction {
            None => self.run.clone(),
            Some(p) => format!("{}-{p}", self.run),
        }
    }

    /// The same run and prediction, another repetition.
    pub fn repetition(&self, repetition: usize) -> ResultKey {
        ResultKey {
            repetition,
            ..self.clone()
        }
    }

    /// Parse the [`Display`](std::fmt::Display) form; `None` for anything else.
    pub fn parse(text: &str) -> Option<ResultKey> {
        let (subject, repetition) = text.rsplit_once('.')?;
        let repetition = repetition.parse().ok()?;
        if subject.is_empty() || subject.contains('.') {
            return None;
        }
        let (run, prediction) = match subject.split_once(PREDICTION_SEPARATOR) {
            Some((run, digest)) if !run.is_empty() && !digest.is_empty() => {
                (run, Some(format!("pred-{digest}")))
            }
            Some(_) => return None,
            None => (subject, None),
        };
        Some(ResultKey {
            run: run.to_string(),
            prediction,
            repetition,
        })
    }

    /// The key a store file name belongs to: `<key>.json` or `<key>.<name>.log`.
    pub fn of_file_name(name: &str) -> Option<ResultKey> {
        if let Some(stem) = name.strip_suffix(".json") {
            return ResultKey::parse(stem);
        }
        let stem = name.strip_suffix(".log")?;
        let (key, log) = stem.rsplit_once('.')?;
        if log.is_empty() {
            return None;
        }
        ResultKey::parse(key)
    }
}

impl std::fmt::Display for ResultKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.subject(), self.repetition)
    }
}

#[derive(Debug, Clone)]
pub struct ResultStore {
    dir: PathBuf,
    cache: PathBuf,
}

impl ResultStore {
    /// Results of `backend` under `<cache>/results/<backend>/`.
    pub fn new(cache: &Path, backend: &str) -> ResultStore {
        ResultStore {
            dir: cache.join("results").join(backend),
            cache: cache.to_path_buf(),
        }
    }

    /// The cache folder the results are under.
    pub fn cache(&self) -> &Path {
        &self.cache
    }

    /// The folder holding this backend's results.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &ResultKey) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The stored result, if any (an unreadable or foreign file counts as absent).
    pub fn get(&self, key: &ResultKey) -> Option<RunResult> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        let r: RunResult = serde_json::from_str(&text).ok()?;
        (r.schema == RESULT_SCHEMA && r.run == key.subject()).then_some(r)
    }

    /// Forget a stored result (to run it again); its logs stay until overwritten.
    pub fn forget(&self, key: &ResultKey) -> std::io::Result<()> {
        match std::fs::remove_file(self.path(key)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Store `result` under `key`, atomically.
    pub fn put(&self, key: &ResultKey, result: &RunResult) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let json = serde_json::to_vec_pretty(result).map_err(std::io::Error::other)?;
        crate::atomic::write_atomic(&self.path(key), &json)
    }

    /// Store the logs of one run (`name` is a repository, or `run` for the script's own
    /// output), atomically. Written before the result, so a stored result always has its
    /// logs.
    pub fn put_logs(&self, key: &ResultKey, logs: &[(String, Vec<u8>)]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        for (name, bytes) in logs {
            crate::atomic::write_atomic(&self.log_path(key, name), bytes)?;
        }
        Ok(())
    }

    /// Where a run's log streams while it runs (in the store's folder, so keeping it is a
    /// rename); a stale one is removed by [`ResultStore::gc`].
    pub fn partial_log(&self, key: &ResultKey) -> PathBuf {
        // Best effort: a folder that cannot be created fails the backend's write, reported.
        let _ = std::fs::create_dir_all(&self.dir);
        self.dir
            .join(format!("{}partial-{key}.log", crate::atomic::TEMP_PREFIX))
    }

    /// Keep the streamed log `partial` as the log of `name` (the repository under test).
    pub fn keep_log(&self, key: &ResultKey, name: &str, partial: &Path) -> std::io::Result<()> {
        crate::atomic::keep_durably(partial, &self.log_path(key, name))
    }

    /// Where the log of `name` (a repository or `run`) of a stored run is.
    pub fn log_path(&self, key: &ResultKey, name: &str) -> PathBuf {
        self.dir.join(format!("{key}.{name}.log"))
    }

    /// Every stored scoring result of the prediction with short id `prediction` (first
    /// repetition), sorted by key: what `score --regrade` looks for a run's equal in. An
    /// unreadable or foreign file is left out.
    pub fn scored_results(&self, prediction: &str) -> Vec<(ResultKey, RunResult)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<(ResultKey, RunResult)> = entries
            .filter_map(|e| {
                let name = e.ok()?.file_name().to_string_lossy().into_owned();
                let key = ResultKey::parse(name.strip_suffix(".json")?)?;
                (key.prediction.as_deref() == Some(prediction) && key.repetition == 0)
                    .then_some(())?;
                let r = self.get(&key)?;
                Some((key, r))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The stored files (results and logs) whose run id is not in `keep`, sorted; removed
    /// unless `dry_run`. Files the store did not write are left alone, except temporary
    /// files of an interrupted write.
    pub fn gc(&self, keep: &BTreeSet<String>, dry_run: bool) -> std::io::Result<Vec<PathBuf>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut found = Vec::new();
        for e in entries {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            let stale = match ResultKey::of_file_name(&name) {
                Some(key) => !keep.contains(&key.run),
                None => name.starts_with(crate::atomic::TEMP_PREFIX),
            };
            if stale {
                found.push(e.path());
            }
        }
        found.sort();
        if !dry_run {
            for path in &found {
                match std::fs::remove_file(path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_print_and_parse_back() {
        let v = ResultKey::verify("run-0123456789abcdef", 2);
        assert_eq!(v.to_string(), "run-0123456789abcdef.2");
        assert_eq!(ResultKey::parse(&v.to_string()), Some(v.clone()));
        let s = ResultKey::score("run-0123456789abcdef", "pred-fedcba9876543210", 0);
        assert_eq!(
            s.to_string(),
            "run-0123456789abcdef-pred-fedcba9876543210.0"
        );
        assert_eq!(s.subject(), "run-0123456789abcdef-pred-fedcba9876543210");
        assert_eq!(ResultKey::parse(&s.to_string()), Some(s.clone()));
        assert_eq!(
            ResultKey::of_file_name("run-0123456789abcdef-pred-fedcba9876543210.0.json"),
            Some(s.clone())
        );
        assert_eq!(
            ResultKey::of_file_name("run-0123456789abcdef-pred-fedcba9876543210.0.proxy.log"),
            Some(s)
        );
        assert_eq!(
            ResultKey::of_file_name("run-0123456789abcdef.2.run.log"),
            Some(v)
        );
        for bad in [
            "",
            "run",
            "run.x",
            ".0",
            "-pred-x.0",
            "run-pred-.0",
            "a.b.0",
        ] {
            assert_eq!(ResultKey::parse(bad), None, "{bad}");
        }
        assert_eq!(ResultKey::of_file_name("run-1.0..log"), None);
        assert_eq!(ResultKey::of_file_name("notes.txt"), None);
    }

    fn result(subject: &str) -> RunResult {
        RunResult {
            schema: RESULT_SCHEMA.into(),
            run: subject.into(),
            backend: "local".into(),
            failure: None,
            repos: Default::default(),
            wall_ms: 0,
            logs: Default::default(),
            executed: None,
        }
    }

    #[test]
    fn gc_keeps_the_scoring_results_of_a_kept_run() {
        let cache = tempfile::tempdir().unwrap();
        let store = ResultStore::new(cache.path(), "local");
        let kept = ResultKey::verify("run-1111111111111111", 0);
        let scored = ResultKey::score("run-1111111111111111", "pred-2222222222222222", 0);
        let other = ResultKey::score("run-3333333333333333", "pred-2222222222222222", 0);
        for k in [&kept, &scored, &other] {
            store
                .put_logs(k, &[("run".into(), b"log".to_vec())])
                .unwrap();
            store.put(k, &result(&k.subject())).unwrap();
        }
        std::fs::write(store.dir().join("notes.txt"), "mine").unwrap();
        let keep: BTreeSet<String> = ["run-1111111111111111".to_string()].into();
        let dry = store.gc(&keep, true).unwrap();
        assert_eq!(dry.len(), 2, "{dry:?}");
        assert!(store.get(&other).is_some());
        let removed = store.gc(&keep, false).unwrap();
        assert_eq!(removed, dry);
        assert!(store.get(&kept).is_some());
        assert!(
            store.get(&scored).is_some(),
            "a kept run's scoring result stays"
        );
        assert!(store.get(&other).is_none());
        assert!(store.dir().join("notes.txt").exists());
    }
}
