//! A Dockerfile for a builder without cache mounts (BuildKit's `RUN --mount=type=cache`):
//! the Docker backend's classic-builder fallback and the exported Harbor Dockerfile, which
//! any builder must build. The recipes keep downloads in cache mounts under
//! `/var/cache/taskc` (and cargo's under `/root/.cargo`), outside the image; without the
//! mounts each step empties those folders at its end, so the image content is the same.

/// The Dockerfile `text` with every `RUN --mount=type=cache,…` flag taken out, for a builder
/// without cache mounts: each such `RUN` removes its cache folders at its end instead, so
/// nothing that BuildKit keeps outside the image lands in a layer (the same image content
/// either way). Other lines, and mounts of other types, are left as they are.
pub fn without_cache_mounts(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let is_run = trimmed.len() > 4
            && trimmed[..4].eq_ignore_ascii_case("RUN ")
            && trimmed[4..].trim_start().starts_with("--mount=");
        if !is_run {
            out.push_str(line);
            continue;
        }
        // The instruction's flags, then its command (to the end of its last continued line).
        let indent = &line[..line.len() - trimmed.len()];
        let mut rest = trimmed[4..].trim_start();
        let mut kept_flags = Vec::new();
        let mut targets = Vec::new();
        while let Some(flag) = rest.strip_prefix("--") {
            let end = flag.find([' ', '\t']).unwrap_or(flag.len());
            let word = &flag[..end];
            match word.strip_prefix("mount=") {
                Some(spec) if spec.split(',').any(|kv| kv == "type=cache") => {
                    if let Some(t) = spec.split(',').find_map(|kv| {
                        kv.strip_prefix("target=")
                            .or_else(|| kv.strip_prefix("dst="))
                            .or_else(|| kv.strip_prefix("destination="))
                    }) {
                        targets.push(t.to_string());
                    }
                }
                _ => kept_flags.push(format!("--{word}")),
            }
            rest = flag[end..].trim_start();
        }
        let mut command = rest.to_string();
        while command.trim_end().ends_with('\\') {
            match lines.next() {
                Some(next) => command.push_str(next),
                None => break,
            }
        }
        let newline = command.ends_with('\n');
        let body = command.trim_end();
        out.push_str(indent);
        out.push_str("RUN ");
        for f in &kept_flags {
            out.push_str(f);
            out.push(' ');
        }
        out.push_str(body);
        if !targets.is_empty() {
            // Emptied, not removed: BuildKit leaves each mount's target as an empty folder.
            let targets = targets.join(" ");
            out.push_str(&format!(" && rm -rf {targets} && mkdir -p {targets}"));
        }
        if newline {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_mounts_come_out_and_their_folders_are_removed_at_the_end_of_the_step() {
        let text = "FROM base\n\
            RUN --mount=type=cache,id=taskc-uv,target=/var/cache/taskc/uv,sharing=shared uv pip install a\n\
            RUN --mount=type=secret,id=s --mount=type=cache,target=/root/.npm npm i \\\n  -g x\n\
            RUN echo --mount=type=cache,target=/x\n";
        let got = without_cache_mounts(text);
        assert_eq!(
            got,
            "FROM base\n\
             RUN uv pip install a && rm -rf /var/cache/taskc/uv && mkdir -p /var/cache/taskc/uv\n\
             RUN --mount=type=secret,id=s npm i \\\n  -g x && rm -rf /root/.npm && mkdir -p /root/.npm\n\
             RUN echo --mount=type=cache,target=/x\n"
        );
        // Nothing to take out: the text as it was.
        assert_eq!(without_cache_mounts("FROM a\nRUN true"), "FROM a\nRUN true");
    }
}
