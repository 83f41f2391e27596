//! The case Dockerfiles a WideSWE case builds its test images from: `run_profile.sh` builds
//! one per runtime (`docker build -f "$task_dir/environment/elastic-java.Dockerfile" …` for
//! elasticsearch's gradle tests, `elastic-node.Dockerfile` for kibana's jest, cases 24–27,
//! 32, 33), while taskc's spec has one environment. The importer builds it from one of them
//! and says so when there are others.

/// The file names of the case Dockerfiles `script` builds (`environment/<name>.Dockerfile`),
/// each once, in the order the script names them.
pub(crate) fn dockerfiles_built(script: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (k, _) in script.match_indices("environment/") {
        let rest = &script[k + "environment/".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .collect();
        if name.len() > ".Dockerfile".len() && name.ends_with(".Dockerfile") && !out.contains(&name)
        {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dockerfiles_a_script_builds_are_named_once_each() {
        let script = "docker build -f \"$task_dir/environment/elastic-java.Dockerfile\" \"$task_dir/environment\"\n\
                      docker build -f \"$task_dir/environment/elastic-node.Dockerfile\" x\n\
                      docker build -f \"$task_dir/environment/elastic-java.Dockerfile\" y\n\
                      bash environment/run_profile.sh kibana-hidden\n";
        assert_eq!(
            dockerfiles_built(script),
            ["elastic-java.Dockerfile", "elastic-node.Dockerfile"]
        );
    }
}
