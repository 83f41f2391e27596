//! TAP, versions 12–14 (`node --test --test-reporter=tap`, tape, prove…).
//!
//! **Ids.** A test point `ok 3 - stores one cookie` is named by its
//! description; subtests are indented by four spaces per level and are named
//! `parent::child` after the test point that closes them
//! (`cookie jar::set::stores one cookie`). Parents are recorded too (a suite
//! fails when a hook fails even if no child did). `\#` and `\\` in
//! descriptions are unescaped. Test points without a description are named by
//! their number.
//!
//! **Outcomes.** `ok` → passed, `not ok` → failed, `# SKIP` → skipped, and
//! `# TODO` → skipped (a TODO is not a pass, and its failure is expected).
//! YAML diagnostics (`---` … `...`) and `#` comments are skipped, so output a
//! test prints (node reports it as `# …`) is never read as a result.
//!
//! **Complete** when each TAP stream (a new `TAP version` line starts another)
//! has a top-level plan `1..N` and exactly N top-level test points, and no
//! `Bail out!`.

use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

/// Parses a TAP log.
pub fn parse(log: &[u8]) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut stream = Stream::default();
    let mut yaml_indent: Option<usize> = None;
    let mut last_point_indent = None;
    for raw in lines(log) {
        let line = String::from_utf8_lossy(raw);
        let line = super::ansi::strip(&line);
        let (indent, text) = indentation(&line);
        let text = text.trim_end();
        if let Some(open) = yaml_indent {
            if text == "..." && indent == open {
                yaml_indent = None;
            }
            continue;
        }
        if text == "---" && last_point_indent.is_some_and(|i| indent > i) {
            yaml_indent = Some(indent);
            continue;
        }
        last_point_indent = None;
        let level = indent / 4;
        if level == 0 && text.starts_with("TAP version ") {
            if stream.started() {
                stream.finish(&mut parsed);
            }
            stream = Stream::default();
            stream.seen_version = true;
            continue;
        }
        if text.starts_with("Bail out!") {
            stream.bailed = true;
            parsed.warn(format!("TAP stream bailed out: {text}"));
            continue;
        }
        if let Some(name) = text.strip_prefix("# Subtest: ") {
            stream.names.resize(level, None);
            stream.names.push(Some(unescape(name.trim())));
            continue;
        }
        if let Some(plan) = plan(text) {
            if level == 0 {
                stream.plan = Some(plan);
            }
            continue;
        }
        if let Some((outcome, name)) = test_point(text) {
            last_point_indent = Some(indent);
            stream.point(level, name, outcome, &mut parsed);
        }
    }
    stream.finish(&mut parsed);
    parsed.finish();
    parsed
}

/// One TAP stream: its plan, its top-level count and the finished subtests
/// waiting for their parent's test point.
#[derive(Default)]
struct Stream {
    seen_version: bool,
    plan: Option<usize>,
    top_level: usize,
    bailed: bool,
    /// `waiting[l]`: results at level `l` (ids relative to level `l`) whose
    /// parent test point at level `l - 1` has not arrived yet.
    waiting: Vec<Vec<(String, Outcome)>>,
    /// `names[l]`: the last `# Subtest: name` comment at level `l`, used to
    /// name subtests whose parent point never came.
    names: Vec<Option<String>>,
}

impl Stream {
    fn started(&self) -> bool {
        self.seen_version || self.plan.is_some() || self.top_level > 0 || !self.waiting.is_empty()
    }

    fn point(&mut self, level: usize, name: String, outcome: Outcome, parsed: &mut ParsedLog) {
        if self.waiting.len() < level + 2 {
            self.waiting.resize_with(level + 2, Vec::new);
        }
        // Everything deeper belongs to this test point.
        let mut children: Vec<(String, Outcome)> = Vec::new();
        for deeper in self.waiting.iter_mut().skip(level + 1) {
            children.append(deeper);
        }
        let mut entries = vec![(name.clone(), outcome)];
        entries.extend(
            children
                .into_iter()
                .map(|(id, o)| (format!("{name}::{id}"), o)),
        );
        if level == 0 {
            self.top_level += 1;
            for (id, o) in entries {
                parsed.record(id, o);
            }
        } else {
            self.waiting[level].extend(entries);
        }
    }

    fn finish(&mut self, parsed: &mut ParsedLog) {
        let mut orphans: Vec<(String, Outcome)> = Vec::new();
        for (level, waiting) in self.waiting.iter_mut().enumerate() {
            let parents: Option<Vec<&str>> = (0..level)
                .map(|l| self.names.get(l).and_then(|n| n.as_deref()))
                .collect();
            for (id, outcome) in std::mem::take(waiting) {
                match &parents {
                    Some(parents) if level > 0 => {
                        orphans.push((format!("{}::{id}", parents.join("::")), outcome))
                    }
                    _ => orphans.push((id, outcome)),
                }
            }
        }
        if !orphans.is_empty() {
            parsed.complete = false;
            parsed.warn(format!(
                "{} subtest result(s) have no parent test point: the run ended early",
                orphans.len()
            ));
            for (id, outcome) in orphans {
                parsed.record(id, outcome);
            }
        }
        if !self.started() {
            if parsed.tests.is_empty() && parsed.complete {
                parsed.complete = false;
                parsed.warn("no TAP output (no plan and no test points) in the log");
            }
            return;
        }
        if self.bailed {
            parsed.complete = false;
        }
        match self.plan {
            None => {
                parsed.complete = false;
                parsed.warn(format!(
                    "TAP stream has {} test point(s) and no plan line `1..N`: the run ended early",
                    self.top_level
                ));
            }
            Some(planned) if planned != self.top_level => {
                parsed.complete = false;
                parsed.warn(format!(
                    "TAP plan is 1..{planned} but {} test point(s) were reported",
                    self.top_level
                ));
            }
            Some(_) => {}
        }
    }
}

/// Leading whitespace as a column count (tab = 4) and the rest.
fn indentation(line: &str) -> (usize, &str) {
    let mut width = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' => width += 1,
            '\t' => width += 4,
            _ => return (width, &line[i..]),
        }
    }
    (width, "")
}

/// `1..N` (possibly `1..0 # skip reason`).
fn plan(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("1..")?;
    let digits: &str = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    let after = rest[digits.len()..].trim_start();
    if !(after.is_empty() || after.starts_with('#')) {
        return None;
    }
    digits.parse().ok()
}

/// `ok 1 - name # SKIP why` → (outcome, name).
fn test_point(text: &str) -> Option<(Outcome, String)> {
    let (passed, rest) = if let Some(rest) = text.strip_prefix("not ok") {
        (false, rest)
    } else {
        (true, text.strip_prefix("ok")?)
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let rest = rest.trim_start();
    let number_len = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (number, rest) = rest.split_at(number_len);
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix("- ")
        .or_else(|| rest.strip_prefix('-'))
        .unwrap_or(rest);
    let (description, directive) = split_directive(rest);
    let mut name = unescape(description.trim());
    if name.is_empty() {
        name = if number.is_empty() {
            "(unnamed)".to_string()
        } else {
            number.to_string()
        };
    }
    let outcome = match directive {
        Some(Directive::Skip | Directive::Todo) => Outcome::Skipped,
        None if passed => Outcome::Passed,
        None => Outcome::Failed,
    };
    Some((outcome, name))
}

enum Directive {
    Skip,
    Todo,
}

/// Splits at the first unescaped ` # SKIP…` / ` # TODO…`.
fn split_directive(text: &str) -> (&str, Option<Directive>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'#' => {
                let after = text[i + 1..].trim_start();
                let word: String = after
                    .chars()
                    .take(4)
                    .collect::<String>()
                    .to_ascii_lowercase();
                let directive = match word.as_str() {
                    "skip" => Some(Directive::Skip),
                    "todo" => Some(Directive::Todo),
                    _ => None,
                };
                if directive.is_some() {
                    return (&text[..i], directive);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (text, None)
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(next @ ('#' | '\\')) => out.push(next),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_points() {
        assert_eq!(
            test_point("ok 1 - a b"),
            Some((Outcome::Passed, "a b".into()))
        );
        assert_eq!(
            test_point("not ok 2 a \\# b"),
            Some((Outcome::Failed, "a # b".into()))
        );
        assert_eq!(
            test_point("ok 3 - x # SKIP no net"),
            Some((Outcome::Skipped, "x".into()))
        );
        assert_eq!(
            test_point("not ok 4 - y # TODO later"),
            Some((Outcome::Skipped, "y".into()))
        );
        assert_eq!(test_point("ok 5"), Some((Outcome::Passed, "5".into())));
        assert_eq!(test_point("okay then"), None);
        assert_eq!(plan("1..4"), Some(4));
        assert_eq!(plan("1..0 # skip all"), Some(0));
        assert_eq!(plan("1..x"), None);
    }
}
