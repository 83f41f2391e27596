//! Removing terminal colour codes (ANSI escape sequences) from log lines.

use memchr::memchr;

/// True when `line` holds an escape character and needs [`strip_into`].
#[inline]
pub fn has_escape(line: &[u8]) -> bool {
    memchr(0x1b, line).is_some()
}

/// Copies `line` into `out` without its escape sequences: CSI (`ESC [ … final`),
/// OSC (`ESC ] … BEL` or `ESC ] … ESC \`) and two-byte escapes (`ESC x`).
pub fn strip_into(line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < line.len() {
        let Some(off) = memchr(0x1b, &line[i..]) else {
            out.extend_from_slice(&line[i..]);
            break;
        };
        out.extend_from_slice(&line[i..i + off]);
        i += off + 1;
        match line.get(i) {
            Some(b'[') => {
                i += 1;
                while i < line.len() && !(0x40..=0x7e).contains(&line[i]) {
                    i += 1;
                }
                i += 1;
            }
            Some(b']') => {
                i += 1;
                while i < line.len() {
                    if line[i] == 0x07 {
                        i += 1;
                        break;
                    }
                    if line[i] == 0x1b && line.get(i + 1) == Some(&b'\\') {
                        i += 2;
                        break;
                    }
                    i += 1;
                }
            }
            Some(_) => i += 1,
            None => {}
        }
    }
}

/// `line` without escape sequences, borrowing when there are none.
pub fn strip(line: &str) -> std::borrow::Cow<'_, str> {
    if !has_escape(line.as_bytes()) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = Vec::with_capacity(line.len());
    strip_into(line.as_bytes(), &mut out);
    std::borrow::Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colours_and_titles() {
        assert_eq!(strip("\x1b[32mPASSED\x1b[0m a::b"), "PASSED a::b");
        assert_eq!(strip("\x1b[1;31mX\x1b[m"), "X");
        assert_eq!(strip("\x1b]0;title\x07ok"), "ok");
        assert_eq!(strip("plain"), "plain");
        assert_eq!(strip("cut\x1b["), "cut");
    }
}
