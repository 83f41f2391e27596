//! Writing to stdout and stderr without panicking when the reader has gone away
//! (`taskc check | head`).

use std::io::Write;

/// Write `text` to stderr; errors (a closed pipe) are ignored.
pub fn err(text: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(text.as_bytes());
    let _ = e.flush();
}

/// Write `text` to stdout; errors (a closed pipe) are ignored.
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// `error: <message>` on stderr, for problems that are not diagnostics of a spec.
pub fn error(message: &str) {
    err(&format!("error: {message}\n"));
}
