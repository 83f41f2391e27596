//! How `git apply` reads a path on a patch's header lines, rule for rule (git's `apply.c`:
//! `find_name`, `find_name_gnu`, `find_name_common`, `find_name_traditional`,
//! `diff_timestamp_len`, `guess_p_value`, `has_epoch_timestamp`, `is_dev_null`), so that
//! the files taskc reads a patch to touch are the files the git that applies it touches
//! (`docs/security.md`, "One reading of every patch"). The run script still checks the two
//! readings agree (`git apply --numstat -z` against [`super::numstat_z`]), so a rule missed
//! here makes a patch refused, never a file missed.

/// What ends a name that has no known end (git's `TERM_SPACE`/`TERM_TAB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Term {
    /// A tab ends the name (a space does not): `---`/`+++` lines without a timestamp.
    Tab,
    /// Neither a space nor a tab ends it: `rename from`/`copy to` lines.
    Neither,
}

/// C's `isspace` in the C locale.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// git's `is_dev_null`: `/dev/null` followed by whitespace (the line's end counts: git's
/// lines keep their `\n`).
pub(super) fn is_dev_null(line: &str) -> bool {
    line.strip_prefix("/dev/null")
        .is_some_and(|r| r.is_empty() || is_space(r.as_bytes()[0]))
}

/// A name git read, and how many bytes of the line it took (for the span of the token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Name {
    pub name: String,
    pub token_len: usize,
}

/// git's `unquote_c_style`: the C-quoted string leading `s`, and its length with quotes;
/// `None` when it is not one (no closing quote, an unknown escape).
pub(super) fn unquote_c_style(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    if s.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                let c = *s.get(i + 1)?;
                let simple = match c {
                    b'a' => Some(7),
                    b'b' => Some(8),
                    b'f' => Some(12),
                    b'n' => Some(b'\n'),
                    b'r' => Some(b'\r'),
                    b't' => Some(b'\t'),
                    b'v' => Some(11),
                    b'\\' => Some(b'\\'),
                    b'"' => Some(b'"'),
                    _ => None,
                };
                if let Some(v) = simple {
                    out.push(v);
                    i += 2;
                    continue;
                }
                // `\ooo`, the first digit 0–3.
                let d = s.get(i + 1..i + 4)?;
                if !(b'0'..=b'3').contains(&d[0])
                    || !d[1..].iter().all(|x| (b'0'..=b'7').contains(x))
                {
                    return None;
                }
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

/// git's `squash_slash`: runs of `/` become one.
fn squash_slash(name: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(name.len());
    for &c in name {
        if c == b'/' && out.last() == Some(&b'/') {
            continue;
        }
        out.push(c);
    }
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// git's `find_name_gnu`: a quoted name with `p` leading components stripped.
fn find_name_gnu(line: &[u8], p: i32) -> Option<Name> {
    let (name, len) = unquote_c_style(line)?;
    let mut at = 0;
    for _ in 0..p.max(0) {
        at += name[at..].iter().position(|c| *c == b'/')? + 1;
    }
    Some(Name {
        name: text(&squash_slash(&name[at..])),
        token_len: len,
    })
}

/// git's `find_name_common`: `end` is where a timestamp starts (then nothing else ends
/// the name), else `term` says which blank ends it.
fn find_name_common(
    line: &[u8],
    def: Option<&str>,
    p: i32,
    end: Option<usize>,
    term: Term,
) -> Option<Name> {
    let limit = end.unwrap_or(line.len());
    let mut start = (p == 0).then_some(0);
    let mut p = p;
    let mut i = 0;
    while i < limit {
        let c = line[i];
        if end.is_none() && is_space(c) {
            let ends = match c {
                b'\n' => true,
                b' ' => false,
                b'\t' => term == Term::Tab,
                _ => true,
            };
            if ends {
                break;
            }
        }
        i += 1;
        if c == b'/' {
            p -= 1;
            if p == 0 {
                start = Some(i);
            }
        }
    }
    let fallback = || {
        def.map(|d| Name {
            name: text(&squash_slash(d.as_bytes())),
            token_len: i,
        })
    };
    let Some(start) = start else {
        return fallback();
    };
    let name = &line[start..i];
    if name.is_empty() {
        return fallback();
    }
    // git prefers the shorter name when the other is it with something tacked on.
    if let Some(d) = def {
        if d.len() < name.len() && name.starts_with(d.as_bytes()) {
            return fallback();
        }
    }
    Some(Name {
        name: text(&squash_slash(name)),
        token_len: i,
    })
}

/// git's `find_name`: a `diff --git` block's `---`/`+++` line ([`Term::Tab`]) or a
/// rename/copy line ([`Term::Neither`], with `p` one less).
pub(super) fn find_name(line: &str, p: i32, term: Term) -> Option<Name> {
    let b = line.as_bytes();
    if b.first() == Some(&b'"') {
        if let Some(n) = find_name_gnu(b, p) {
            return Some(n);
        }
    }
    find_name_common(b, None, p, None, term)
}

/// git's `find_name_traditional`: a plain diff's `---`/`+++` line, whose name ends at a tab
/// or before a timestamp (`2024-01-01 00:00:00[.frac] [+-]zone`, after a tab or spaces).
pub(super) fn find_name_traditional(line: &str, def: Option<&str>, p: i32) -> Option<Name> {
    let b = line.as_bytes();
    if b.first() == Some(&b'"') {
        if let Some(n) = find_name_gnu(b, p) {
            return Some(n);
        }
    }
    match diff_timestamp_len(b) {
        0 => find_name_common(b, def, p, None, Term::Tab),
        date => find_name_common(b, def, p, Some(b.len() - date), Term::Tab),
    }
}

/// git's `guess_p_value` (no prefix: taskc applies at the repository's root): 0 for a name
/// without a slash, else unknown.
pub(super) fn guess_p_value(line: &str) -> Option<i32> {
    if is_dev_null(line) {
        return None;
    }
    let n = find_name_traditional(line, None, 0)?;
    (!n.name.contains('/')).then_some(0)
}

fn digit(b: &[u8], i: usize) -> bool {
    b.get(i).is_some_and(u8::is_ascii_digit)
}

fn sane_tz_len(b: &[u8]) -> usize {
    let n = " +0500".len();
    if b.len() < n || b[b.len() - n] != b' ' {
        return 0;
    }
    let tz = b.len() - n;
    if b[tz + 1] != b'+' && b[tz + 1] != b'-' {
        return 0;
    }
    if (tz + 2..b.len()).all(|i| digit(b, i)) {
        n
    } else {
        0
    }
}

fn tz_with_colon_len(b: &[u8]) -> usize {
    let n = " +08:00".len();
    if b.len() < n || b[b.len() - 3] != b':' {
        return 0;
    }
    let tz = b.len() - n;
    if b[tz] != b' ' || (b[tz + 1] != b'+' && b[tz + 1] != b'-') {
        return 0;
    }
    if digit(b, tz + 2)
        && digit(b, tz + 3)
        && b[tz + 4] == b':'
        && digit(b, tz + 5)
        && digit(b, tz + 6)
    {
        n
    } else {
        0
    }
}

fn date_len(b: &[u8]) -> usize {
    let n = "72-02-05".len();
    if b.len() < n || b[b.len() - 3] != b'-' {
        return 0;
    }
    let d = b.len() - n;
    let ok = digit(b, d)
        && digit(b, d + 1)
        && b[d + 2] == b'-'
        && digit(b, d + 3)
        && digit(b, d + 4)
        && b[d + 5] == b'-'
        && digit(b, d + 6)
        && digit(b, d + 7);
    if !ok {
        return 0;
    }
    if d >= 2 && digit(b, d - 1) && digit(b, d - 2) {
        n + 2
    } else {
        n
    }
}

fn short_time_len(b: &[u8]) -> usize {
    let n = " 07:01:32".len();
    if b.len() < n || b[b.len() - 3] != b':' {
        return 0;
    }
    let t = b.len() - n;
    let ok = b[t] == b' '
        && digit(b, t + 1)
        && digit(b, t + 2)
        && b[t + 3] == b':'
        && digit(b, t + 4)
        && digit(b, t + 5)
        && b[t + 6] == b':'
        && digit(b, t + 7)
        && digit(b, t + 8);
    if ok {
        n
    } else {
        0
    }
}

fn fractional_time_len(b: &[u8]) -> usize {
    if b.is_empty() || !b[b.len() - 1].is_ascii_digit() {
        return 0;
    }
    let mut p = b.len() - 1;
    while p > 0 && b[p].is_ascii_digit() {
        p -= 1;
    }
    if b[p] != b'.' {
        return 0;
    }
    match short_time_len(&b[..p]) {
        0 => 0,
        n => b.len() - p + n,
    }
}

fn trailing_spaces_len(b: &[u8]) -> usize {
    b.iter().rev().take_while(|c| **c == b' ').count()
}

/// git's `diff_timestamp_len`: how many bytes at the end of `b` are a timestamp and the
/// blanks before it (0: none).
pub(super) fn diff_timestamp_len(b: &[u8]) -> usize {
    if b.last().is_none_or(|c| !c.is_ascii_digit()) {
        return 0;
    }
    let mut end = b.len();
    let n = match sane_tz_len(&b[..end]) {
        0 => tz_with_colon_len(&b[..end]),
        n => n,
    };
    end -= n;
    let n = match short_time_len(&b[..end]) {
        0 => fractional_time_len(&b[..end]),
        n => n,
    };
    end -= n;
    let n = date_len(&b[..end]);
    if n == 0 {
        return 0;
    }
    end -= n;
    if end == 0 {
        return 0;
    }
    if b[end - 1] == b'\t' {
        return b.len() - (end - 1);
    }
    if b[end - 1] != b' ' {
        return 0;
    }
    end -= trailing_spaces_len(&b[..end]);
    b.len() - end
}

/// git's `has_epoch_timestamp`: the line's timestamp (after its last tab) is the epoch,
/// GNU diff's mark of a created (`---` side) or deleted (`+++` side) file.
pub(super) fn has_epoch_timestamp(line: &str) -> bool {
    let Some(tab) = line.rfind('\t') else {
        return false;
    };
    let ts = &line[tab + 1..];
    let (rest, epoch_hour) = if let Some(r) = ts.strip_prefix("1969-12-31 ") {
        (r, 24)
    } else if let Some(r) = ts.strip_prefix("1970-01-01 ") {
        (r, 0)
    } else {
        return false;
    };
    // ^[0-2][0-9]:([0-5][0-9]):00(\.0+)? ([-+][0-2][0-9]:?[0-5][0-9])$
    let b = rest.as_bytes();
    let in_range = |i: usize, lo: u8, hi: u8| b.get(i).is_some_and(|c| (lo..=hi).contains(c));
    if !(in_range(0, b'0', b'2')
        && digit(b, 1)
        && b.get(2) == Some(&b':')
        && in_range(3, b'0', b'5')
        && digit(b, 4)
        && b.get(5..8) == Some(b":00"))
    {
        return false;
    }
    let mut i = 8;
    if b.get(i) == Some(&b'.') {
        let zeros = b[i + 1..].iter().take_while(|c| **c == b'0').count();
        if zeros == 0 {
            return false;
        }
        i += 1 + zeros;
    }
    if b.get(i) != Some(&b' ') || !matches!(b.get(i + 1), Some(b'+' | b'-')) {
        return false;
    }
    let sign = b[i + 1];
    let z = &b[i + 2..];
    let (zh, zm) = match z {
        [h1, h2, b':', m1, m2] | [h1, h2, m1, m2]
            if (b'0'..=b'2').contains(h1)
                && h2.is_ascii_digit()
                && (b'0'..=b'5').contains(m1)
                && m2.is_ascii_digit() =>
        {
            (
                i32::from((h1 - b'0') * 10 + (h2 - b'0')),
                i32::from((m1 - b'0') * 10 + (m2 - b'0')),
            )
        }
        _ => return false,
    };
    let mut offset = zh * 60 + zm;
    if sign == b'-' {
        offset = -offset;
    }
    let hour = i32::from((b[0] - b'0') * 10 + (b[1] - b'0'));
    let minute = i32::from((b[3] - b'0') * 10 + (b[4] - b'0'));
    hour * 60 + minute - offset == epoch_hour * 60
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trad(line: &str) -> Option<String> {
        find_name_traditional(line, None, 1).map(|n| n.name)
    }

    #[test]
    fn a_timestamp_after_a_space_is_not_part_of_the_name() {
        assert_eq!(
            trad("b/conftest.py 2024-01-01 00:00:00").as_deref(),
            Some("conftest.py")
        );
        assert_eq!(
            trad("b/x.py\t2024-01-01 00:00:00.123456789 +0100").as_deref(),
            Some("x.py")
        );
        assert_eq!(
            trad("b/x.py   2024-01-01 10:00:00 +01:00").as_deref(),
            Some("x.py")
        );
        // Not a timestamp: the space is part of the name; a tab ends it.
        assert_eq!(trad("b/my file.py").as_deref(), Some("my file.py"));
        assert_eq!(trad("b/x.py\tjunk").as_deref(), Some("x.py"));
    }

    #[test]
    fn the_first_component_is_stripped_whatever_it_is() {
        assert_eq!(
            trad("x/tests/conftest.py").as_deref(),
            Some("tests/conftest.py")
        );
        assert_eq!(trad("a//b//c").as_deref(), Some("/b/c"));
        assert_eq!(trad("conftest.py"), None);
        assert_eq!(
            find_name_traditional("conftest.py", None, 0)
                .map(|n| n.name)
                .as_deref(),
            Some("conftest.py")
        );
        assert_eq!(guess_p_value("conftest.py"), Some(0));
        assert_eq!(guess_p_value("a/conftest.py"), None);
    }

    #[test]
    fn quoted_names_stop_at_the_closing_quote() {
        assert_eq!(
            trad("\"b/t\\303\\251st.py\" junk").as_deref(),
            Some("tést.py")
        );
        assert_eq!(
            find_name("\"b/x\\ty\"", 1, Term::Tab)
                .map(|n| n.name)
                .as_deref(),
            Some("x\ty")
        );
        // An unknown escape: read as a plain name.
        assert_eq!(trad("\"b/x\\q\"").as_deref(), Some("x\\q\""));
    }

    #[test]
    fn epoch_timestamps_mark_creations_and_deletions() {
        assert!(has_epoch_timestamp("x\t1970-01-01 00:00:00 +0000"));
        assert!(has_epoch_timestamp(
            "x\t1969-12-31 19:00:00.000000000 -0500"
        ));
        assert!(!has_epoch_timestamp("x\t1970-01-01 00:00:01 +0000"));
        assert!(!has_epoch_timestamp("x 1970-01-01 00:00:00 +0000"));
    }

    #[test]
    fn dev_null_needs_a_blank_after_it() {
        assert!(is_dev_null("/dev/null"));
        assert!(is_dev_null("/dev/null\t2024-01-01"));
        assert!(!is_dev_null("/dev/nullx"));
    }
}
