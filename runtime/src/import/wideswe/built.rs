//! The case Dockerfiles a WideSWE case builds its test images from: `run_profile.sh` builds
//! one per runtime (`docker build -f "$task_dir/environment/elastic-java.Dockerfile" …` for
//! elasticsearch's gradle tests, `elastic-node.Dockerfile` for kibana's jest, cases 24–27,
//! 32, 33), while taskc's spec has one environment. The importer builds it from one of them
//! and says so when there are others, and when the script builds a test image from one of
//! WideSWE's own recipes (`benchmark/images/…`) that the environment is not built from.

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

/// The WideSWE recipes `script` builds a test image from (`docker build … -f
/// "$host_repo_root/benchmark/images/base/go-1.26-bookworm/Dockerfile"`, the go image of
/// cases 32 and 33), as paths under the checkout root, each once.
pub(crate) fn recipes_built(script: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (k, _) in script.match_indices("benchmark/images/") {
        let path: String = script[k..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
            .collect();
        if path.ends_with("/Dockerfile") && !out.contains(&path) {
            out.push(path);
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

    #[test]
    fn the_recipes_a_script_builds_are_named_once_each() {
        let script = "docker build -t \"$go_image\" -f \"$host_repo_root/benchmark/images/base/go-1.26-bookworm/Dockerfile\" \"$host_repo_root/benchmark/images/base/go-1.26-bookworm\"\n\
                      docker build -f \"$host_repo_root/benchmark/images/base/go-1.26-bookworm/Dockerfile\" y\n";
        assert_eq!(
            recipes_built(script),
            ["benchmark/images/base/go-1.26-bookworm/Dockerfile"]
        );
    }
}
