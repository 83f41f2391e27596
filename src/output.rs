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

/// Print `text` on stderr unless this process printed it already (specs of one folder
/// share their `taskc.toml`: its warnings and errors are shown once).
pub fn once(text: &str) {
    static SHOWN: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let fresh = SHOWN
        .lock()
        .map(|mut s| s.insert(text.to_string()))
        .unwrap_or(true);
    if fresh {
        err(text);
    }
}

/// The current time as RFC 3339 UTC with seconds (`2026-12-01T10:54:39Z`), for the `time`
/// of JSON output lines.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

/// `secs` since the Unix epoch as RFC 3339 UTC (proleptic Gregorian; Hinnant's algorithm).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_dates() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::rfc3339(1_795_000_000), "2026-11-18T11:06:40Z");
    }
}
