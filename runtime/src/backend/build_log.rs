//! What to show of a failed image build: the first lines that look like an error (the real
//! cause is usually far above the end of the output), not the last lines.

/// Most lines an excerpt shows.
pub const EXCERPT_LINES: usize = 20;

/// Lines of context shown before the first error line.
const BEFORE: usize = 2;

/// pip's lines about a failed build subprocess, which come before that subprocess's output.
const PIP_FRAME: &[&str] = &[
    "finished with status 'error'",
    "error: subprocess-exited-with-error",
    "did not run successfully",
];

/// Whether `line` looks like the report of an error (apt, pip, the shell, compilers, Docker).
fn is_error_line(line: &str) -> bool {
    let t = line.trim_start();
    // The builder echoes each instruction (`Step 3/7 : RUN …`); its text is not an error.
    if t.starts_with("Step ") || t.starts_with("---> ") {
        return false;
    }
    // So does BuildKit's (`#5 [3/6] RUN …`, as `docker::buildkit` writes its log).
    if let Some(rest) = t.strip_prefix('#') {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(' ') {
            return false;
        }
    }
    if t.starts_with("E: ") || t.starts_with("Traceback ") {
        return true;
    }
    let lower = t.to_ascii_lowercase();
    // pip's frame around a failed build backend announces that the backend's output (below
    // it) holds an error; the error itself (CMake's, the compiler's) is that output.
    if PIP_FRAME.iter().any(|p| lower.contains(p)) {
        return false;
    }
    [
        "error",
        "fatal",
        "failed",
        "cannot ",
        "can't ",
        "could not",
        "not found",
        "no such file",
        "permission denied",
        "no matching distribution",
        "returned a non-zero code",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// The lines of `log` to show: from just before the first error line, at most
/// [`EXCERPT_LINES`]; the last lines when no line looks like an error. Empty for an empty log.
pub fn excerpt(log: &str) -> Vec<&str> {
    let lines: Vec<&str> = log.lines().collect();
    match lines.iter().position(|l| is_error_line(l)) {
        Some(i) => {
            let start = i.saturating_sub(BEFORE);
            lines[start..].iter().take(EXCERPT_LINES).copied().collect()
        }
        None => {
            let start = lines.len().saturating_sub(EXCERPT_LINES);
            lines[start..].to_vec()
        }
    }
}

/// The excerpt as a block for a message (`\n--- first error lines of the build ---\n…`), or
/// nothing for an empty log.
pub fn excerpt_block(log: &str) -> String {
    // Docker colours a build step's stderr; the message shows plain text.
    let clean = crate::parsers::ansi::strip(log);
    let log: &str = &clean;
    let lines = excerpt(log);
    if lines.is_empty() {
        return String::new();
    }
    let has_error = log.lines().any(is_error_line);
    let title = if has_error {
        "first error lines of the build"
    } else {
        "last lines of the build"
    };
    format!("\n--- {title} ---\n{}", lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_is_shown_even_with_noise_after_it() {
        let mut log =
            String::from("Step 1/3 : FROM x\n ---> abc\nStep 2/3 : RUN pip install 'x<1'\n");
        log.push_str("Collecting x<1\nERROR: No matching distribution found for x<1\n");
        for i in 0..200 {
            log.push_str(&format!("noise {i}\n"));
        }
        let ex = excerpt(&log);
        assert_eq!(ex[0], "Step 2/3 : RUN pip install 'x<1'");
        assert_eq!(ex[2], "ERROR: No matching distribution found for x<1");
        assert_eq!(ex.len(), EXCERPT_LINES);
        assert!(excerpt_block(&log).contains("first error lines"));
    }

    #[test]
    fn buildkit_step_lines_are_not_errors() {
        let log = "#1 [internal] load build definition\n#4 [2/3] RUN echo 'error: no' || exit 1\n\
                   E: the cause\nmore\n";
        let ex = excerpt(log);
        assert_eq!(ex[0], "#1 [internal] load build definition");
        assert_eq!(ex[2], "E: the cause");
    }

    #[test]
    fn a_failed_pip_build_shows_the_backends_error_not_pips_frame() {
        let log = [
            "Step 9/12 : RUN cd /work/lib && pip install --no-build-isolation -e .",
            "Building wheels for collected packages: lib",
            "  Building editable for lib (pyproject.toml): started",
            "  Building editable for lib (pyproject.toml): finished with status 'error'",
            "  error: subprocess-exited-with-error",
            "  × Building editable for lib (pyproject.toml) did not run successfully.",
            "  │ exit code: 1",
            "  ╰─> [40 lines of output]",
            "      running build_ext",
            "      -- Configuring with the Unix Makefiles generator",
            "      CMake Error: CMake was unable to find a build program corresponding to \"Unix Makefiles\".",
            "      CMake Error: CMAKE_CXX_COMPILER not set, after EnableLanguage",
            "  note: This error originates from a subprocess, and is likely not a problem with pip.",
            "ERROR: Failed building editable for lib",
        ]
        .join("\n");
        let ex = excerpt(&log);
        assert!(
            ex[BEFORE].contains("CMake Error: CMake was unable to find a build program"),
            "{ex:#?}"
        );
        assert!(
            ex.iter().any(|l| l.contains("ERROR: Failed building")),
            "{ex:#?}"
        );
    }

    #[test]
    fn colour_codes_are_left_out() {
        let log = "Step 2/2 : RUN x\n\x1b[91mERROR: No matching distribution\n\x1b[0mdone\n";
        let block = excerpt_block(log);
        assert!(
            block.contains("\nERROR: No matching distribution\n"),
            "{block:?}"
        );
        assert!(!block.contains('\x1b'), "{block:?}");
    }

    #[test]
    fn without_an_error_line_the_end_is_shown() {
        let log: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let ex = excerpt(&log);
        assert_eq!(ex.first(), Some(&"line 30"));
        assert_eq!(ex.last(), Some(&"line 49"));
        assert!(excerpt_block(&log).contains("last lines"));
        assert_eq!(excerpt_block(""), "");
    }
}
