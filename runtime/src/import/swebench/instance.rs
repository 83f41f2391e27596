//! SWE-bench instances read from a JSON array, JSON lines, or the per-task folder layout.

use std::path::{Path, PathBuf};

use serde_json::Value;
use taskc_compiler::{Code, Diagnostic, SourceId};

use crate::import::files::CaseFiles;
use crate::import::yaml;

/// Where an instance's environment comes from.
#[derive(Debug, Clone)]
pub enum EnvSource {
    /// SWE-bench's install specification for the repository and version.
    Spec,
    /// A per-task folder's own Dockerfile and eval script.
    Folder { dockerfile: String, eval: String },
}

#[derive(Debug, Clone)]
pub struct Instance {
    pub id: String,
    pub repo: String,
    pub base_commit: String,
    pub patch: String,
    pub test_patch: String,
    pub f2p: Vec<String>,
    pub p2p: Vec<String>,
    pub version: String,
    pub problem_statement: String,
    pub created_at: Option<String>,
    pub env: EnvSource,
    /// Where the instance is written (for diagnostics).
    pub at: (SourceId, usize),
    /// The file it came from, and that file's sha256.
    pub file: String,
    pub sha256: String,
}

/// One instance as read: its diagnostics, and the instance when it could be read.
pub struct Item {
    pub name: String,
    pub files: CaseFiles,
    pub instance: Option<Instance>,
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}

/// Every instance of `path` (a file or a task-repository folder).
pub fn read_all(path: &Path) -> Result<Vec<Item>, String> {
    if path.is_dir() {
        return read_folders(path);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let shown = path.display().to_string();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let digest = sha256(text.as_bytes());
    let dir = path.parent().unwrap_or(Path::new("."));
    // The text of one line, padded so line numbers stay right, as a diagnostic source.
    let line_source = |files: &mut CaseFiles, line: usize| -> SourceId {
        let content = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
        files.sources.add(
            shown.clone(),
            format!("{}{content}\n", "\n".repeat(line.saturating_sub(1))),
        )
    };
    let new_files = || {
        let mut f = CaseFiles::new(dir);
        f.shown = dir.display().to_string();
        f
    };
    // Each row, or the diagnostics of a row that does not parse (kept in order).
    let mut rows: Vec<(usize, Result<Value, CaseFiles>)> = Vec::new();
    if text.trim_start().starts_with('[') {
        match serde_json::from_str::<Vec<Value>>(&text) {
            Ok(v) => {
                // Each row is labelled at the line of its `"instance_id"` key.
                let lines: Vec<usize> = text
                    .lines()
                    .enumerate()
                    .filter(|(_, l)| l.contains("\"instance_id\""))
                    .map(|(i, _)| i + 1)
                    .collect();
                rows = v
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| (lines.get(i).copied().unwrap_or(1), Ok(r)))
                    .collect();
            }
            Err(e) => {
                let mut files = new_files();
                let src = line_source(&mut files, e.line());
                syntax(
                    &mut files,
                    src,
                    e.line(),
                    e.column(),
                    &shown,
                    &e.to_string(),
                );
                rows.push((e.line(), Err(files)));
            }
        }
    } else {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(line) {
                Ok(v) => rows.push((i + 1, Ok(v))),
                Err(e) => {
                    let mut files = new_files();
                    let src = line_source(&mut files, i + 1);
                    syntax(&mut files, src, i + 1, e.column(), &shown, &e.to_string());
                    rows.push((i + 1, Err(files)));
                }
            }
        }
    }
    let mut items = Vec::new();
    for (line, row) in rows {
        let row = match row {
            Ok(r) => r,
            Err(files) => {
                items.push(Item {
                    name: format!("{name}:{line}"),
                    files,
                    instance: None,
                });
                continue;
            }
        };
        let mut files = new_files();
        let src = line_source(&mut files, line);
        let at = line.saturating_sub(1);
        let inst = from_row(&mut files, &row, (src, at), &name, &digest);
        let label = inst
            .as_ref()
            .map(|i| i.id.clone())
            .or_else(|| text_field(&row, "instance_id"))
            .unwrap_or_else(|| format!("{name}:{line}"));
        items.push(Item {
            name: label,
            files,
            instance: inst,
        });
    }
    Ok(items)
}

fn syntax(files: &mut CaseFiles, src: SourceId, line: usize, col: usize, shown: &str, msg: &str) {
    let text = &files.sources.get(src).text;
    let line_start = text.len() - text.lines().last().map_or(0, str::len) - 1;
    let at = (line_start + col.saturating_sub(1)).min(text.len());
    let label = files.at(src, at, "here");
    files.emit(
        Diagnostic::new(
            Code::ImportSyntax,
            format!("`{shown}` line {line} is not valid JSON: {msg}"),
            label,
        )
        .with_help("each instance is one JSON object (a JSON array of them, or one per line)"),
    );
}

fn field_error(files: &mut CaseFiles, at: (SourceId, usize), message: String, help: &str) {
    let label = files.at(at.0, at.1, "here");
    files.emit(Diagnostic::new(Code::ImportField, message, label).with_help(help.to_string()));
}

/// A string field (a number is read as its text: some datasets write `version: 3.0`).
fn text_field(row: &Value, key: &str) -> Option<String> {
    match row.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `FAIL_TO_PASS` / `PASS_TO_PASS`: a list of strings, or a JSON string holding one.
fn id_list(row: &Value, key: &str) -> Result<Vec<String>, String> {
    let v = match row.get(key) {
        None | Some(Value::Null) => return Err(format!("has no `{key}`")),
        Some(Value::String(s)) => serde_json::from_str::<Value>(s)
            .map_err(|e| format!("`{key}` is a string but not a JSON list: {e}"))?,
        Some(v) => v.clone(),
    };
    match v {
        Value::Array(items) => items
            .into_iter()
            .map(|i| match i {
                Value::String(s) => Ok(s),
                other => Err(format!("`{key}` holds {other}, not a test id string")),
            })
            .collect(),
        other => Err(format!("`{key}` is {other}, not a list of test ids")),
    }
}

fn from_row(
    files: &mut CaseFiles,
    row: &Value,
    at: (SourceId, usize),
    file: &str,
    sha256: &str,
) -> Option<Instance> {
    if !row.is_object() {
        field_error(
            files,
            at,
            "an instance must be a JSON object".into(),
            "write one object per instance",
        );
        return None;
    }
    let mut missing = Vec::new();
    let mut get = |k: &str| {
        let v = text_field(row, k);
        if v.is_none() {
            missing.push(k.to_string());
        }
        v.unwrap_or_default()
    };
    let id = get("instance_id");
    let repo = get("repo");
    let base_commit = get("base_commit");
    let patch = get("patch");
    let test_patch = get("test_patch");
    let version = get("version");
    let problem_statement = get("problem_statement");
    if !missing.is_empty() {
        field_error(
            files,
            at,
            format!(
                "instance {} lacks {} (or has the wrong type)",
                if id.is_empty() { "(no id)".to_string() } else { format!("`{id}`") },
                missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
            ),
            "SWE-bench rows carry instance_id, repo, base_commit, patch, test_patch, version and problem_statement as strings",
        );
        return None;
    }
    let lists = (id_list(row, "FAIL_TO_PASS"), id_list(row, "PASS_TO_PASS"));
    let (f2p, p2p) = match lists {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            field_error(
                files,
                at,
                format!("instance `{id}` {e}"),
                "write the test ids as a JSON list of strings",
            );
            return None;
        }
    };
    if base_commit.len() != 40 || !base_commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        field_error(
            files,
            at,
            format!("instance `{id}`: base_commit `{base_commit}` is not a full 40-hex commit"),
            "give the full commit sha",
        );
        return None;
    }
    Some(Instance {
        id,
        repo,
        base_commit,
        patch,
        test_patch,
        f2p,
        p2p,
        version,
        problem_statement,
        created_at: text_field(row, "created_at"),
        env: EnvSource::Spec,
        at,
        file: file.to_string(),
        sha256: sha256.to_string(),
    })
}

/// The per-task layout: `PATH/tasks/<id>/`, or PATH itself a task folder.
fn read_folders(path: &Path) -> Result<Vec<Item>, String> {
    let dirs: Vec<PathBuf> = if path.join("task.yaml").is_file() {
        vec![path.to_path_buf()]
    } else {
        let tasks = path.join("tasks");
        let mut d: Vec<PathBuf> = std::fs::read_dir(&tasks)
            .map_err(|e| {
                format!("neither a task folder (task.yaml) nor a task repository (tasks/): {e}")
            })?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        d.sort();
        d
    };
    Ok(dirs.iter().map(|d| read_folder(d)).collect())
}

fn read_folder(dir: &Path) -> Item {
    let mut files = CaseFiles::new(dir);
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let task = files.yaml("task.yaml", "task metadata");
    let tests = files.yaml("tests.json", "tests list");
    let statement = files.text("problem_statement.md", "problem statement");
    let gold = files.text("gold.patch", "gold patch");
    let test = files.text("test.patch", "test patch");
    let eval = files.text("eval.sh", "eval script");
    let docker = files.text("Dockerfile", "Dockerfile");
    let (
        Some(task),
        Some(tests),
        Some(statement),
        Some(gold),
        Some(test),
        Some(eval),
        Some(docker),
    ) = (task, tests, statement, gold, test, eval, docker)
    else {
        return Item {
            name,
            files,
            instance: None,
        };
    };
    // task.yaml and tests.json into one row, as SWE-bench's loader does.
    let mut row = serde_json::Map::new();
    for (k, _, v) in task.root.entries().iter().chain(tests.root.entries()) {
        if let Some(j) = to_json(v) {
            row.insert(k.clone(), j);
        }
    }
    row.insert("patch".into(), Value::String(gold.text));
    row.insert("test_patch".into(), Value::String(test.text));
    row.insert("problem_statement".into(), Value::String(statement.text));
    let digest = sha256(files.sources.get(tests.source).text.as_bytes());
    let mut inst = from_row(
        &mut files,
        &Value::Object(row),
        (task.source, 0),
        "tests.json",
        &digest,
    );
    if let Some(i) = &mut inst {
        i.env = EnvSource::Folder {
            dockerfile: docker.text,
            eval: eval.text,
        };
    }
    let label = inst.as_ref().map_or(name, |i| i.id.clone());
    Item {
        name: label,
        files,
        instance: inst,
    }
}

fn to_json(n: &yaml::Node) -> Option<Value> {
    Some(match &n.value {
        yaml::Value::Null => Value::Null,
        yaml::Value::Scalar { text, .. } => Value::String(text.clone()),
        yaml::Value::Seq(items) => Value::Array(items.iter().filter_map(to_json).collect()),
        yaml::Value::Map(m) => Value::Object(
            m.iter()
                .filter_map(|(k, _, v)| Some((k.clone(), to_json(v)?)))
                .collect(),
        ),
    })
}

/// The test command of an eval script: the lines between SWE-bench's output markers.
pub fn eval_command(eval: &str) -> Option<String> {
    let start = eval.find(">>>>> Start Test Output")?;
    let after = eval[start..].find('\n').map(|i| start + i + 1)?;
    let end = eval[after..]
        .find(">>>>> End Test Output")
        .map(|i| after + i)?;
    let body = &eval[after..end];
    // Drop the marker line's own prefix (`: '` or `echo "`) left before the end marker.
    let lines: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(':') && !l.starts_with("echo"))
        .collect();
    let cmd = lines.join(" && ");
    (!cmd.is_empty()).then_some(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f2p_lists_as_lists_or_json_strings() {
        let row: Value =
            serde_json::json!({"A": ["x::y"], "B": "[\"p::q\", \"r::s\"]", "C": "nope", "D": 3});
        assert_eq!(id_list(&row, "A"), Ok(vec!["x::y".to_string()]));
        assert_eq!(id_list(&row, "B").map(|v| v.len()), Ok(2));
        assert!(id_list(&row, "C").is_err());
        assert!(id_list(&row, "D").is_err());
        assert!(id_list(&row, "E").is_err());
    }

    #[test]
    fn eval_command_between_markers() {
        let eval = "git apply -v - <<'EOF'\nx\nEOF\n: '>>>>> Start Test Output'\npytest -rA tests/test_a.py\n: '>>>>> End Test Output'\ngit checkout x\n";
        assert_eq!(
            eval_command(eval).as_deref(),
            Some("pytest -rA tests/test_a.py")
        );
        assert_eq!(eval_command("pytest"), None);
    }
}
