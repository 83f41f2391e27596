//! Services a WideSWE case needs beside its test process: the services of the docker-compose
//! files it ships, and the servers its `run_profile.sh` starts (Postgres, Redis, MongoDB, …).
//!
//! taskc's language has no service declaration yet, so the importer records them (the
//! per-case report's `services`) and says so in a W1108 note on the file that names them:
//! the spec does not start them, and a test that needs one fails when verified.

use taskc_compiler::{Code, Diagnostic};

use super::case::Case;
use crate::import::files::CaseFiles;
use crate::import::yaml;

/// Compose files a case may ship.
const COMPOSE: &[&str] = &[
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yml",
    "compose.yaml",
    "environment/docker-compose.yml",
    "environment/docker-compose.yaml",
    "environment/compose.yml",
    "environment/compose.yaml",
];

/// Servers a script starts, by a word that runs them, and the service's name.
const SERVERS: &[(&str, &str)] = &[
    ("pg_ctl", "postgres"),
    ("pg_ctlcluster", "postgres"),
    ("initdb", "postgres"),
    ("redis-server", "redis"),
    ("mongod", "mongodb"),
    ("etcd", "etcd"),
    ("dbus-daemon", "dbus"),
    ("clickhouse-server", "clickhouse"),
    ("redpanda", "redpanda"),
    ("kafka-server-start.sh", "kafka"),
];

/// The services `case` needs, each once, in the order found; a note for each file naming some.
pub fn needed(case: &Case, files: &mut CaseFiles) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    // A profile's `docker_service` names the compose service the tests themselves run in.
    let own: Vec<String> = case
        .profiles
        .first()
        .and_then(|p| p.doc.root.get("profiles"))
        .map(|ps| {
            ps.entries()
                .iter()
                .filter_map(|(_, _, p)| p.get("docker_service").and_then(yaml::Node::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    // … as does a service named after a profile (the profile's own test container).
    let own: Vec<String> = own
        .into_iter()
        .chain(case.profiles.iter().map(|p| p.name.clone()))
        .collect();
    for rel in COMPOSE {
        if !files.exists(rel) {
            continue;
        }
        let Some(t) = files.text(rel, "compose file") else {
            continue;
        };
        let mut here = Vec::new();
        match yaml::parse(&t.text) {
            Ok(doc) => {
                if let Some(services) = doc.get("services") {
                    for (name, _, body) in services.entries() {
                        if own.contains(name) {
                            continue;
                        }
                        let image = body.get("image").and_then(yaml::Node::as_str);
                        here.push(match image {
                            Some(i) => format!("{name} ({i})"),
                            None => name.clone(),
                        });
                    }
                }
            }
            Err(_) => here.push(format!("the services of {rel} (not read)")),
        }
        if !here.is_empty() {
            let label = files.at(t.source, t.text.find("services").unwrap_or(0), "here");
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!(
                        "`{rel}` starts services beside the tests: {}; the spec does not start them",
                        here.join(", ")
                    ),
                    label,
                )
                .with_help("declare them when taskc has service declarations; until then a test that needs one fails when verified"),
            );
        }
        for s in here {
            if !found.contains(&s) {
                found.push(s);
            }
        }
    }
    if let Some(script) = &case.run_profile {
        let mut here: Vec<(&str, usize)> = Vec::new();
        for (at, line) in super::script::logical_lines(&script.text) {
            let words = super::script::words(&line);
            for (word, service) in SERVERS {
                let runs = words
                    .iter()
                    .any(|w| w == word || w.ends_with(&format!("/{word}")));
                if runs && !here.iter().any(|(s, _)| s == service) {
                    here.push((service, at));
                }
            }
        }
        if let Some((_, at)) = here.first() {
            let names: Vec<&str> = here.iter().map(|(s, _)| *s).collect();
            let label = files.at(script.source, *at, "starts a server");
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!(
                        "`{}` starts {} for the tests; the spec does not",
                        script.rel,
                        names.join(", ")
                    ),
                    label,
                )
                .with_help("declare them when taskc has service declarations, or start them in a `setup`/`run` step"),
            );
            for n in names {
                if !found
                    .iter()
                    .any(|f| f == n || f.starts_with(&format!("{n} ")))
                {
                    found.push(n.to_string());
                }
            }
        }
    }
    found
}
