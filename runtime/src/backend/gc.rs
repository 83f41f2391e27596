//! What [`super::Backend::gc`] is asked to keep and what it reports: the objects a backend
//! left behind (containers or run folders of sessions that no longer run, images no kept
//! plan references), removed or, dry-running, listed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Tag prefix of the base image, which gc never removes.
pub const BASE_IMAGE_PREFIX: &str = "taskc/base:";

/// One object gc removed (or, dry-running, would remove).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum GcItem {
    /// A container of a session that no longer runs.
    Container { id: String, session: String },
    /// An image (by tag, or by id when untagged) taskc built.
    Image { name: String },
    /// A local backend image folder.
    ImageFolder { path: PathBuf },
    /// A local backend run folder of a session that no longer runs.
    RunFolder { path: PathBuf },
    /// A stored result or log file.
    Result { path: PathBuf },
    /// A swarm service (one run) of a session that no longer runs.
    Service { id: String, session: String },
    /// A swarm config (a run's inputs) of a session that no longer runs.
    Config { id: String, session: String },
    /// A run's private network to its services, of a session that no longer runs.
    Network { name: String, session: String },
}

impl std::fmt::Display for GcItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GcItem::Container { id, session } => {
                let short = id.get(..12).unwrap_or(id);
                write!(f, "container {short} (session {session})")
            }
            GcItem::Image { name } => write!(f, "image {name}"),
            GcItem::Network { name, session } => {
                write!(f, "network {name} (session {session})")
            }
            GcItem::ImageFolder { path } => write!(f, "local image {}", path.display()),
            GcItem::RunFolder { path } => write!(f, "local run {}", path.display()),
            GcItem::Result { path } => write!(f, "result {}", path.display()),
            GcItem::Service { id, session } => {
                write!(f, "swarm service {} (session {session})", short(id))
            }
            GcItem::Config { id, session } => {
                write!(f, "swarm config {} (session {session})", short(id))
            }
        }
    }
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// What one gc found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GcReport {
    /// Removed, or with `dry_run` to be removed.
    pub removed: Vec<GcItem>,
    /// Objects that could not be removed (e.g. an image still in use), with the reason.
    pub skipped: Vec<(GcItem, String)>,
    /// What gc left alone on purpose, one line each (objects of running sessions or of other
    /// caches): never removed, so not listed one by one.
    pub left_alone: Vec<String>,
    pub dry_run: bool,
}

impl GcReport {
    /// An empty report.
    pub fn new(dry_run: bool) -> GcReport {
        GcReport {
            dry_run,
            ..GcReport::default()
        }
    }

    /// Add what `other` found.
    pub fn extend(&mut self, other: GcReport) {
        self.removed.extend(other.removed);
        self.skipped.extend(other.skipped);
        self.left_alone.extend(other.left_alone);
    }
}

/// What gc must keep on a backend: the tags of the images kept plans use (the base image
/// always stays, whatever this says), and whose objects it may touch at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeepImages {
    pub tags: BTreeSet<String>,
    pub owner: Ownership,
}

impl KeepImages {
    /// Whether gc keeps the image tagged `tag`.
    pub fn keeps(&self, tag: &str) -> bool {
        tag.starts_with(BASE_IMAGE_PREFIX)
            || self.tags.contains(tag)
            || self.owner.live_images.contains(tag)
    }

    /// Whether gc may remove the engine image tagged `tag`: this cache's sessions used it,
    /// none that still runs did, and no kept plan needs it. (Whether a container uses it is
    /// the backend's to check.)
    pub fn may_remove_image(&self, tag: &str) -> bool {
        self.owner.images.contains(tag) && !self.keeps(tag)
    }

    /// Whether gc may remove the engine objects labelled with session `session`: a session
    /// of this cache that no longer runs.
    pub fn may_remove_session(&self, session: &str) -> bool {
        self.owner.finished_sessions.contains(session)
            && !self.owner.live_sessions.contains(session)
            && !session_is_live(session)
    }
}

/// Whose objects a gc may touch on a shared engine: those of the sessions recorded in the
/// cache it runs for (see `exec::SessionRecords`). Objects of other sessions (another
/// cache's, another user's, or of a session still running) stay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ownership {
    /// Sessions of this cache that ended.
    pub finished_sessions: BTreeSet<String>,
    /// Sessions of this cache that still run.
    pub live_sessions: BTreeSet<String>,
    /// Image tags this cache's sessions used.
    pub images: BTreeSet<String>,
    /// Image tags this cache's running sessions use: kept whatever else says.
    pub live_images: BTreeSet<String>,
}

/// Whether the taskc session `id` (`s<pid>-<hex>`) belongs to a process running on this host.
/// Ids taskc did not write are not ours to judge: they count as live.
pub fn session_is_live(id: &str) -> bool {
    let Some(pid) = id
        .strip_prefix('s')
        .and_then(|rest| rest.split('-').next())
        .and_then(|pid| pid.parse::<u32>().ok())
    else {
        return true;
    };
    pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_of_this_process_are_live_and_of_a_dead_pid_are_not() {
        assert!(session_is_live(&format!("s{}-abc", std::process::id())));
        // pid_max on Linux is at most 2^22: this pid cannot exist.
        assert!(!session_is_live("s99999999-abc"));
        // Labels taskc did not write are kept.
        assert!(session_is_live("someone-else"));
    }

    #[test]
    fn the_base_image_is_always_kept() {
        let keep = KeepImages::default();
        assert!(keep.keeps("taskc/base:bookworm"));
        assert!(!keep.keeps("taskc/task:img-1"));
    }

    #[test]
    fn only_this_caches_finished_sessions_and_unkept_images_may_go() {
        let mut keep = KeepImages::default();
        keep.owner.finished_sessions.insert("s99999999-a".into());
        keep.owner.live_sessions.insert("s99999998-b".into());
        keep.owner.images.insert("taskc/task:mine".into());
        keep.owner.images.insert("taskc/task:live".into());
        keep.owner.live_images.insert("taskc/task:live".into());
        assert!(keep.may_remove_session("s99999999-a"));
        assert!(!keep.may_remove_session("s99999998-b"), "still running");
        assert!(!keep.may_remove_session("s99999997-c"), "another cache's");
        assert!(keep.may_remove_image("taskc/task:mine"));
        assert!(
            !keep.may_remove_image("taskc/task:live"),
            "a running session's"
        );
        assert!(
            !keep.may_remove_image("taskc/task:other"),
            "another cache's"
        );
    }
}
