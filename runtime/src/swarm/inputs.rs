//! A run's inputs as swarm configs: one tar of the uploads, the script, the nonce and the
//! list of files to collect, split into configs under the engine's size limit and mounted
//! as root-only files under [`super::frame::INPUT_DIR`].

use crate::backend::tar_archive::{build_tar, upload_files, TarFile};
use crate::backend::{BackendError, RunRequest};

use super::frame::{CONTROL_DIR, INPUT_DIR};

/// The engine refuses a config over 500 KiB (`MaxConfigSize`); each part stays below.
pub(super) const CONFIG_PART: usize = 500 * 1024 - 1024;
/// Inputs beyond this are refused: each part is a write to the swarm's raft log.
pub(super) const MAX_INPUTS: usize = 64 * 1024 * 1024;

const UPLOAD_MTIME: i64 = crate::repo::DIR_MTIME;

/// The bytes of each config, in mount order (`part-000`, `part-001`, …).
pub(super) fn parts(req: &RunRequest, nonce: &str) -> Result<Vec<Vec<u8>>, BackendError> {
    let script = format!("{CONTROL_DIR}/script");
    let nonce_file = format!("{CONTROL_DIR}/nonce");
    let collect_file = format!("{CONTROL_DIR}/collect");
    let offline_file = format!("{CONTROL_DIR}/offline");
    let collect = req.collect.join("\n") + "\n";
    let mut files = upload_files(&req.uploads);
    let control = [
        (script.as_str(), req.script.as_bytes()),
        (nonce_file.as_str(), nonce.as_bytes()),
        (collect_file.as_str(), collect.as_bytes()),
    ];
    for (path, bytes) in control {
        files.push(TarFile {
            path: path.trim_start_matches('/'),
            bytes,
            mode: 0o400,
            mtime: UPLOAD_MTIME,
        });
    }
    // A run with services keeps its one interface: the run's internal network to them.
    if !req.network && req.services.is_empty() {
        files.push(TarFile {
            path: offline_file.trim_start_matches('/'),
            bytes: b"",
            mode: 0o400,
            mtime: UPLOAD_MTIME,
        });
    }
    let tar = build_tar(&files).map_err(|e| BackendError::InvalidRequest {
        run_id: req.run_id.clone(),
        detail: format!("cannot archive the uploads: {e}"),
    })?;
    if tar.len() > MAX_INPUTS {
        return Err(BackendError::Docker {
            op: "swarm: create configs",
            target: req.run_id.clone(),
            detail: format!(
                "the run's inputs (script and uploads) take {} bytes, over the {} bytes taskc \
                 sends as swarm configs",
                tar.len(),
                MAX_INPUTS
            ),
            help: "shrink the patches or hidden tests, or run this task on `--backend docker`"
                .into(),
        });
    }
    Ok(tar.chunks(CONFIG_PART).map(<[u8]>::to_vec).collect())
}

/// Where part `i` is mounted.
pub(super) fn mount_path(i: usize) -> String {
    format!("{INPUT_DIR}/part-{i:04}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Upload;

    #[test]
    fn large_uploads_are_split_below_the_config_limit_and_rejoin() {
        let mut req = RunRequest::new("img", "r", "s", "true");
        req.uploads = vec![Upload {
            path: "/taskc/blobs/big".into(),
            bytes: vec![7; 1_300_000],
            mode: 0o600,
        }];
        let parts = parts(&req, "n").unwrap();
        assert_eq!(parts.len(), 3);
        assert!(parts.iter().all(|p| p.len() <= CONFIG_PART));
        let joined: Vec<u8> = parts.concat();
        let got = crate::backend::tar_archive::read_collected("/", &joined).unwrap();
        assert_eq!(got["/taskc/blobs/big"].len(), 1_300_000);
        assert_eq!(got["/run/taskc-swarm/nonce"], b"n");
        assert!(got.contains_key("/run/taskc-swarm/offline"));
        assert!(mount_path(2) > mount_path(1), "mounts sort in order");
    }

    #[test]
    fn inputs_over_the_cap_are_a_clear_error() {
        let mut req = RunRequest::new("img", "r", "s", "true");
        req.uploads = vec![Upload {
            path: "/taskc/blobs/huge".into(),
            bytes: vec![0; MAX_INPUTS + 1],
            mode: 0o600,
        }];
        let err = parts(&req, "n").unwrap_err().to_string();
        assert!(err.contains("swarm: create configs"), "{err}");
    }
}
