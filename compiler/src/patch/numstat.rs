//! What `git apply --numstat -z` prints for a patch, from taskc's reading of it: one record
//! per file section, in patch order — `<added>\t<removed>\t<path>\0` (`-\t-\t` for a binary
//! patch), the path after the patch (before it, for a deletion). The run script compares it
//! byte for byte with what the git that applies the patch prints, so a patch the two read
//! differently (other files, other hunks) is refused before anything of it runs
//! (`docs/security.md`, "One reading of every patch").

use super::{LineKind, Patch};

/// The `git apply --numstat -z` output taskc expects for `patch`.
pub fn numstat_z(patch: &Patch) -> Vec<u8> {
    let mut out = Vec::new();
    for f in &patch.files {
        if f.binary {
            out.extend_from_slice(b"-\t-\t");
        } else {
            let count = |k: LineKind| {
                f.hunks
                    .iter()
                    .flat_map(|h| &h.lines)
                    .filter(|l| l.kind == k)
                    .count()
            };
            out.extend_from_slice(
                format!("{}\t{}\t", count(LineKind::Added), count(LineKind::Removed)).as_bytes(),
            );
        }
        out.extend_from_slice(f.path().as_bytes());
        out.push(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::parse_patch;

    #[test]
    fn one_record_per_file_in_patch_order() {
        let p = parse_patch(
            "diff --git a/z.py b/z.py\n--- a/z.py\n+++ b/z.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\
             diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n\
             diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
        )
        .expect("parses");
        assert_eq!(
            numstat_z(&p),
            b"1\t1\tz.py\x000\t0\tnew.py\x000\t1\tgone.py\x00".to_vec()
        );
    }
}
