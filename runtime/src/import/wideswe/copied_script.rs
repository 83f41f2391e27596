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
                let file = format!("environment/{}", src.trim_start_matches("./"));
                if case_dir.join(&file).is_file() {
                    return Some((file, rel));
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
    }
}
