//! How imported names become taskc names: repositories and task ids.

/// A repository name as taskc spells it.
pub(crate) fn repo_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, 'r');
    }
    s
}

/// The task id as taskc spells it (`[a-z0-9][a-z0-9._-]*`).
pub(crate) fn task_id(id: &str) -> String {
    let s: String = id
        .to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    s.trim_start_matches(['.', '_', '-']).to_string()
}
