//! Services a WideSWE case needs beside its test process: the services of the docker-compose
//! files it ships, and the servers its `run_profile.sh` starts (Postgres, Redis, MongoDB, …).
//!
//! Each is listed in the per-case report's `services` and a W1108 note on the file that names
//! it. Those started from a named image (a compose service with `image:`, a `docker run -d
//! <image>` of the script) become the spec's `service` declarations ([`sidecars`]), the image
//! as the case names it; servers started inside the test container stay a note.

use taskc_compiler::{Code, Diagnostic};

use super::case::Case;
use crate::import::files::CaseFiles;
use crate::import::yaml;

/// Compose files a case may ship.
pub(crate) const COMPOSE: &[&str] = &[
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
                        "`{rel}` starts services beside the tests: {}",
                        here.join(", ")
                    ),
                    label,
                )
                .with_help("the spec declares those started from a named image as `service`s (each image as the case names it, for `[images.map]`); a service the case builds itself is not started, and a test that needs one fails when verified"),
            );
        }
        for s in here {
            if !found.contains(&s) {
                found.push(s);
            }
        }
    }
    if let Some(script) = &case.run_profile {
        // PostgreSQL started in the test container is declared as a service (postgres.rs).
        let pg_mapped = super::postgres::in_container(case).is_some();
        let mut here: Vec<(&str, usize)> = Vec::new();
        for (at, line) in super::script::logical_lines(&script.text) {
            let words = super::script::words(&line);
            // A container started from a named image is a declared service (`sidecars`).
            if detached_image(&words).is_some() {
                continue;
            }
            // What the script starts beside the tests that the spec cannot declare: a
            // container from an image held in a shell variable, compose services of a file
            // the case does not ship, the Elastic stack.
            if let Some((what, help)) = undeclared(&words, &own) {
                let label = files.at(script.source, at, "starts it");
                files.emit(
                    Diagnostic::new(
                        Code::ImportNote,
                        format!(
                            "`{}` starts {what} beside the tests; the spec does not declare it",
                            script.rel
                        ),
                        label,
                    )
                    .with_help(help),
                );
                if !found.contains(&what) {
                    found.push(what);
                }
                continue;
            }
            for (word, service) in SERVERS {
                if pg_mapped && *service == "postgres" {
                    continue;
                }
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

/// A service the spec declares: a named image started beside the tests (a compose service
/// with `image:`, or a container `run_profile.sh` starts with `docker run -d <image>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sidecar {
    /// The service's name and hostname (a DNS label).
    pub name: String,
    /// The image as the case names it (`mongo:7`); stood in for by `[images.map]`.
    pub image: String,
    pub ports: Vec<u16>,
    /// Where it was found (`environment/docker-compose.yml`, `environment/run_profile.sh`).
    pub from: String,
}

/// The ports well-known server images listen on, by image name.
const PORTS: &[(&str, u16)] = &[
    ("mongo", 27017),
    ("postgres", 5432),
    ("redis", 6379),
    ("mysql", 3306),
    ("mariadb", 3306),
    ("elasticsearch", 9200),
    ("clickhouse", 8123),
    ("redpanda", 9092),
    ("kafka", 9092),
    ("zookeeper", 2181),
    ("etcd", 2379),
];

/// A DNS label for a service name (`redis_cluster` → `redis-cluster`); `None` when nothing is left.
fn label(name: &str) -> Option<String> {
    let l: String = name
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let l = l.trim_matches('-').to_string();
    let l: String = l.chars().take(63).collect();
    l.chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase())
        .then_some(l)
}

/// The well-known port of `image` (`docker.io/library/mongo:7` → 27017).
fn known_port(image: &str) -> Option<u16> {
    let base = image.rsplit('/').next().unwrap_or(image);
    let base = base.split([':', '@']).next().unwrap_or(base);
    PORTS
        .iter()
        .find(|(n, _)| base == *n || base.starts_with(&format!("{n}-")))
        .map(|(_, p)| *p)
}

/// What a script line starts beside the tests that cannot become a `service` declaration,
/// described, with the help for it; `own` are the compose services the tests run in.
fn undeclared(words: &[String], own: &[String]) -> Option<(String, &'static str)> {
    if let Some(image) = detached(words).filter(|i| i.contains('$')) {
        return Some((
            format!("a container from the image in `{image}` (`docker run -d`)"),
            "the image is chosen at run time; declare a `service` with the image it names (as the case builds or names it) if the tests need it",
        ));
    }
    let has = |seq: &[&str]| words.windows(seq.len()).any(|w| w == seq);
    if has(&["elastic-package", "stack", "up"]) {
        return Some((
            "the Elastic stack (`elastic-package stack up`: Elasticsearch, Kibana, Fleet)".into(),
            "declare Elasticsearch and Kibana as `service`s if the tests need them",
        ));
    }
    let compose = words
        .windows(2)
        .position(|w| w[0] == "docker" && w[1] == "compose")
        .map(|k| k + 2)
        .or_else(|| {
            words
                .iter()
                .position(|w| w == "docker-compose")
                .map(|k| k + 1)
        })?;
    let rest = &words[compose..];
    let up = rest.iter().position(|w| w == "up")?;
    let file = rest[..up]
        .windows(2)
        .find(|w| w[0] == "-f" || w[0] == "--file")
        .map(|w| w[1].clone());
    let mut services: Vec<&str> = Vec::new();
    let mut skip = false;
    for w in &rest[up + 1..] {
        if skip {
            skip = false;
            continue;
        }
        if matches!(w.as_str(), "&&" | "||" | ";" | "|" | "&" | ")") {
            break;
        }
        if w.starts_with('-') {
            skip = matches!(
                w.as_str(),
                "--scale" | "--timeout" | "-t" | "--wait-timeout"
            );
            continue;
        }
        services.push(w);
    }
    if !services.is_empty() && services.iter().all(|s| own.iter().any(|o| o == s)) {
        return None;
    }
    let shipped = file
        .as_deref()
        .is_some_and(|f| COMPOSE.iter().any(|c| f.ends_with(c) && !f.contains('$')));
    if shipped {
        return None;
    }
    let names = if services.is_empty() {
        "every service".to_string()
    } else {
        format!("`{}`", services.join("`, `"))
    };
    Some((
        format!(
            "compose services {names} of `{}` (not in the case folder)",
            file.as_deref().unwrap_or("the repository's compose file")
        ),
        "declare each as a `service` with the image that compose file names, if the tests need it",
    ))
}

/// The image of a `docker run` line that starts a container in the background, when it is
/// named (not a shell variable).
fn detached_image(words: &[String]) -> Option<String> {
    detached(words).filter(|i| !i.contains('$'))
}

/// The image word of a `docker run` line that starts a container in the background.
fn detached(words: &[String]) -> Option<String> {
    let run = words
        .windows(2)
        .position(|w| w[0] == "docker" && w[1] == "run")?;
    let rest = &words[run + 2..];
    if !rest.iter().any(|w| {
        w == "-d"
            || w == "--detach"
            || w.starts_with("-d")
                && w.len() > 2
                && !w.starts_with("--")
                && w.chars().skip(1).all(|c| c.is_ascii_alphabetic())
    }) {
        return None;
    }
    // Options that take a value as the next word.
    const VALUED: &[&str] = &[
        "--name",
        "-e",
        "--env",
        "--network",
        "--net",
        "-p",
        "--publish",
        "-v",
        "--volume",
        "-w",
        "--workdir",
        "-u",
        "--user",
        "--entrypoint",
        "--label",
        "-l",
        "--mount",
        "--platform",
        "--health-cmd",
        "--memory",
        "-m",
        "--cpus",
        "--hostname",
        "-h",
        "--tmpfs",
        "--health-interval",
        "--health-timeout",
        "--health-retries",
        "--health-start-period",
        "--health-start-interval",
        "--shm-size",
        "--ulimit",
        "--add-host",
        "--env-file",
        "--restart",
        "--cap-add",
        "--cap-drop",
        "--device",
        "--dns",
        "--log-driver",
        "--log-opt",
        "--pull",
        "--stop-signal",
        "--stop-timeout",
        "--memory-swap",
        "--ipc",
        "--pid",
        "--cidfile",
        "--expose",
        "--link",
        "--security-opt",
        "--sysctl",
        "--volumes-from",
        "--gpus",
        "--runtime",
        "--cpuset-cpus",
        "--network-alias",
        "--ip",
        "--mac-address",
        "--userns",
        "--uts",
        "--label-file",
        "--storage-opt",
        "--cgroup-parent",
    ];
    let mut skip = false;
    for w in rest {
        if skip {
            skip = false;
            continue;
        }
        if w.starts_with('-') {
            skip = VALUED.contains(&w.as_str());
            continue;
        }
        return Some(w.clone());
    }
    None
}

/// The services the spec declares for `case`, each once.
pub fn sidecars(case: &Case, files: &mut CaseFiles) -> Vec<Sidecar> {
    let mut out: Vec<Sidecar> = Vec::new();
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
    let own: Vec<String> = own
        .into_iter()
        .chain(case.profiles.iter().map(|p| p.name.clone()))
        .collect();
    let mut push = |s: Sidecar| {
        if !out.iter().any(|o| o.name == s.name) {
            out.push(s);
        }
    };
    for rel in COMPOSE {
        if !files.exists(rel) {
            continue;
        }
        let Some(t) = files.text(rel, "compose file") else {
            continue;
        };
        let Ok(doc) = yaml::parse(&t.text) else {
            continue;
        };
        let Some(services) = doc.get("services") else {
            continue;
        };
        for (name, _, body) in services.entries() {
            if own.contains(name) {
                continue;
            }
            let (Some(image), Some(label)) =
                (body.get("image").and_then(yaml::Node::as_str), label(name))
            else {
                continue;
            };
            if image.contains('$') || image.starts_with("ecosyncbench/") {
                continue;
            }
            let mut ports: Vec<u16> = Vec::new();
            for key in ["ports", "expose"] {
                for item in body.get(key).map(yaml::Node::items).unwrap_or(&[]) {
                    let Some(s) = item.as_str() else { continue };
                    let inner = s.rsplit(':').next().unwrap_or(s);
                    let inner = inner.split('/').next().unwrap_or(inner);
                    if let Ok(p) = inner.trim_matches('"').parse::<u16>() {
                        if p > 0 && !ports.contains(&p) {
                            ports.push(p);
                        }
                    }
                }
            }
            if ports.is_empty() {
                ports.extend(known_port(image));
            }
            push(Sidecar {
                name: label,
                image: image.to_string(),
                ports,
                from: rel.to_string(),
            });
        }
    }
    if let Some(script) = &case.run_profile {
        for (at, line) in super::script::logical_lines(&script.text) {
            let words = super::script::words(&line);
            let Some(image) = detached_image(&words) else {
                continue;
            };
            let base = image.rsplit('/').next().unwrap_or(&image);
            let base = base.split([':', '@']).next().unwrap_or(base);
            let Some(name) = label(base) else { continue };
            let label_at = files.at(script.source, at, "starts a container");
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!(
                        "`{}` starts `{image}` beside the tests (`docker run -d`); the spec declares it as `service {name}`, which the tests reach by the hostname `{name}`, not through a shared network namespace",
                        script.rel
                    ),
                    label_at,
                )
                .with_help("check the address the tests use (an environment variable naming 127.0.0.1 becomes the service's hostname)"),
            );
            push(Sidecar {
                name,
                ports: known_port(&image).into_iter().collect(),
                image,
                from: script.rel.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detached_containers_and_their_ports() {
        let w = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            detached_image(&w("docker run -d --rm --name $m mongo:7 --quiet")),
            Some("mongo:7".into())
        );
        assert_eq!(detached_image(&w("docker run --rm $image bash")), None);
        // Shaped like a real case: option values are not the image.
        assert_eq!(
            detached_image(&w(
                "docker run -d --rm --name $pg --network $net --tmpfs /var/lib/postgresql/data:rw,size=2g -e POSTGRES_PASSWORD=pw -p 5432:5432 -v /x:/y --health-cmd pg_isready --health-interval 1s --health-retries 30 postgres:16-alpine"
            )),
            Some("postgres:16-alpine".into())
        );
        assert_eq!(
            detached_image(&w("docker run -d --tmpfs=/data:rw --shm-size 1g redis:7")),
            Some("redis:7".into())
        );
        let none: Vec<String> = Vec::new();
        // Case 51: a mock server started from the test image held in a variable.
        let (what, _) = undeclared(
            &w("docker run -d --name ecosync_objectstore --network host $sentry_image bash -lc x"),
            &none,
        )
        .expect("a variable image is reported");
        assert!(what.contains("`$sentry_image`"), "{what}");
        // Case 52: compose services of the repository's own compose file.
        let (what, _) = undeclared(
            &w("docker compose -f docker-compose.gcb.yml up -d zookeeper kafka clickhouse"),
            &none,
        )
        .expect("compose services are reported");
        assert!(
            what.contains("`zookeeper`, `kafka`, `clickhouse` of `docker-compose.gcb.yml`"),
            "{what}"
        );
        // Case 16: the Elastic stack.
        assert!(undeclared(&w("elastic-package stack up -d --services kibana"), &none).is_some());
        // The case's own test container, and its own compose file, are not reported.
        let own = vec!["boxo-hidden".to_string()];
        assert_eq!(
            undeclared(&w("docker compose up -d boxo-hidden"), &own),
            None
        );
        assert_eq!(
            undeclared(
                &w("docker compose -f environment/docker-compose.yml up -d cache"),
                &none
            ),
            None
        );
        assert_eq!(undeclared(&w("docker run -d mongo:7"), &none), None);
        assert_eq!(known_port("mongo:7"), Some(27017));
        assert_eq!(known_port("docker.io/library/postgres:16"), Some(5432));
        assert_eq!(label("redis_cluster").as_deref(), Some("redis-cluster"));
        assert_eq!(label("9x"), None);
    }
}
