//! WideSWE's JUnit formatter plumbing around an rspec run, which taskc does not need.
//!
//! WideSWE's ruby profiles (cases 43, 44) install `rspec_junit_formatter` into a cache of
//! their own and run `RUBYLIB="$formatter_lib${RUBYLIB:+:$RUBYLIB}" bundle exec rspec spec/…
//! --require rspec_junit_formatter --format RspecJunitFormatter --out /workspace/…xml`. The
//! variable only puts that formatter on Ruby's load path, and the options only write WideSWE's
//! report file; taskc adds `--format json`, which its `rspec-json` parser reads. Without the
//! three, the line is the test command (before, the variable made the line "built from shell
//! variables" and the case was refused).

/// `line` without the JUnit formatter's load path assignment and options, when the line
/// loads that formatter; else unchanged.
pub(crate) fn without_junit_formatter(line: &str) -> String {
    if !line.contains("rspec_junit_formatter") && !line.contains("RspecJunitFormatter") {
        return line.to_string();
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::new();
    let mut k = 0;
    let mut leading = true;
    let mut junit_out = false;
    while k < words.len() {
        let w = words[k];
        // The load path of the formatter, assigned in front of the command.
        if leading && w.starts_with("RUBYLIB=") {
            k += 1;
            continue;
        }
        leading = false;
        let next = words.get(k + 1).copied().unwrap_or("");
        match w {
            "--require" | "-r" if next == "rspec_junit_formatter" => k += 2,
            "--format" | "-f" if next == "RspecJunitFormatter" => {
                junit_out = true;
                k += 2;
            }
            // `--out` after the JUnit format names its file; before any other format it is
            // the runner's own.
            "--out" | "-o" if junit_out => k += 2,
            _ if w == "--require=rspec_junit_formatter" || w == "--format=RspecJunitFormatter" => {
                junit_out |= w.starts_with("--format");
                k += 1;
            }
            _ if junit_out && w.starts_with("--out=") => k += 1,
            _ => {
                if w.starts_with("--format") || w == "-f" {
                    junit_out = false;
                }
                out.push(w);
                k += 1;
            }
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formatter_load_path_and_options_are_dropped() {
        assert_eq!(
            without_junit_formatter(
                r#"RUBYLIB="$formatter_lib${RUBYLIB:+:$RUBYLIB}" bundle exec rspec spec/sentry/transport/http_transport_spec.rb --require rspec_junit_formatter --format RspecJunitFormatter --out /workspace/.ecosyncbench/test-reports/x.xml"#
            ),
            "bundle exec rspec spec/sentry/transport/http_transport_spec.rb"
        );
        // A line that does not load the formatter is left as it is.
        let own = r#"RUBYLIB="$lib" bundle exec rspec spec --format progress --out log.txt"#;
        assert_eq!(without_junit_formatter(own), own);
        // Another format's `--out` stays.
        assert_eq!(
            without_junit_formatter(
                "bundle exec rspec spec -r rspec_junit_formatter -f RspecJunitFormatter -o a.xml -f progress -o b.txt"
            ),
            "bundle exec rspec spec -f progress -o b.txt"
        );
    }
}
