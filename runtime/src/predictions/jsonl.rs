//! Reading predictions from JSONL, one object per line, in taskc's format
//! `{"task": …, "model": …, "patches": {"<repo>": "<unified diff>"}}` or SWE-bench's
//! `{"instance_id": …, "model_name_or_path": …, "model_patch": …}` (one combined diff whose
//! paths start with the repository folder; see [`super::split`]).
//!
//! A bad line is reported with its line number (and column, for JSON syntax errors) and
//! skipped; every other line is kept.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::split::split_by_repo;
use super::Prediction;

/// Why one line of a predictions file was skipped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PredictionError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column of a JSON syntax error, if that is what it is.
    pub column: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for PredictionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.column {
            Some(c) => write!(f, "line {}, column {c}: {}", self.line, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Line {
    Taskc {
        task: String,
        model: String,
        #[serde(default)]
        patches: BTreeMap<String, Option<String>>,
    },
    SweBench {
        instance_id: String,
        model_name_or_path: String,
        #[serde(default)]
        model_patch: Option<String>,
    },
}

/// Parse `text`, a JSONL predictions file. `known_repos_by_task` names every known task and
/// its repositories (targets and context); a line naming an unknown task or repository is an
/// error. Blank lines are ignored.
pub fn parse_predictions(
    text: &str,
    known_repos_by_task: &BTreeMap<String, Vec<String>>,
) -> (Vec<Prediction>, Vec<PredictionError>) {
    let mut preds = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        match parse_line(raw, known_repos_by_task) {
            Ok(p) => preds.push(p),
            Err((column, message)) => errors.push(PredictionError {
                line,
                column,
                message,
            }),
        }
    }
    (preds, errors)
}

fn parse_line(
    raw: &str,
    known: &BTreeMap<String, Vec<String>>,
) -> Result<Prediction, (Option<usize>, String)> {
    let value: serde_json::Value =
        serde_json::from_str(raw).map_err(|e| (Some(e.column()), json_message(&e)))?;
    let parsed: Line = serde_json::from_value(value).map_err(|_| {
        (
            None,
            "expected an object with `task`, `model` and `patches` (taskc) or `instance_id`, `model_name_or_path` and `model_patch` (SWE-bench)".to_string(),
        )
    })?;
    let (task, model) = match &parsed {
        Line::Taskc { task, model, .. } => (task.clone(), model.clone()),
        Line::SweBench {
            instance_id,
            model_name_or_path,
            ..
        } => (instance_id.clone(), model_name_or_path.clone()),
    };
    let Some(repos) = known.get(&task) else {
        let names: Vec<&str> = known.keys().map(String::as_str).collect();
        return Err((
            None,
            format!("unknown task `{task}` (known: {})", names.join(", ")),
        ));
    };
    let patches = match parsed {
        Line::Taskc { patches, .. } => {
            let mut out = BTreeMap::new();
            for (repo, diff) in patches {
                if !repos.contains(&repo) {
                    return Err((
                        None,
                        format!(
                            "task `{task}` has no repository `{repo}` (its repositories: {})",
                            repos.join(", ")
                        ),
                    ));
                }
                if let Some(d) = diff.filter(|d| !d.trim().is_empty()) {
                    out.insert(repo, d);
                }
            }
            out
        }
        Line::SweBench { model_patch, .. } => {
            split_by_repo(model_patch.as_deref().unwrap_or(""), repos)
                .map_err(|e| (None, format!("model_patch: {e}")))?
        }
    };
    Ok(Prediction {
        task,
        model,
        patches,
    })
}

/// serde_json's message without its own " at line 1 column N" tail (we say it ourselves).
fn json_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => format!("not valid JSON: {}", &s[..i]),
        None => format!("not valid JSON: {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeMap<String, Vec<String>> {
        BTreeMap::from([(
            "cookie-split".to_string(),
            vec![
                "proxy".to_string(),
                "gateway".to_string(),
                "docs".to_string(),
            ],
        )])
    }

    #[test]
    fn reads_both_formats_and_reports_bad_lines() {
        let text = r#"{"task":"cookie-split","model":"m1","patches":{"proxy":"--- a/x\n+++ b/x\n","gateway":""}}

{"task":"cookie-split","model":"m1","patches":{
{"instance_id":"cookie-split","model_name_or_path":"swe","model_patch":"diff --git a/gateway/g.py b/gateway/g.py\n--- a/gateway/g.py\n+++ b/gateway/g.py\n@@ -1 +1 @@\n-a\n+b\n"}
{"instance_id":"cookie-split","model_name_or_path":"swe","model_patch":"diff --git a/setup.py b/setup.py\n"}
{"task":"nope","model":"m","patches":{}}
{"task":"cookie-split","model":"m","patches":{"api":"x"}}
[1,2]
{"instance_id":"cookie-split","model_name_or_path":"swe","model_patch":null}
"#;
        let (preds, errors) = parse_predictions(text, &known());
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            shown,
            vec![
                "line 3, column 47: not valid JSON: EOF while parsing an object",
                "line 5: model_patch: `setup.py` is not inside a repository of the task (known: proxy, gateway, docs); paths must start with the repository folder, e.g. `a/<repo>/src/file`",
                "line 6: unknown task `nope` (known: cookie-split)",
                "line 7: task `cookie-split` has no repository `api` (its repositories: proxy, gateway, docs)",
                "line 8: expected an object with `task`, `model` and `patches` (taskc) or `instance_id`, `model_name_or_path` and `model_patch` (SWE-bench)",
            ]
        );
        assert_eq!(preds.len(), 3);
        assert_eq!(preds[0].model, "m1");
        assert_eq!(preds[0].patches.keys().collect::<Vec<_>>(), vec!["proxy"]);
        assert_eq!(
            preds[1].patches["gateway"],
            "diff --git a/g.py b/g.py\n--- a/g.py\n+++ b/g.py\n@@ -1 +1 @@\n-a\n+b\n"
        );
        assert!(preds[2].patches.is_empty());
    }

    #[test]
    fn lines_round_trip() {
        let p = Prediction {
            task: "cookie-split".into(),
            model: "m".into(),
            patches: BTreeMap::from([("proxy".into(), "diff\n".into())]),
        };
        let (back, errors) = parse_predictions(&p.to_json_line(), &known());
        assert!(errors.is_empty());
        assert_eq!(back, vec![p]);
    }
}
