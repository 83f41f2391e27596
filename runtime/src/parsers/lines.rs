//! Splitting a log into lines without allocating.

use memchr::memchr_iter;

/// Iterates the lines of `bytes` (split on `\n`, trailing `\r` removed; a last
/// line without `\n` is included).
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    let mut ends = memchr_iter(b'\n', bytes);
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let line = match ends.next() {
            Some(end) => {
                let line = &bytes[start..end];
                start = end + 1;
                line
            }
            None => {
                done = true;
                if start >= bytes.len() {
                    return None;
                }
                &bytes[start..]
            }
        };
        Some(line.strip_suffix(b"\r").unwrap_or(line))
    })
}

/// The 1-based line number of byte `pos`.
pub fn line_number(bytes: &[u8], pos: usize) -> usize {
    memchr_iter(b'\n', &bytes[..pos.min(bytes.len())]).count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_trims() {
        let got: Vec<&[u8]> = lines(b"a\r\nb\n\nc").collect();
        assert_eq!(got, vec![&b"a"[..], b"b", b"", b"c"]);
        assert_eq!(lines(b"a\n").count(), 1);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(line_number(b"ab\ncd\nef", 4), 2);
    }
}
