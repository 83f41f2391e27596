//! Every plan has exactly the keys `docs/plan.schema.json` lists, with the JSON types it
//! says: a small structural validator (objects, arrays, `$ref`, `oneOf`, `const`, `enum`,
//! `type`), enough for the schema as written, with no extra dependency.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use serde_json::Value;
use taskc_compiler::lower::{lower_score, lower_verify, lower_workspace, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::{Plan, ScoreMode, WorkspaceMode};

fn schema() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/plan.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_u64() || v.is_i64(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

fn check(v: &Value, s: &Value, root: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        return check(v, &root["$defs"][name], root, at);
    }
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let ok: Vec<_> = alts
            .iter()
            .filter(|a| check(v, a, root, at).is_ok())
            .collect();
        return match ok.len() {
            1 => Ok(()),
            n => Err(format!("{at}: {n} of the oneOf alternatives match {v}")),
        };
    }
    if let Some(c) = s.get("const") {
        if c != v {
            return Err(format!("{at}: expected {c}, found {v}"));
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            return Err(format!("{at}: {v} is not one of {e:?}"));
        }
    }
    match s.get("type") {
        Some(Value::String(t)) if !type_ok(t, v) => return Err(format!("{at}: not {t}: {v}")),
        Some(Value::Array(ts)) if !ts.iter().any(|t| type_ok(t.as_str().unwrap_or(""), v)) => {
            return Err(format!("{at}: not any of {ts:?}: {v}"))
        }
        _ => {}
    }
    if let (Some(props), Some(obj)) = (
        s.get("properties").and_then(Value::as_object),
        v.as_object(),
    ) {
        // Every key the object has is listed; every listed key is present unless the schema
        // leaves it out of `required` (an optional key, e.g. `base_image_id`).
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_else(|| props.keys().map(String::as_str).collect());
        let mut h: Vec<&String> = obj.keys().collect();
        h.sort();
        let unlisted: Vec<&&String> = h.iter().filter(|k| !props.contains_key(**k)).collect();
        let missing: Vec<&&str> = required.iter().filter(|k| !obj.contains_key(**k)).collect();
        if !unlisted.is_empty() || !missing.is_empty() {
            return Err(format!(
                "{at}: keys {h:?}; not in the schema: {unlisted:?}; required but absent: {missing:?}"
            ));
        }
        for (k, sub) in props {
            if let Some(x) = obj.get(k) {
                check(x, sub, root, &format!("{at}.{k}"))?;
            }
        }
    } else if let (Some(extra), Some(obj)) = (s.get("additionalProperties"), v.as_object()) {
        if extra.is_object() {
            for (k, sub) in obj {
                check(sub, extra, root, &format!("{at}.{k}"))?;
            }
        }
    }
    if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            check(x, items, root, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn all_plans(t: &Task) -> Vec<Plan> {
    let o = LowerOptions::default();
    let ex = LowerOptions {
        exhaustive: true,
        ..LowerOptions::default()
    };
    let resolved = LowerOptions {
        base_image_id: Some("sha256:0123".into()),
        ..LowerOptions::default()
    };
    vec![
        lower_verify(t, &o).unwrap(),
        lower_verify(t, &ex).unwrap(),
        lower_verify(t, &resolved).unwrap(),
        lower_score(t, &o, ScoreMode::Joint).unwrap(),
        lower_score(t, &o, ScoreMode::Independent).unwrap(),
        lower_workspace(t, &o, WorkspaceMode::Joint).unwrap(),
        lower_workspace(t, &o, WorkspaceMode::Independent).unwrap(),
    ]
}

#[test]
fn every_plan_matches_the_schema_structurally() {
    let root = schema();
    let mut tasks = vec![plan_support::cookie_split()];
    tasks.extend(
        plan_support::example_names()
            .iter()
            .map(|n| plan_support::load_example(n)),
    );
    let mut checked = 0;
    for t in &tasks {
        for plan in all_plans(t) {
            let v: Value = serde_json::from_str(&plan.to_json_pretty()).unwrap();
            if let Err(e) = check(&v, &root, &root, "$") {
                panic!("{} {} plan: {e}", t.id, plan.kind().as_str());
            }
            checked += 1;
        }
    }
    assert!(checked >= 6);
}

#[test]
fn the_validator_catches_an_extra_or_missing_key() {
    let root = schema();
    let plan = lower_verify(&plan_support::cookie_split(), &LowerOptions::default()).unwrap();
    let mut v: Value = serde_json::to_value(&plan).unwrap();
    v["images"]["task"]["extra"] = Value::Bool(true);
    assert!(check(&v, &root, &root, "$").is_err());
    let mut v: Value = serde_json::to_value(&plan).unwrap();
    v["verify"]["runs"][0]
        .as_object_mut()
        .unwrap()
        .remove("network");
    assert!(check(&v, &root, &root, "$").is_err());
}
