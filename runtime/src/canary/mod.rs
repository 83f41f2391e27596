//! Canary tests (`docs/security.md`, defence 4): every verification and scoring run carries
//! tests taskc writes into the hidden test files after they are applied — per file, one
//! that must pass and one that must fail, in the file's framework's own idiom and with its
//! own assertions. Their names and numbers come from a seed drawn from the OS at run time
//! (never in the plan, which stays deterministic; nothing an agent can know or guess
//! before its run). A canary with the wrong outcome, or missing from a log that reports its
//! file's other tests, means the results were rewritten: the run is `tampered`. Canary ids
//! are removed from the results before the oracle or grading sees them.

mod args;
mod derive;
pub mod fail_fast;
pub mod framework;
mod group;
mod junit;
mod mocha;
mod names;
mod php;
mod ruby;
mod seed;
pub mod summary;
mod tcl;
mod unittest;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use taskc_compiler::patch::{parse_patch, LineKind};
use taskc_compiler::plan::{Run, Step};

use crate::backend::Upload;
use crate::parsers::Outcome;

pub use framework::Framework;
pub use seed::Seed;
pub use summary::{summarise, CanarySummary};

/// What a canary must do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expected {
    Pass,
    Fail,
    /// A copy of the hidden test `original` (`derive`): its outcome must be the original's.
    Same {
        original: String,
    },
}

/// One canary test placed in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canary {
    pub repo: String,
    /// The hidden test file it was written into (Go: the file next to which it was put).
    pub file: String,
    pub framework: Framework,
    /// The test's name (its id ends with it).
    pub name: String,
    pub expected: Expected,
}

/// The canaries of one run: the script lines that write them, their uploads, and why a
/// repository under test got none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    pub script: String,
    pub uploads: Vec<Upload>,
    pub canaries: Vec<Canary>,
    /// Repository → why no canary could be placed in its tests.
    pub unplaced: BTreeMap<String, String>,
    /// Repository → its test command as the run must run it with canaries in place
    /// (`cargo test --no-fail-fast`: a failing canary does not stop the run).
    pub commands: BTreeMap<String, String>,
    /// Hidden test files of a repository that got canaries elsewhere but none themselves,
    /// and why (`#![cfg(loom)]`: never compiled by the run): repository → notes.
    pub skipped: BTreeMap<String, Vec<String>>,
}

/// Where canary uploads land (with the other blobs, deleted before the tests start).
const CANARY_DIR: &str = "/taskc/blobs/canary";

fn quote(s: &str) -> String {
    crate::exec::script::sh_quote(s)
}

/// Place canaries for the test step of `run` (hidden test patches in `blobs`), named from
/// `seed`.
/// Per repository, the text at base of files a run's patches touch (path → text): the test
/// names a canary must not take although the hidden patch does not show them.
pub type BaseFiles = BTreeMap<String, BTreeMap<String, String>>;

/// [`place_with_base`] without files at base: canary names avoid only the names the hidden
/// patch shows.
pub fn place(run: &Run, blobs: &BTreeMap<String, String>, seed: &Seed) -> Placement {
    place_with_base(run, blobs, &BaseFiles::new(), seed)
}

/// Canaries for `run`, named apart from every test the hidden patch shows and every test
/// defined in `base` (the repository's files at base), so a canary never shares a name with
/// a real test (two pytest functions of one name: the later one replaces the other).
pub fn place_with_base(
    run: &Run,
    blobs: &BTreeMap<String, String>,
    base: &BaseFiles,
    seed: &Seed,
) -> Placement {
    let mut p = Placement::default();
    let mut k = 0u32;
    // Pytest: every module's canaries, placed by one `python3` (its start-up is most of
    // the cost: a second or more per process on a loaded machine).
    let mut modules: Vec<(String, Vec<(String, usize)>)> = Vec::new();
    for t in std::iter::once(&run.test) {
        let repo = &t.repo;
        let fw = match Framework::of(t) {
            Ok(fw) => fw,
            Err(why) => {
                p.unplaced.insert(repo.clone(), why);
                continue;
            }
        };
        if let Some(taskc_compiler::plan::TestSelection {
            how: taskc_compiler::plan::SelectHow::Command { .. },
            ..
        }) = &t.select
        {
            // The spec's `select` template runs only the given ids: canaries written into
            // the test files would not run.
            p.unplaced.insert(
                repo.clone(),
                "a `select` template narrows this run to given tests".into(),
            );
            continue;
        }
        if let Some(why) = fw.selection(&t.command) {
            p.unplaced.insert(repo.clone(), why);
            continue;
        }
        let patch = run.steps.iter().find_map(|s| match s {
            Step::ApplyTests { repo: r, blob } if r == repo => blobs.get(blob),
            _ => None,
        });
        // Per file: the test names the hidden patch shows for it (added and context lines),
        // and the runs of lines it shows (the tests a canary can copy).
        let mut shown: BTreeMap<String, String> = BTreeMap::new();
        let mut chunks: BTreeMap<String, derive::Shown> = BTreeMap::new();
        let files: Vec<String> = match patch.map(|text| parse_patch(text)) {
            Some(Ok(patch)) => {
                let mut v: Vec<String> = Vec::new();
                for f in &patch.files {
                    let Some(path) = f.new_path.clone().filter(|p| fw.carries(p)) else {
                        continue;
                    };
                    let text = shown.entry(path.clone()).or_default();
                    let seen = chunks.entry(path.clone()).or_default();
                    for h in &f.hunks {
                        if seen.chunks.is_empty() {
                            seen.from_top = h.new_start <= 1;
                        }
                        let mut chunk = Vec::new();
                        for l in &h.lines {
                            text.push_str(&l.text);
                            text.push('\n');
                            if l.kind != LineKind::Removed {
                                chunk.push(l.text.clone());
                            }
                        }
                        seen.chunks.push(chunk);
                    }
                    v.push(path);
                }
                v.sort();
                v.dedup();
                v
            }
            Some(Err(e)) => {
                p.unplaced.insert(
                    repo.clone(),
                    format!("the hidden test patch cannot be read: {e}"),
                );
                continue;
            }
            None => Vec::new(),
        };
        // Rust: a file compiled only under a cfg the run does not set runs no canary.
        let files: Vec<String> = files
            .into_iter()
            .filter(|f| {
                let gate = (fw == Framework::Cargo)
                    .then(|| chunks.get(f).and_then(derive::cfg_gate))
                    .flatten();
                if let Some(attr) = &gate {
                    p.skipped.entry(repo.clone()).or_default().push(format!(
                        "`{f}` is compiled only under `{attr}`, which the test command does not set: its tests and any canary in it never run"
                    ));
                }
                // JUnit: a class run by a runner of its own, or a JUnit 5 class.
                let unfit = (fw == Framework::Junit4)
                    .then(|| shown.get(f).and_then(|t| junit::unfit(t)))
                    .flatten();
                if let Some(why) = unfit {
                    p.skipped
                        .entry(repo.clone())
                        .or_default()
                        .push(format!("`{f}` {why}: it gets no canary"));
                }
                gate.is_none() && unfit.is_none()
            })
            .collect();
        // Go: the files the canaries copy tests of, then one literal canary file per
        // package folder left.
        let files: Vec<String> = if fw == Framework::GoTest {
            let copied: Vec<String> = files
                .iter()
                .filter(|f| {
                    chunks
                        .get(*f)
                        .is_some_and(|c| !derive::originals(fw, c).is_empty())
                })
                .cloned()
                .collect();
            let mut seen: BTreeSet<String> = copied.iter().map(|f| parent(f).to_string()).collect();
            let mut v = copied.clone();
            v.extend(
                files
                    .into_iter()
                    .filter(|f| !copied.contains(f) && seen.insert(parent(f).to_string())),
            );
            v.sort();
            v
        } else {
            files
        };
        if files.is_empty() {
            if let Some(notes) = p.skipped.remove(repo) {
                p.unplaced.insert(repo.clone(), notes.join("; "));
                continue;
            }
            p.unplaced.insert(
                repo.clone(),
                format!(
                    "the hidden test patch of `{repo}` leaves no {} test file to write canaries into",
                    fw.as_str()
                ),
            );
            continue;
        }
        let dir = format!("\"$TASKC_ROOT\"/work/{}", quote(repo));
        // Go: the package's test names (one canary file per package).
        let mut taken: BTreeSet<String> =
            shown.values().flat_map(|t| names::defined(fw, t)).collect();
        if let Some(files) = base.get(repo) {
            taken.extend(files.values().flat_map(|t| names::defined(fw, t)));
        }
        if fw == Framework::Phpt {
            // A `.phpt` test is named by its file: never one the patches touch.
            let touched = shown
                .keys()
                .chain(base.get(repo).into_iter().flat_map(|b| b.keys()));
            taken.extend(touched.map(|f| f.rsplit('/').next().unwrap_or(f).to_string()));
        }
        taken.extend(fw.reserved(&t.command));
        for file in files {
            let own = match fw {
                Framework::GoTest => shown
                    .iter()
                    .filter(|(f, _)| parent(f) == parent(&file))
                    .flat_map(|(_, t)| names::defined(fw, t))
                    .collect(),
                // phpt: the names of the hidden `.phpt` files of the folder.
                Framework::Phpt => shown
                    .keys()
                    .filter(|f| parent(f) == parent(&file))
                    .map(|f| php::stem(f).to_string())
                    .collect(),
                _ => names::defined(fw, shown.get(&file).map_or("", String::as_str)),
            };
            let vocab = match fw {
                Framework::Tcltest => tcl::prefixes(&own),
                _ => names::vocabulary(&own),
            };
            // Two or three pairs, in an order and (pytest) at places drawn per run: neither
            // their number nor their position in the file tells them apart, and at least two
            // must fail (leaving alone the last tests of a file does not spare them all).
            let pairs = 2 + seed.index(k + 1, 250, 2);
            let go_file = join(parent(&file), &go_file_name(&file, &vocab, seed, k + 1));
            let target = format!("{dir}/{}", quote(&file));
            // Pytest: (canary file, place) of each canary of this module, in order.
            let mut inserts: Vec<(String, usize)> = Vec::new();
            let mut originals = chunks
                .get(&file)
                .map(|c| derive::originals(fw, c))
                .unwrap_or_default();
            if fw == Framework::Phpt {
                // A `.phpt` test is its file: the copies are of the file, named like it.
                for o in &mut originals {
                    o.name = file.rsplit('/').next().unwrap_or(&file).to_string();
                }
            }
            // mocha, minitest, rspec, unittest: the file's top-level blocks a pair's block
            // can be written before (else it is appended).
            let blocks = chunks
                .get(&file)
                .map(|c| group::anchors(fw, c))
                .unwrap_or_default();
            for _ in 0..pairs {
                k += 1;
                if !originals.is_empty() {
                    let o = &originals[seed.index(k, 249, originals.len())];
                    let same = names::make(fw, &vocab, seed, k, 0, &mut taken);
                    let fail = names::make(fw, &vocab, seed, k, 1, &mut taken);
                    let other = names::make(fw, &vocab, seed, k, 2, &mut taken);
                    let mut texts = vec![
                        derive::copy(fw, o, &same, None),
                        derive::copy(fw, o, &fail, Some(&other)),
                    ];
                    if seed.index(k, 251, 2) == 1 {
                        texts.reverse();
                    }
                    if fw == Framework::Phpt {
                        let at = |n: &str| format!("{dir}/{}", quote(&join(parent(&file), n)));
                        p.script.push_str(&php::phpt_copy_script(
                            &target,
                            &at(&same),
                            &at(&fail),
                            &other,
                        ));
                    } else if fw == Framework::Pytest {
                        for (i, text) in texts.into_iter().enumerate() {
                            let blob = format!("{CANARY_DIR}/{k}.{i}.txt");
                            p.uploads.push(Upload {
                                path: blob.clone(),
                                bytes: text.into_bytes(),
                                mode: 0o644,
                            });
                            let at = seed.index(k, 252 + i as u8, 1 << 16);
                            inserts.push((format!("\"$TASKC_ROOT\"{blob}"), at));
                        }
                    } else {
                        let blob = format!("{CANARY_DIR}/{k}.txt");
                        p.uploads.push(Upload {
                            path: blob.clone(),
                            bytes: texts.concat().into_bytes(),
                            mode: 0o644,
                        });
                        p.script.push_str(&insert_before(
                            &target,
                            &o.anchor,
                            fw == Framework::Cargo,
                            &blob,
                        ));
                    }
                    for (name, expected) in [
                        (
                            same,
                            Expected::Same {
                                original: o.name.clone(),
                            },
                        ),
                        (fail, Expected::Fail),
                    ] {
                        p.canaries.push(Canary {
                            repo: repo.clone(),
                            file: file.clone(),
                            framework: fw,
                            name,
                            expected,
                        });
                    }
                    continue;
                }
                let pass = names::make(fw, &vocab, seed, k, 0, &mut taken);
                let fail = names::make(fw, &vocab, seed, k, 1, &mut taken);
                let fail_first = seed.index(k, 251, 2) == 1;
                // mocha, minitest, rspec, unittest: the pair's class or `describe` block.
                let block = group::name(fw, &own, &vocab, seed, k, &mut taken);
                let text = framework::pair(
                    fw,
                    &pass,
                    &fail,
                    seed.numbers(k),
                    &block.clone().unwrap_or_else(|| seed.hex(k, 2)),
                    fail_first,
                );
                let (pass, fail) = match &block {
                    Some(b) => (group::full(fw, b, &pass), group::full(fw, b, &fail)),
                    None => (pass, fail),
                };
                let blob = format!("{CANARY_DIR}/{k}.txt");
                if fw == Framework::Pytest {
                    // Each canary on its own, at its own place in the module (all of a
                    // file's canaries placed by one `python3` after the loop).
                    let (a, b) = seed.numbers(k);
                    for (i, (name, x)) in [(&pass, a), (&fail, b)].into_iter().enumerate() {
                        let blob = format!("{CANARY_DIR}/{k}.{i}.txt");
                        p.uploads.push(Upload {
                            path: blob.clone(),
                            bytes: framework::pytest_canary(name, a, x).into_bytes(),
                            mode: 0o644,
                        });
                        let at = seed.index(k, 252 + i as u8, 1 << 16);
                        inserts.push((format!("\"$TASKC_ROOT\"{blob}"), at));
                    }
                } else {
                    p.uploads.push(Upload {
                        path: blob.clone(),
                        bytes: text.text.into_bytes(),
                        mode: 0o644,
                    });
                    let src = format!("\"$TASKC_ROOT\"{blob}");
                    match (fw, text.esm) {
                        (Framework::GoTest, _) => {
                            let new = format!("{dir}/{}", quote(&go_file));
                            let alt = format!(
                                "{dir}/{}",
                                quote(&join(parent(&file), &format!("{}_test.go", seed.hex(k, 3))))
                            );
                            // The first pair writes the file (`$cf`: never over an existing one)
                            // with its `package` line; the others add their functions.
                            let body =
                                if p.canaries.iter().any(|c| c.repo == *repo && c.file == file) {
                                    format!("sed '/^import \"testing\"$/d' {src} >> \"$cf\"")
                                } else {
                                    format!(
                                        "cf={new}; [ -e \"$cf\" ] && cf={alt}\n\
                             {{ printf 'package %s\\n\\n' \"$pkg\"; cat {src}; }} > \"$cf\""
                                    )
                                };
                            p.script.push_str(&format!(
                        "pkg=$(sed -n 's/^package[[:space:]]\\{{1,\\}}\\([A-Za-z0-9_]\\{{1,\\}}\\).*/\\1/p' {target} | head -n 1)\n\
                         {body}\n"
                    ));
                        }
                        (_, Some(esm)) => {
                            let esm_blob = format!("{CANARY_DIR}/{k}.esm.txt");
                            p.uploads.push(Upload {
                                path: esm_blob.clone(),
                                bytes: esm.into_bytes(),
                                mode: 0o644,
                            });
                            let is_esm = if file.ends_with(".mjs") {
                                "true".to_string()
                            } else if file.ends_with(".cjs") {
                                "false".to_string()
                            } else {
                                format!("grep -qE '^[[:space:]]*(import|export)[[:space:]{{*]' {target}")
                            };
                            p.script.push_str(&format!(
                        "if {is_esm}; then cat \"$TASKC_ROOT\"{esm_blob} >> {target}; else cat {src} >> {target}; fi\n"
                    ));
                        }
                        (Framework::Phpunit, _) => {
                            p.script.push_str(&php::phpunit_script(&target, &src));
                        }
                        (Framework::Phpt, _) => {
                            let at = |n: &str| format!("{dir}/{}", quote(&join(parent(&file), n)));
                            p.script
                                .push_str(&php::phpt_script(&at(&pass), &at(&fail), &src));
                        }
                        (Framework::Tcltest, _) => {
                            p.script.push_str(&tcl::script(&target, &src));
                        }
                        (Framework::Junit4, _) => {
                            p.script.push_str(&junit::script(&target, &file, &src));
                        }
                        (_, None) => match group::place(&blocks, seed, k) {
                            Some(anchor) => {
                                p.script
                                    .push_str(&insert_before(&target, anchor, false, &blob));
                            }
                            None => p.script.push_str(&format!("cat {src} >> {target}\n")),
                        },
                    }
                }
                for (name, expected) in [(pass, Expected::Pass), (fail, Expected::Fail)] {
                    p.canaries.push(Canary {
                        repo: repo.clone(),
                        file: file.clone(),
                        framework: fw,
                        name,
                        expected,
                    });
                }
            }
            if !inserts.is_empty() {
                modules.push((target, inserts));
            }
        }
        if let Some(cmd) = fw.runs_everything(&t.command) {
            p.commands.insert(repo.clone(), cmd);
        }
    }
    if !modules.is_empty() {
        p.script.push_str(&pytest_insert_script(&modules));
    }
    p
}

/// The script lines writing the canaries of `blob` into `target` before its line `anchor`
/// (`back`: before the line above it too, a Rust test's `#[test]`), by the first line equal
/// to it. Read through the environment (no escape is interpreted); when the line is not
/// there the file stays as it was (its canaries are then missing from its results).
fn insert_before(target: &str, anchor: &str, back: bool, blob: &str) -> String {
    format!(
        "W={anchor} B={back} A=\"$TASKC_ROOT\"{blob} awk {awk} {target} > \"$TASKC_ROOT\"{blob}.out && cat \"$TASKC_ROOT\"{blob}.out > {target}\n",
        anchor = quote(anchor),
        back = u8::from(back),
        awk = quote(INSERT_AWK),
    )
}

/// Prints its input with the lines of file `A` before the first line equal to `W` (`B=1`:
/// before the line above it); fails when there is none.
const INSERT_AWK: &str = r#"{ if (!done && $0 == ENVIRON["W"]) { if (ENVIRON["B"] == "1") { while ((getline l < ENVIRON["A"]) > 0) print l; if (h) print p } else { if (h) print p; while ((getline l < ENVIRON["A"]) > 0) print l } h = 0; done = 1 } else if (h) print p; p = $0; h = 1 } END { if (h) print p; exit !done }"#;

/// The script line placing the pytest canaries of every module (`modules`: the module,
/// then each canary's file and place, in order) with one `python3`; when it cannot run (no
/// interpreter) every canary is appended to its module instead.
fn pytest_insert_script(modules: &[(String, Vec<(String, usize)>)]) -> String {
    let subject = framework::PYTEST_SUBJECT;
    let mut args = Vec::new();
    let mut appends = Vec::new();
    for (target, inserts) in modules {
        args.push(format!("{target} {}", inserts.len()));
        for (src, at) in inserts {
            args.push(format!("{src} {at}"));
            appends.push(format!(
                "{{ printf '\\n\\n'; sed 's/{subject}/__name__/g' {src}; }} >> {target}"
            ));
        }
    }
    format!(
        "python3 -I -S -c {py} {subject} {args} 2>/dev/null || {{ {appends}; }}\n",
        py = quote(PYTEST_INSERT),
        args = args.join(" "),
        appends = appends.join("; "),
    )
}

/// Inserts canaries into Python modules: `argv[1]` is a placeholder, then per module its
/// path, a count `c` and `c` pairs (file holding one canary, a number `n`). Each canary is
/// placed before one of the module's top-level definitions (decorators included; at the
/// end when it has none), the `n`-th modulo their number, with the placeholder replaced by
/// a name the module imports or defines. A canary whose insertion would not parse (or in a
/// module that does not parse) is appended at the end instead, with `__name__` for the
/// placeholder. Every module is written at the end, once all were read. Runs as
/// `python3 -I -S` (no `site`, no environment, no current folder on `sys.path`): nothing
/// of the agent's is imported.
const PYTEST_INSERT: &str = r#"import ast, sys
ph, args = sys.argv[1], sys.argv[2:]
defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
def insert(src, add, n):
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    spots = [min([d.lineno for d in x.decorator_list] + [x.lineno]) - 1 for x in tree.body if isinstance(x, defs)]
    names = []
    for x in tree.body:
        if isinstance(x, ast.ImportFrom) and x.module == "__future__":
            continue
        if isinstance(x, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in x.names if a.name != "*"]
        elif isinstance(x, defs) and not x.name.lower().startswith("test"):
            names.append(x.name)
    names = [m for m in names if m.isidentifier()] or ["__name__"]
    add = add.replace(ph, names[n % len(names)]).strip("\n") + "\n"
    i = spots[n % len(spots)] if spots else len(lines)
    head = "".join(lines[:i]).rstrip("\n")
    new = (head + "\n\n\n" if head else "") + add + "\n\n" + "".join(lines[i:])
    ast.parse(new)
    return new
out = []
while args:
    t, c = args[0], int(args[1])
    pairs, args = args[2:2 + 2 * c], args[2 + 2 * c:]
    src = open(t, encoding="utf-8").read()
    for s, n in zip(pairs[0::2], pairs[1::2]):
        add = open(s, encoding="utf-8").read()
        try:
            src = insert(src, add, int(n))
        except Exception:
            src += "\n\n" + add.replace(ph, "__name__")
    out.append((t, src))
for t, src in out:
    open(t, "w", encoding="utf-8").write(src)
"#;

/// The name of the Go canary file next to `file`: the hidden test file's stem and a word,
/// like a test file of the package.
fn go_file_name(file: &str, vocab: &[String], seed: &Seed, k: u32) -> String {
    let base = file.rsplit('/').next().unwrap_or(file);
    let stem = base.strip_suffix("_test.go").unwrap_or(base);
    let mut taken = BTreeSet::new();
    let word = names::make(Framework::Cargo, vocab, seed, k, 3, &mut taken);
    let word = word.rsplit('_').next().unwrap_or("extra");
    format!("{stem}_{word}_test.go")
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// What the canaries of one repository's tests showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum CanaryCheck {
    /// Every canary pair whose file ran had its outcome.
    Checked {
        pairs: usize,
        /// Hidden test files that could hold no canary, and why (`Placement::skipped`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        skipped: Vec<String>,
    },
    /// No canary could be placed (unsupported framework, no hidden test file).
    NotPlaced { why: String },
    /// The files holding them did not run (a collection or build error, no tests at all):
    /// nothing could be checked; the tests in them are missing too.
    NotRun { why: String },
    /// A canary had the wrong outcome, or vanished while its file's other tests were
    /// reported: the results were rewritten.
    Tampered { evidence: Vec<String> },
}

impl CanaryCheck {
    pub fn is_tampered(&self) -> bool {
        matches!(self, CanaryCheck::Tampered { .. })
    }
}

/// Whether the id `id` names the canary called `name`.
fn is_canary_id(id: &str, name: &str) -> bool {
    id == name
        || [":: ", "::", "/", " > ", "."]
            .iter()
            .any(|sep| id.strip_suffix(name).is_some_and(|h| h.ends_with(sep)))
}

/// Check the canaries of `repo` against its reported `tests`, removing every canary id
/// from them.
pub fn check(
    placement: &Placement,
    repo: &str,
    tests: &mut BTreeMap<String, Outcome>,
) -> CanaryCheck {
    let mine: Vec<&Canary> = placement
        .canaries
        .iter()
        .filter(|c| c.repo == repo)
        .collect();
    if mine.is_empty() {
        return CanaryCheck::NotPlaced {
            why: placement
                .unplaced
                .get(repo)
                .cloned()
                .unwrap_or_else(|| "no canary was placed".into()),
        };
    }
    // Each canary's worst outcome, and the outcome of the hidden test it copies.
    let mut seen: Vec<Option<Outcome>> = Vec::new();
    let mut originals: Vec<Option<Outcome>> = Vec::new();
    for c in &mine {
        let ids: Vec<String> = tests
            .keys()
            .filter(|id| is_canary_id(id, &c.name))
            .cloned()
            .collect();
        let mut worst = None;
        let mut original = None;
        for id in ids {
            if let Some(o) = tests.remove(&id) {
                worst = Some(worst.map_or(o, |w: Outcome| w.max(o)));
            }
            if let (Expected::Same { original: name }, Some(head)) =
                (&c.expected, id.strip_suffix(c.name.as_str()))
            {
                original = original.or_else(|| tests.get(&format!("{head}{name}")).copied());
            }
        }
        seen.push(worst);
        originals.push(original);
    }
    let mut evidence = Vec::new();
    let mut pairs = 0;
    let mut not_run = Vec::new();
    for ((pair, outcomes), copied) in mine.chunks(2).zip(seen.chunks(2)).zip(originals.chunks(2)) {
        let mut pair_ok = true;
        let mut missing = false;
        for ((c, o), original) in pair.iter().zip(outcomes).zip(copied) {
            let failed = |o: &Outcome| matches!(o, Outcome::Failed | Outcome::Error);
            match (&c.expected, o) {
                (Expected::Pass, Some(Outcome::Passed)) => {}
                (Expected::Fail, Some(o)) if failed(o) => {}
                (_, None) => missing = true,
                (Expected::Same { original: name }, Some(o)) => {
                    // Unlike its original: one of the two was rewritten (a skip or an
                    // original missing from the results proves nothing here).
                    if let Some(w) = original {
                        if (*o == Outcome::Passed && failed(w))
                            || (failed(o) && *w == Outcome::Passed)
                        {
                            pair_ok = false;
                            evidence.push(format!(
                                "canary `{}` in `{}`, a copy of the hidden test `{name}`, {o} while `{name}` {w}",
                                c.name, c.file
                            ));
                        }
                    }
                }
                (expected, Some(o)) => {
                    pair_ok = false;
                    evidence.push(format!(
                        "canary `{}` in `{}` must {} but {o}",
                        c.name,
                        c.file,
                        match expected {
                            Expected::Fail => "fail",
                            _ => "pass",
                        }
                    ));
                }
            }
        }
        let Some(first) = pair.first() else { continue };
        if missing {
            match file_ran(first, tests) {
                true => {
                    pair_ok = false;
                    evidence.push(format!(
                        "canaries of `{}` are missing from the results while its other tests are reported",
                        first.file
                    ));
                }
                false => {
                    not_run.push(first.file.clone());
                    continue;
                }
            }
        }
        if pair_ok {
            pairs += 1;
        }
    }
    if !evidence.is_empty() {
        return CanaryCheck::Tampered { evidence };
    }
    if pairs == 0 {
        return CanaryCheck::NotRun {
            why: format!(
                "the files holding the canaries did not run: {}",
                not_run.join(", ")
            ),
        };
    }
    CanaryCheck::Checked {
        pairs,
        skipped: placement.skipped.get(repo).cloned().unwrap_or_default(),
    }
}

/// Whether the log shows that `c`'s file ran (so its canaries should be there).
fn file_ran(c: &Canary, tests: &BTreeMap<String, Outcome>) -> bool {
    let errored = |id: &str| id == c.file || id.ends_with(&format!("/{}", c.file));
    if tests
        .iter()
        .any(|(id, o)| *o == Outcome::Error && errored(id))
    {
        return false;
    }
    match c.framework {
        Framework::Pytest => {
            let prefix = format!("{}::", c.file);
            tests.keys().any(|id| id.starts_with(&prefix))
        }
        Framework::GoTest => {
            // A package that failed to build is recorded under the package path alone.
            let package_failed = tests
                .iter()
                .any(|(id, o)| *o == Outcome::Error && !id.contains("/Test"));
            !package_failed && tests.values().any(|o| *o != Outcome::Error)
        }
        Framework::NodeTest
        | Framework::Jest
        | Framework::Cargo
        | Framework::Phpunit
        | Framework::Phpt
        | Framework::Tcltest => tests.values().any(|o| *o != Outcome::Error),
        Framework::Mocha | Framework::Minitest | Framework::Rspec | Framework::Unittest => {
            group::file_ran(c.framework, &c.file, tests)
        }
        Framework::Junit4 => junit::file_ran(&c.file, tests),
    }
}

#[cfg(test)]
mod script_tests;
#[cfg(test)]
mod tests;
