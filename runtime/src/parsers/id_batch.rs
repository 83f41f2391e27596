//! Collecting many test ids cheaply: ids are kept as byte ranges of the log
//! (or of a side buffer, for ids rewritten while parsing), sorted with a
//! cache-friendly 16-byte-key radix sort, and only turned into `String`s once,
//! in sorted order, when they move into a [`ParsedLog`].

use std::collections::BTreeMap;

use super::parsed_log::{Outcome, ParsedLog};

/// Where one id's bytes are.
#[derive(Clone, Copy)]
struct Item {
    start: usize,
    len: u32,
    in_extra: bool,
    outcome: Outcome,
}

/// Ids and outcomes borrowed from one log.
pub(crate) struct IdBatch<'a> {
    log: &'a [u8],
    extra: Vec<u8>,
    items: Vec<Item>,
}

impl<'a> IdBatch<'a> {
    pub fn new(log: &'a [u8]) -> Self {
        IdBatch {
            log,
            extra: Vec::new(),
            items: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }

    /// Adds `id`; borrows it when it lies inside the log, copies it otherwise.
    #[inline]
    pub fn push(&mut self, id: &[u8], outcome: Outcome) {
        let offset = (id.as_ptr() as usize).wrapping_sub(self.log.as_ptr() as usize);
        let len = u32::try_from(id.len()).unwrap_or(u32::MAX);
        let len_usize = len as usize;
        if offset <= self.log.len() && len_usize <= self.log.len() - offset {
            self.items.push(Item {
                start: offset,
                len,
                in_extra: false,
                outcome,
            });
        } else {
            let start = self.extra.len();
            self.extra.extend_from_slice(&id[..len_usize]);
            self.items.push(Item {
                start,
                len,
                in_extra: true,
                outcome,
            });
        }
    }

    #[inline]
    fn bytes(&self, item: &Item) -> &[u8] {
        let source = if item.in_extra {
            &self.extra[..]
        } else {
            self.log
        };
        &source[item.start..item.start + item.len as usize]
    }

    /// The ids from index `from` on.
    pub fn ids_from(&self, from: usize) -> impl Iterator<Item = &[u8]> {
        self.items[from.min(self.items.len())..]
            .iter()
            .map(|item| self.bytes(item))
    }

    /// Moves every id into `parsed` (which must hold no tests yet): sorted,
    /// repeated ids merged to their worst outcome and listed as duplicates.
    pub fn into_parsed(mut self, parsed: &mut ParsedLog) {
        let mut items = std::mem::take(&mut self.items);
        let lcp = common_prefix(&self, &items);
        radix_sort(&self, &mut items, lcp);
        let mut merged: Vec<(String, Outcome)> = Vec::with_capacity(items.len());
        let mut previous: Option<&[u8]> = None;
        for item in &items {
            let bytes = self.bytes(item);
            if previous == Some(bytes) {
                if let Some(last) = merged.last_mut() {
                    last.1 = last.1.max(item.outcome);
                    parsed.duplicates.push(last.0.clone());
                }
                continue;
            }
            previous = Some(bytes);
            merged.push((to_string(bytes), item.outcome));
        }
        let tests: BTreeMap<String, Outcome> = merged.into_iter().collect();
        if parsed.tests.is_empty() {
            parsed.tests = tests;
        } else {
            for (id, outcome) in tests {
                parsed.record(id, outcome);
            }
        }
    }
}

/// Bytes as a `String`, replacing invalid UTF-8.
#[inline]
pub(crate) fn to_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Length of the prefix every id shares.
fn common_prefix(batch: &IdBatch<'_>, items: &[Item]) -> usize {
    let Some(first) = items.first() else { return 0 };
    let first = batch.bytes(first);
    let mut lcp = first.len();
    for item in &items[1..] {
        let bytes = batch.bytes(item);
        let max = lcp.min(bytes.len());
        lcp = first[..max]
            .iter()
            .zip(&bytes[..max])
            .take_while(|(a, b)| a == b)
            .count();
        if lcp == 0 {
            break;
        }
    }
    lcp
}

/// The 16 bytes at `offset` as a big-endian number (missing bytes are 0), so
/// keys order like the byte strings.
#[inline]
fn key(bytes: &[u8], offset: usize) -> u128 {
    let mut buf = [0u8; 16];
    if offset < bytes.len() {
        let tail = &bytes[offset..];
        let n = tail.len().min(16);
        buf[..n].copy_from_slice(&tail[..n]);
    }
    u128::from_be_bytes(buf)
}

/// Sorts `items` by their bytes from `offset` on (an MSD radix sort with
/// 16-byte digits): sort small (key, index) pairs, then sort each run of equal
/// keys by the next 16 bytes.
fn radix_sort(batch: &IdBatch<'_>, items: &mut [Item], offset: usize) {
    if items.len() < 2 {
        return;
    }
    if items.len() <= 24 {
        items.sort_unstable_by(|a, b| {
            let (a, b) = (batch.bytes(a), batch.bytes(b));
            a.get(offset..)
                .unwrap_or(&[])
                .cmp(b.get(offset..).unwrap_or(&[]))
        });
        return;
    }
    let mut keyed: Vec<(u128, u32)> = items
        .iter()
        .enumerate()
        .map(|(i, item)| (key(batch.bytes(item), offset), i as u32))
        .collect();
    keyed.sort_unstable_by_key(|(key, _)| *key);
    let sorted: Vec<Item> = keyed.iter().map(|(_, i)| items[*i as usize]).collect();
    items.copy_from_slice(&sorted);
    let mut start = 0;
    while start < keyed.len() {
        let key = keyed[start].0;
        let mut end = start + 1;
        while end < keyed.len() && keyed[end].0 == key {
            end += 1;
        }
        // A key ending in 0 means every id of the run ended: they are equal.
        if end - start > 1 && key & 0xff != 0 {
            radix_sort(batch, &mut items[start..end], offset + 16);
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_strings_and_merges_duplicates() {
        let mut ids: Vec<String> = (0..500)
            .map(|i| format!("tests/test_m.py::test_{}", i * 7919 % 613))
            .collect();
        ids.push("tests/test_m.py::test_1".into());
        ids.push("a".into());
        ids.push("tests/test_m.py::test_".into());
        let log = ids.join("\n");
        let mut batch = IdBatch::new(log.as_bytes());
        let mut at = 0;
        for id in &ids {
            batch.push(&log.as_bytes()[at..at + id.len()], Outcome::Passed);
            at += id.len() + 1;
        }
        batch.push(b"zz-outside-the-log", Outcome::Failed);
        let mut parsed = ParsedLog::new();
        batch.into_parsed(&mut parsed);
        let mut expected: Vec<String> = ids.clone();
        expected.push("zz-outside-the-log".into());
        expected.sort();
        expected.dedup();
        assert_eq!(parsed.tests.keys().cloned().collect::<Vec<_>>(), expected);
        assert!(parsed
            .duplicates
            .contains(&"tests/test_m.py::test_1".to_string()));
    }
}
