//! A profile whose command runs a script baked into its image (`bash
//! /opt/ecosync/run-laravel-profile.sh ranger-hidden`, WideSWE cases 48, 49 and the laravel
//! ranger/wayfinder cases) when a Dockerfile of the case's `environment/` copies that script
//! from the case's own folder (`COPY run_laravel_profile_inside.sh
//! /opt/ecosync/run-laravel-profile.sh`): the importer reads that file as it reads
//! `run_profile.sh` (`script::test_command_noted`). Without such a `COPY` line the script is
//! not guessed at by its name: the profile stays refused.

use std::path::Path;

/// The script `command` runs (`bash /opt/x/run.sh a b`, `/opt/x/run.sh a`): its path, when the
/// command is nothing else.
pub(crate) fn script_of(command: &str) -> Option<String> {
    let ws = super::script::words(command.trim());
    let rest: &[String] = match ws.first().map(String::as_str) {
        Some("bash" | "sh") => &ws[1..],
        _ => &ws[..],
    };
    let path = rest.first()?;
    (path.starts_with('/') && path.ends_with(".sh") && !path.contains('$')).then(|| path.clone())
}

/// The file of the case's `environment/` folder that a Dockerfile there (`*.Dockerfile`,
/// `Dockerfile`, `case_env/*`) copies to `target` (a `COPY`/`ADD` without `--from`, its
/// source inside the build context), relative to the case folder, and the Dockerfile.
pub(crate) fn copied_from(case_dir: &Path, target: &str) -> Option<(String, String)> {
    let env = case_dir.join("environment");
    let mut dockerfiles: Vec<String> = Vec::new();
    for (dir, rel) in [
        (env.clone(), "environment"),
        (env.join("case_env"), "environment/case_env"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".Dockerfile") || n.starts_with("Dockerfile"))
            .collect();
        names.sort();
        dockerfiles.extend(names.into_iter().map(|n| format!("{rel}/{n}")));
    }
    for rel in dockerfiles {
        let Ok(text) = std::fs::read_to_string(case_dir.join(&rel)) else {
            continue;
        };
        for line in text.lines() {
            let ws = super::script::words(line.trim());
            let Some(op) = ws.first() else { continue };
            if !op.eq_ignore_ascii_case("COPY") && !op.eq_ignore_ascii_case("ADD") {
                continue;
            }
            let args: Vec<&String> = ws[1..].iter().filter(|w| !w.starts_with("--")).collect();
            if ws[1..].iter().any(|w| w.starts_with("--from")) || args.len() != 2 {
                continue;
            }
            let (src, dest) = (args[0].as_str(), args[1].as_str());
            let base = src.rsplit('/').next().unwrap_or(src);
            let lands =
                dest == target || (dest.ends_with('/') && format!("{dest}{base}") == target);
            let inside = !src.starts_with('/') && !src.split('/').any(|c| c == "..");
            if lands && inside && !src.contains('$') {
                // A build context at the case's folder names `environment/x.sh` itself.
                let src = src.trim_start_matches("./");
                let file = if src.starts_with("environment/") {
                    src.to_string()
                } else {
                    format!("environment/{src}")
                };
                if case_dir.join(&file).is_file() {
                    return Some((file, rel));
                }
            }
        }
    }
    None
}

/// The file of the case's `environment/` folder that a `docker run`/`docker compose run` of
/// `run_profile.sh` mounts at `target` (`-v "$task_dir/environment/inside.sh:/opt/x/run.sh:ro"`).
pub(crate) fn mounted_from(script: &str, case_dir: &Path, target: &str) -> Option<String> {
    for (_, line) in super::script::logical_lines(script) {
        let ws = super::script::words(&line);
        for w in ws.windows(2) {
            if w[0] != "-v" && w[0] != "--volume" {
                continue;
            }
            let mut parts = w[1].split(':');
            let (Some(src), Some(dest)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Some((_, file)) = src.rsplit_once("/environment/") else {
                continue;
            };
            if dest == target && !file.contains('$') && !file.split('/').any(|c| c == "..") {
                let rel = format!("environment/{file}");
                if case_dir.join(&rel).is_file() {
                    return Some(rel);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_a_command_runs() {
        assert_eq!(
            script_of("bash /opt/ecosync/run-laravel-profile.sh ranger-hidden").as_deref(),
            Some("/opt/ecosync/run-laravel-profile.sh")
        );
        assert_eq!(script_of("bash environment/run_profile.sh x"), None);
        assert_eq!(script_of("python -m pytest"), None);
    }

    #[test]
    fn only_a_copy_line_names_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let env = dir.path().join("environment");
        std::fs::create_dir_all(&env).expect("mkdir");
        std::fs::write(env.join("inside.sh"), "pest\n").expect("write");
        std::fs::write(env.join("run-x.sh"), "pest\n").expect("write");
        std::fs::write(
            env.join("x.Dockerfile"),
            "FROM a\nCOPY --chmod=755 inside.sh /opt/e/run-x.sh\nCOPY --from=ctx y.sh /opt/e/y.sh\n",
        )
        .expect("write");
        assert_eq!(
            copied_from(dir.path(), "/opt/e/run-x.sh"),
            Some((
                "environment/inside.sh".into(),
                "environment/x.Dockerfile".into()
            ))
        );
        // A named context's file, or a script no COPY line lands, is not read.
        assert_eq!(copied_from(dir.path(), "/opt/e/y.sh"), None);
        assert_eq!(copied_from(dir.path(), "/opt/e/z.sh"), None);
        // Mounted by run_profile.sh from the case's folder.
        let script =
            "docker_mounts=(\n  -v \"$task_dir/environment/inside.sh:/opt/e/run-m.sh:ro\"\n)\n";
        assert_eq!(
            mounted_from(script, dir.path(), "/opt/e/run-m.sh").as_deref(),
            Some("environment/inside.sh")
        );
        assert_eq!(mounted_from(script, dir.path(), "/opt/e/run-x.sh"), None);
    }
}
