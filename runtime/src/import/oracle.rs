//! The imported oracle: the fail-to-pass and pass-to-pass tests another benchmark recorded
//! for each repository, written beside the spec as `<task>.oracle.toml` (format in
//! docs/import.md), and its comparison with what `taskc verify` derived.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::ids::normalise;

pub const ORACLE_SCHEMA: &str = "taskc.oracle/1";

/// `<task>.oracle.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Oracle {
    /// Always [`ORACLE_SCHEMA`].
    pub schema: String,
    /// Which benchmark recorded it (`wideswe`, `swebench`).
    pub origin: String,
    /// The file it was read from, relative to the case (or the instances file's name).
    pub file: String,
    /// sha256 of that file's bytes.
    pub sha256: String,
    /// Per repository (the spec's repository names), sorted.
    pub repos: BTreeMap<String, OracleRepo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct OracleRepo {
    /// Fail-to-pass ids as the benchmark wrote them (tests missing at base that pass with
    /// gold count here, as in taskc).
    #[serde(default)]
    pub f2p: Vec<String>,
    #[serde(default)]
    pub p2p: Vec<String>,
}

impl Oracle {
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# The oracle {} recorded for this task, imported by `taskc import`.\n# `taskc verify --compare-oracle <this file>` compares it with the derived one (docs/import.md).\n{body}",
            self.origin
        )
    }
}

/// Why an oracle file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleError(pub String);

impl std::fmt::Display for OracleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub fn parse_oracle(text: &str) -> Result<Oracle, OracleError> {
    let o: Oracle = toml::from_str(text).map_err(|e| OracleError(e.to_string()))?;
    if o.schema != ORACLE_SCHEMA {
        return Err(OracleError(format!(
            "schema is {:?}, expected {ORACLE_SCHEMA:?}",
            o.schema
        )));
    }
    Ok(o)
}

/// One list (F2P or P2P) of one repository, compared.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ListAgreement {
    pub both: usize,
    /// In the imported oracle only (normalised ids).
    pub only_oracle: Vec<String>,
    /// Derived by taskc only (normalised ids).
    pub only_taskc: Vec<String>,
}

impl ListAgreement {
    fn new(oracle: &[String], taskc: &[String]) -> ListAgreement {
        let o: BTreeSet<String> = oracle.iter().map(|s| normalise(s)).collect();
        let t: BTreeSet<String> = taskc.iter().map(|s| normalise(s)).collect();
        ListAgreement {
            both: o.intersection(&t).count(),
            only_oracle: o.difference(&t).cloned().collect(),
            only_taskc: t.difference(&o).cloned().collect(),
        }
    }

    pub fn agrees(&self) -> bool {
        self.only_oracle.is_empty() && self.only_taskc.is_empty()
    }
}

/// One repository, compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepoAgreement {
    pub repo: String,
    pub f2p: ListAgreement,
    pub p2p: ListAgreement,
    /// The oracle names the repository but taskc derived nothing for it (or the reverse).
    pub missing: Option<&'static str>,
}

impl RepoAgreement {
    pub fn agrees(&self) -> bool {
        self.missing.is_none() && self.f2p.agrees() && self.p2p.agrees()
    }
}

/// Compare `oracle` with taskc's derived lists (`repo → (f2p, p2p)`), per repository.
pub fn compare(
    oracle: &Oracle,
    derived: &BTreeMap<String, (Vec<String>, Vec<String>)>,
) -> Vec<RepoAgreement> {
    let names: BTreeSet<&String> = oracle.repos.keys().chain(derived.keys()).collect();
    let empty = (Vec::new(), Vec::new());
    names
        .into_iter()
        .map(|name| {
            let o = oracle.repos.get(name);
            let d = derived.get(name);
            let missing = match (o, d) {
                (Some(_), None) => Some("taskc derived no oracle for this repository"),
                (None, Some(_)) => Some("the imported oracle does not name this repository"),
                _ => None,
            };
            let o = o.cloned().unwrap_or_default();
            let d = d.unwrap_or(&empty);
            RepoAgreement {
                repo: name.clone(),
                f2p: ListAgreement::new(&o.f2p, &d.0),
                p2p: ListAgreement::new(&o.p2p, &d.1),
                missing,
            }
        })
        .collect()
}

/// The agreement as a table: counts per repository, then every differing id.
pub fn render(rows: &[RepoAgreement]) -> String {
    let mut out = String::from("oracle comparison (imported vs derived, ids normalised):\n");
    let width = rows.iter().map(|r| r.repo.len()).max().unwrap_or(4).max(4);
    out.push_str(&format!(
        "  {:<width$}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  verdict\n",
        "repo", "f2p both", "f2p only-o", "f2p only-t", "p2p both", "p2p only-o", "p2p only-t"
    ));
    for r in rows {
        out.push_str(&format!(
            "  {:<width$}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}  {}\n",
            r.repo,
            r.f2p.both,
            r.f2p.only_oracle.len(),
            r.f2p.only_taskc.len(),
            r.p2p.both,
            r.p2p.only_oracle.len(),
            r.p2p.only_taskc.len(),
            if r.agrees() { "agree" } else { "DIFFER" }
        ));
    }
    for r in rows {
        if let Some(m) = r.missing {
            out.push_str(&format!("  {}: {m}\n", r.repo));
        }
        for (list, l) in [("f2p", &r.f2p), ("p2p", &r.p2p)] {
            for id in &l.only_oracle {
                out.push_str(&format!(
                    "  {} {list}: only in the imported oracle: {id}\n",
                    r.repo
                ));
            }
            for id in &l.only_taskc {
                out.push_str(&format!(
                    "  {} {list}: only derived by taskc: {id}\n",
                    r.repo
                ));
            }
        }
    }
    let agree = rows.iter().filter(|r| r.agrees()).count();
    out.push_str(&format!(
        "  {agree} of {} repositories agree id for id\n",
        rows.len()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(f2p: &[&str], p2p: &[&str]) -> Oracle {
        let mut repos = BTreeMap::new();
        repos.insert(
            "lib".to_string(),
            OracleRepo {
                f2p: f2p.iter().map(|s| s.to_string()).collect(),
                p2p: p2p.iter().map(|s| s.to_string()).collect(),
            },
        );
        Oracle {
            schema: ORACLE_SCHEMA.into(),
            origin: "wideswe".into(),
            file: "oracles/scoring_manifest.json".into(),
            sha256: "0".repeat(64),
            repos,
        }
    }

    #[test]
    fn ids_in_either_form_agree_and_differences_are_listed() {
        let o = oracle(&["tests.test_a.T::test_x"], &["tests.test_a::test_y"]);
        let mut d = BTreeMap::new();
        d.insert(
            "lib".to_string(),
            (
                vec!["tests/test_a.py::T::test_x".to_string()],
                vec!["tests/test_a.py::test_y".to_string()],
            ),
        );
        let rows = compare(&o, &d);
        assert!(rows[0].agrees(), "{rows:?}");
        d.insert(
            "lib".to_string(),
            (
                vec![],
                vec![
                    "tests/test_a.py::test_y".to_string(),
                    "tests/test_a.py::z".to_string(),
                ],
            ),
        );
        let rows = compare(&o, &d);
        assert!(!rows[0].agrees());
        assert_eq!(rows[0].f2p.only_oracle, vec!["tests.test_a.T::test_x"]);
        assert_eq!(rows[0].p2p.only_taskc, vec!["tests.test_a::z"]);
        let text = render(&rows);
        assert!(text.contains("DIFFER"), "{text}");
        assert!(text.contains("0 of 1 repositories agree"), "{text}");
    }

    #[test]
    fn round_trips_through_toml() {
        let o = oracle(&["a::b"], &[]);
        assert_eq!(parse_oracle(&o.to_toml()), Ok(o));
        assert!(parse_oracle("schema = \"x\"").is_err());
    }
}
