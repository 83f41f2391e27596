//! Path globs of the test surface (`protect "…"`, the stdlib's surface lists).
//!
//! Syntax: a glob is `/`-separated segments. In a segment `*` matches any run of characters
//! but `/`, `?` one such character; a whole segment `**` matches any number (zero or more)
//! of whole segments. A glob without `/` matches a file name at any depth (`conftest.py`,
//! `*.pth`); a glob with `/` is anchored at the repository's root (`tests/conftest.py`,
//! `**/*.dist-info/**`). Nothing else is special: no `[…]`, no `{a,b}`, no `!`.
//!
//! Pure: no I/O. [`Glob::parse`] refuses what cannot name a path inside a repository.

use std::fmt;

/// A checked glob.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Glob {
    text: String,
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Segment {
    /// `**`.
    Any,
    /// A segment with literal characters, `*` and `?`.
    Pattern(Vec<Piece>),
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Piece {
    Char(char),
    Star,
    One,
}

/// Why a glob was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    #[error("the glob is empty")]
    Empty,
    #[error("the glob starts with `/`: globs are relative to the repository's root")]
    Absolute,
    #[error("the glob has an empty segment (`//` or a trailing `/`)")]
    EmptySegment,
    #[error("the glob has a `{0}` segment: globs name paths inside the repository")]
    DotSegment(&'static str),
    #[error("`**` must be a whole segment (`a/**/b`), not part of `{0}`")]
    PartialDoubleStar(String),
    #[error("`{0}` is not supported in globs (only `*`, `?` and `**`)")]
    Unsupported(char),
    #[error("the glob names `.git`, which taskc owns")]
    GitDir,
}

impl Glob {
    /// Check and compile `text`.
    pub fn parse(text: &str) -> Result<Glob, GlobError> {
        if text.is_empty() {
            return Err(GlobError::Empty);
        }
        if text.starts_with('/') {
            return Err(GlobError::Absolute);
        }
        if let Some(c) = text
            .chars()
            .find(|c| matches!(c, '[' | ']' | '{' | '}' | '!' | '\\') || c.is_control())
        {
            return Err(GlobError::Unsupported(c));
        }
        let anchored = text.contains('/');
        let mut segments = Vec::new();
        if !anchored {
            segments.push(Segment::Any);
        }
        for seg in text.split('/') {
            match seg {
                "" => return Err(GlobError::EmptySegment),
                "." => return Err(GlobError::DotSegment(".")),
                ".." => return Err(GlobError::DotSegment("..")),
                ".git" => return Err(GlobError::GitDir),
                "**" => segments.push(Segment::Any),
                s if s.contains("**") => return Err(GlobError::PartialDoubleStar(s.to_string())),
                s => segments.push(Segment::Pattern(
                    s.chars()
                        .map(|c| match c {
                            '*' => Piece::Star,
                            '?' => Piece::One,
                            c => Piece::Char(c),
                        })
                        .collect(),
                )),
            }
        }
        Ok(Glob {
            text: text.to_string(),
            segments,
        })
    }

    /// The glob as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `path` (relative, `/`-separated) matches.
    pub fn matches(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        match_segments(&self.segments, &parts)
    }
}

impl fmt::Display for Glob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn match_segments(globs: &[Segment], parts: &[&str]) -> bool {
    match globs.split_first() {
        None => parts.is_empty(),
        Some((Segment::Any, rest)) => {
            (0..=parts.len()).any(|skip| match_segments(rest, &parts[skip..]))
        }
        Some((Segment::Pattern(p), rest)) => match parts.split_first() {
            Some((first, more)) => {
                let chars: Vec<char> = first.chars().collect();
                match_pieces(p, &chars) && match_segments(rest, more)
            }
            None => false,
        },
    }
}

fn match_pieces(pieces: &[Piece], s: &[char]) -> bool {
    match pieces.split_first() {
        None => s.is_empty(),
        Some((Piece::Star, rest)) => (0..=s.len()).any(|k| match_pieces(rest, &s[k..])),
        Some((Piece::One, rest)) => !s.is_empty() && match_pieces(rest, &s[1..]),
        Some((Piece::Char(c), rest)) => s.first() == Some(c) && match_pieces(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(glob: &str, path: &str) -> bool {
        Glob::parse(glob).expect("valid glob").matches(path)
    }

    #[test]
    fn names_match_at_any_depth() {
        assert!(m("conftest.py", "conftest.py"));
        assert!(m("conftest.py", "a/b/conftest.py"));
        assert!(!m("conftest.py", "a/conftest.py.bak"));
        assert!(m("*.pth", "lib/site/evil.pth"));
        assert!(m("test_*.py", "tests/test_x.py"));
        assert!(!m("test_*.py", "tests/helpers.py"));
    }

    #[test]
    fn slashes_anchor_and_double_stars_span_segments() {
        assert!(m("tests/conftest.py", "tests/conftest.py"));
        assert!(!m("tests/conftest.py", "a/tests/conftest.py"));
        assert!(m(
            "**/*.dist-info/**",
            "evil-1.0.dist-info/entry_points.txt"
        ));
        assert!(m("**/*.dist-info/**", "site/evil-1.0.dist-info/METADATA"));
        assert!(!m("**/*.dist-info/**", "evil-1.0.dist-info.py"));
        assert!(m("src/*/x.py", "src/a/x.py"));
        assert!(!m("src/*/x.py", "src/a/b/x.py"));
        assert!(m("a/**/b", "a/b"));
        assert!(m("a/**/b", "a/x/y/b"));
        assert!(m("?.ini", "a.ini"));
        assert!(!m("?.ini", "ab.ini"));
    }

    #[test]
    fn bad_globs_are_refused_with_a_reason() {
        assert_eq!(Glob::parse(""), Err(GlobError::Empty));
        assert_eq!(Glob::parse("/etc/x"), Err(GlobError::Absolute));
        assert_eq!(Glob::parse("a//b"), Err(GlobError::EmptySegment));
        assert_eq!(Glob::parse("a/"), Err(GlobError::EmptySegment));
        assert_eq!(Glob::parse("../x"), Err(GlobError::DotSegment("..")));
        assert_eq!(
            Glob::parse("a**b/c"),
            Err(GlobError::PartialDoubleStar("a**b".into()))
        );
        assert_eq!(Glob::parse("*.{py,cfg}"), Err(GlobError::Unsupported('{')));
        assert_eq!(Glob::parse(".git/hooks/x"), Err(GlobError::GitDir));
    }

    #[test]
    fn every_stdlib_surface_glob_parses() {
        let lists = crate::parser::LogParser::ALL
            .iter()
            .map(|p| p.descriptor().surface);
        for list in std::iter::once(taskc_stdlib::surface::COMMON).chain(lists) {
            for g in list {
                assert!(Glob::parse(g).is_ok(), "stdlib glob `{g}` does not parse");
            }
        }
    }
}
