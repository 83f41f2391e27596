//! `service <name> { … }` blocks (of the task and of its repositories), `services …` in a
//! repository, and the checks across them: unique names, names that exist, one hostname per
//! service of a run, ports, limits and readiness in range (codes E1300–E1307, W1300).

use std::collections::BTreeMap;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::model::Role;
use crate::service::{
    ReadyCheck, Service, ServiceImage, ServiceLimits, ServiceScope, DEFAULT_READY_TIMEOUT_SECS,
    MAX_READY_TIMEOUT_SECS,
};
use crate::span::Span;
use crate::syntax::ast::{Statement, Value};

use super::fields::{self, header_span, many, once, required};
use super::repo::{parse_duration, RepoDraft};
use super::{env, suggest, Cx};

const SERVICE_FIELDS: &[fields::Field] = &[
    required("image"),
    once("hostname"),
    once("environment"),
    once("command"),
    once("ready"),
    many("port"),
    once("memory"),
    once("cpus"),
];

const READY_FIELDS: &[fields::Field] = &[once("timeout")];

/// The smallest memory limit Docker accepts is 6 MiB.
const MIN_MEMORY: u64 = 6 << 20;
/// At most this many CPUs.
const MAX_CPUS_MILLI: u64 = 64_000;

/// A service block as read.
#[derive(Debug, Clone)]
pub(crate) struct ServiceDraft {
    pub name: String,
    pub name_span: Span,
    pub hostname: String,
    /// The `hostname` string, or the name when none is given.
    pub hostname_span: Span,
    /// Every part read without error.
    pub service: Option<Service>,
}

/// Check one `service <name> { … }` declared in `scope`.
pub(crate) fn check_service(
    cx: &mut Cx<'_>,
    stmt: &Statement,
    scope: ServiceScope,
) -> Option<ServiceDraft> {
    let (name, name_span) = match cx.single(stmt, "the service's name")? {
        Value::Ident(i) => (i.name.clone(), i.span),
        other => {
            cx.emit(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("a service name must be a name, found {}", other.describe()),
                    cx.label(other.span(), "not a name"),
                )
                .with_help("write `service db { … }`: the name, without quotes"),
            );
            return None;
        }
    };
    let block = cx.needs_block(stmt)?;
    let owner = format!("service `{name}`");
    let f = fields::read(
        cx,
        &owner,
        header_span(stmt),
        &block.statements,
        SERVICE_FIELDS,
    );
    let mut ok = true;

    let image = f.one("image").and_then(|s| image(cx, s));
    ok &= image.is_some();

    let (hostname, hostname_span) = match f.one("hostname") {
        Some(s) => match cx.string(s) {
            Some(h) => h,
            None => {
                ok = false;
                (name.clone(), name_span)
            }
        },
        None => (name.clone(), name_span),
    };
    if !valid_hostname(&hostname) {
        ok = false;
        let given = f.one("hostname").is_some();
        cx.emit(
            Diagnostic::new(
                Code::InvalidHostname,
                format!("`{hostname}` is not a valid hostname for service `{name}`"),
                cx.label(
                    hostname_span,
                    if given {
                        "invalid hostname"
                    } else {
                        "the name is the hostname"
                    },
                ),
            )
            .with_help(format!(
                "a hostname is 1-63 lowercase letters, digits and `-`, starting with a letter and not ending with `-`; {}",
                if given {
                    format!("e.g. `hostname \"{}\"`", suggest_hostname(&hostname))
                } else {
                    format!("add `hostname \"{}\"`", suggest_hostname(&hostname))
                }
            )),
        );
    }

    let environment = match f.one("environment") {
        Some(s) => environment(cx, s),
        None => Some(BTreeMap::new()),
    };
    ok &= environment.is_some();

    let command = match f.one("command") {
        Some(s) => {
            let c = cx.string(s).map(|c| c.0);
            ok &= c.is_some();
            c
        }
        None => None,
    };

    let mut ports: Vec<u16> = Vec::new();
    for s in f.all("port") {
        match port(cx, s, &ports) {
            Some(p) => ports.push(p),
            None => ok = false,
        }
    }

    let ready = match f.one("ready") {
        Some(s) => ready(cx, s),
        None => Some((None, DEFAULT_READY_TIMEOUT_SECS)),
    };
    ok &= ready.is_some();

    let memory_bytes = match f.one("memory") {
        Some(s) => {
            let m = memory(cx, s);
            ok &= m.is_some();
            m
        }
        None => None,
    };
    let cpus_milli = match f.one("cpus") {
        Some(s) => {
            let c = cpus(cx, s);
            ok &= c.is_some();
            c
        }
        None => None,
    };

    let service = if ok {
        let (ready_cmd, ready_timeout_secs) = ready?;
        let ready = match (ready_cmd, ports.first()) {
            (Some(c), _) => ReadyCheck::Command(c),
            (None, Some(p)) => ReadyCheck::Tcp(*p),
            (None, None) => ReadyCheck::Started,
        };
        let mut sorted = ports.clone();
        sorted.sort_unstable();
        Some(Service {
            name: name.clone(),
            scope,
            image: image?,
            hostname: hostname.clone(),
            environment: environment?,
            command,
            ready,
            ready_timeout_secs,
            ports: sorted,
            limits: ServiceLimits {
                memory_bytes,
                cpus_milli,
            },
            span: stmt.span,
        })
    } else {
        None
    };
    Some(ServiceDraft {
        name,
        name_span,
        hostname,
        hostname_span,
        service,
    })
}

/// `services db mock` in a repository: the task-level services its runs get.
pub(crate) fn service_refs(cx: &mut Cx<'_>, stmt: &Statement) -> Option<Vec<(String, Span)>> {
    cx.no_block(stmt);
    if stmt.args.is_empty() {
        cx.invalid(
            stmt.name.span,
            "`services` needs one or more service names".into(),
            "no service named",
            "write `services db` (names of task-level `service` blocks, not strings)".into(),
        );
        return None;
    }
    let mut out = Vec::new();
    let mut ok = true;
    for v in &stmt.args {
        match v {
            Value::Ident(i) => out.push((i.name.clone(), i.span)),
            other => {
                ok = false;
                cx.invalid(
                    other.span(),
                    format!("`services` lists service names, found {}", other.describe()),
                    "expected a service name",
                    "write the names without quotes: `services db mock`".into(),
                );
            }
        }
    }
    ok.then_some(out)
}

/// The checks across services: unique names (E1301), names a repository gives that exist
/// (E1300), unique hostnames among one target's services (E1302), services of context
/// repositories (E1307), task-level services nobody names (W1300). Fills each draft's
/// `services`; returns every service, task-level first, in declaration order.
pub(crate) fn resolve(
    cx: &mut Cx<'_>,
    task_level: Vec<ServiceDraft>,
    repos: &mut [RepoDraft],
) -> Option<Vec<Service>> {
    let mut ok = true;
    let mut all: Vec<&ServiceDraft> = Vec::new();
    let repo_level: Vec<ServiceDraft> = repos
        .iter()
        .flat_map(|r| r.own_services.iter().cloned())
        .collect();
    for d in task_level.iter().chain(repo_level.iter()) {
        if let Some(first) = all.iter().find(|p| p.name == d.name) {
            ok = false;
            cx.emit(
                Diagnostic::new(
                    Code::DuplicateService,
                    format!("two services are called `{}`", d.name),
                    cx.label(d.name_span, "declared again here"),
                )
                .with_label(cx.label(first.name_span, "first declared here"))
                .with_help("service names are unique in a task (plans and diffs name services by them): rename one"),
            );
            continue;
        }
        all.push(d);
    }
    let task_names: Vec<&str> = task_level.iter().map(|d| d.name.as_str()).collect();
    let mut named: Vec<&str> = Vec::new();
    for r in repos.iter_mut() {
        if r.role == Role::Context {
            let spans = r
                .own_services
                .iter()
                .map(|d| d.name_span)
                .chain(r.service_refs.iter().map(|(_, s)| *s));
            for span in spans {
                ok = false;
                cx.emit(
                    Diagnostic::new(
                        Code::ServiceInContext,
                        format!(
                            "context repository `{}` has a service, but no test runs to start it for",
                            r.name
                        ),
                        cx.label(span, "service of a context repository"),
                    )
                    .with_help(format!(
                        "move the service to the task, or to the target repository whose tests talk to it; or declare `{}` with `repo`",
                        r.name
                    )),
                );
            }
            continue;
        }
        // (hostname, span, service) of this target's runs.
        let mut hosts: Vec<(&str, Span, &str)> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (n, span) in &r.service_refs {
            match task_level.iter().find(|d| &d.name == n) {
                Some(d) => {
                    named.push(d.name.as_str());
                    if !names.contains(n) {
                        names.push(n.clone());
                        hosts.push((d.hostname.as_str(), d.hostname_span, d.name.as_str()));
                    }
                }
                None => {
                    ok = false;
                    let elsewhere = repo_level.iter().find(|d| &d.name == n).map(|_| {
                        " (a service declared inside another repository is that repository's own)"
                    });
                    cx.emit(
                        Diagnostic::new(
                            Code::UnknownService,
                            format!(
                                "`{}` names service `{n}`, which the task does not declare{}",
                                r.name,
                                elsewhere.unwrap_or("")
                            ),
                            cx.label(*span, "unknown service"),
                        )
                        .with_help(if task_names.is_empty() {
                            format!("declare it at task level: `service {n} {{ image … }}`")
                        } else {
                            format!(
                                "{}task-level services: {}",
                                suggest::did_you_mean(n, task_names.iter().copied()),
                                suggest::list(task_names.iter().copied())
                            )
                        }),
                    );
                }
            }
        }
        for d in &r.own_services {
            names.push(d.name.clone());
            hosts.push((d.hostname.as_str(), d.hostname_span, d.name.as_str()));
        }
        for (i, (h, span, svc)) in hosts.iter().enumerate() {
            if let Some((_, first_span, first)) = hosts[..i].iter().find(|(o, _, _)| o == h) {
                ok = false;
                cx.emit(
                    Diagnostic::new(
                        Code::DuplicateHostname,
                        format!(
                            "services `{first}` and `{svc}` of `{}`'s test runs both answer to hostname `{h}`",
                            r.name
                        ),
                        cx.label(*span, format!("`{svc}`'s hostname")),
                    )
                    .with_label(cx.label(*first_span, format!("`{first}`'s hostname")))
                    .with_help(format!("give `{svc}` another name: `hostname \"{svc}\"`")),
                );
            }
        }
        names.sort();
        r.services = names;
    }
    for d in &task_level {
        if !named.contains(&d.name.as_str()) {
            cx.emit(
                Diagnostic::new(
                    Code::UnusedService,
                    format!(
                        "no target repository names service `{}`: it never starts",
                        d.name
                    ),
                    cx.label(d.name_span, "unused service"),
                )
                .with_help(format!(
                    "add `services {}` to the repositories whose tests talk to it, or remove it",
                    d.name
                )),
            );
        }
    }
    let services: Option<Vec<Service>> = all.iter().map(|d| d.service.clone()).collect();
    if ok {
        services
    } else {
        None
    }
}

/// `image <recipe> { … }` or `image "name"`.
fn image(cx: &mut Cx<'_>, stmt: &Statement) -> Option<ServiceImage> {
    match stmt.args.as_slice() {
        [Value::Str(s)] => {
            cx.no_block(stmt);
            let name = s.value.trim();
            if name.is_empty() || name.contains(char::is_whitespace) || name.contains('\0') {
                cx.invalid(
                    s.span,
                    format!("`{}` is not an image name", s.value.escape_debug()),
                    "invalid image name",
                    "write an image the engine holds, e.g. `image \"postgres:15\"`, or build one: `image generic { dockerfile \"RUN …\" }`".into(),
                );
                return None;
            }
            Some(ServiceImage::Named(name.to_string()))
        }
        _ => env::check_env(cx, stmt).map(ServiceImage::Recipe),
    }
}

/// `environment { NAME "value" … }`.
fn environment(cx: &mut Cx<'_>, stmt: &Statement) -> Option<BTreeMap<String, String>> {
    if !stmt.args.is_empty() {
        let span = stmt
            .args
            .iter()
            .fold(stmt.args[0].span(), |a, v| a.to(v.span()));
        cx.invalid(
            span,
            "`environment` takes a block, not values".into(),
            "unexpected value",
            "write `environment { NAME \"value\" }`".into(),
        );
        return None;
    }
    let block = cx.needs_block(stmt)?;
    let mut out = BTreeMap::new();
    let mut first: BTreeMap<String, Span> = BTreeMap::new();
    let mut ok = true;
    for s in &block.statements {
        let name = s.name.name.as_str();
        let valid_name = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let value = match (s.args.as_slice(), &s.block) {
            ([Value::Str(v)], None) if !v.value.contains('\0') => Some(v.value.clone()),
            _ => None,
        };
        match (valid_name, value) {
            (true, Some(v)) => {
                if let Some(prev) = first.get(name) {
                    ok = false;
                    cx.emit(
                        Diagnostic::new(
                            Code::DuplicateField,
                            format!("environment variable `{name}` is given twice"),
                            cx.label(s.name.span, "given again here"),
                        )
                        .with_label(cx.label(*prev, "first given here"))
                        .with_help("give each variable once"),
                    );
                    continue;
                }
                first.insert(name.to_string(), s.name.span);
                out.insert(name.to_string(), v);
            }
            (false, _) => {
                ok = false;
                cx.emit(
                    Diagnostic::new(
                        Code::InvalidServiceEnv,
                        format!("`{name}` is not an environment variable name"),
                        cx.label(s.name.span, "invalid name"),
                    )
                    .with_help("a variable name is letters, digits and `_`, not starting with a digit: `POSTGRES_DB \"app\"`"),
                );
            }
            (true, None) => {
                ok = false;
                cx.emit(
                    Diagnostic::new(
                        Code::InvalidServiceEnv,
                        format!("environment variable `{name}` needs one string value"),
                        cx.label(header_span(s), "expected `NAME \"value\"`"),
                    )
                    .with_help(format!(
                        "quote the value: `{name} \"…\"` (no block, no NUL byte)"
                    )),
                );
            }
        }
    }
    ok.then_some(out)
}

fn port(cx: &mut Cx<'_>, stmt: &Statement, seen: &[u16]) -> Option<u16> {
    cx.no_block(stmt);
    let v = cx.single(stmt, "a TCP port number")?;
    let p = match v {
        Value::Int(i) => u16::try_from(i.value).ok().filter(|p| *p > 0),
        _ => None,
    };
    let Some(p) = p else {
        cx.emit(
            Diagnostic::new(
                Code::InvalidPort,
                format!("`{}` is not a TCP port", cx.spec_text(v.span())),
                cx.label(v.span(), "expected 1-65535"),
            )
            .with_help("write the port as an integer from 1 to 65535: `port 5432`"),
        );
        return None;
    };
    if seen.contains(&p) {
        cx.emit(
            Diagnostic::new(
                Code::InvalidPort,
                format!("port {p} is given twice"),
                cx.label(v.span(), "given again"),
            )
            .with_help("give each port once"),
        );
        return None;
    }
    Some(p)
}

/// `ready "…" [{ timeout … }]`: the command (if any) and the timeout in seconds.
fn ready(cx: &mut Cx<'_>, stmt: &Statement) -> Option<(Option<String>, u64)> {
    let v = cx.single(stmt, "a command that exits 0 once the service is ready")?;
    let Value::Str(s) = v else {
        cx.invalid(
            v.span(),
            format!("`ready` expects a command string, found {}", v.describe()),
            "expected a string",
            "write `ready \"pg_isready -q\"`".into(),
        );
        return None;
    };
    if s.value.trim().is_empty() {
        cx.invalid(
            s.span,
            "the readiness command is empty".into(),
            "empty command",
            "write a command that exits 0 once the service answers, e.g. `ready \"pg_isready -q\"`; without `ready`, the first `port` accepting a connection counts".into(),
        );
        return None;
    }
    let mut timeout = DEFAULT_READY_TIMEOUT_SECS;
    if let Some(b) = &stmt.block {
        let f = fields::read(
            cx,
            "`ready`",
            header_span(stmt),
            &b.statements,
            READY_FIELDS,
        );
        if let Some(t) = f.one("timeout") {
            cx.no_block(t);
            let v = cx.single(t, "seconds, or a string like \"90s\"")?;
            let secs = match v {
                Value::Int(i) => Some(i.value),
                Value::Str(s) => parse_duration(&s.value),
                _ => None,
            };
            match secs {
                Some(s) if (1..=MAX_READY_TIMEOUT_SECS).contains(&s) => timeout = s,
                _ => {
                    cx.emit(
                        Diagnostic::new(
                            Code::InvalidLimit,
                            format!(
                                "the readiness timeout `{}` is not a duration from 1 second to 30 minutes",
                                cx.spec_text(v.span())
                            ),
                            cx.label(v.span(), "invalid timeout"),
                        )
                        .with_help("write seconds (`timeout 90`) or a string with a unit: \"90s\", \"5m\""),
                    );
                    return None;
                }
            }
        }
    }
    Some((Some(s.value.clone()), timeout))
}

/// `memory "512m"` (k, m, g; powers of 1024; an optional `b`/`ib`) or bytes.
fn memory(cx: &mut Cx<'_>, stmt: &Statement) -> Option<u64> {
    cx.no_block(stmt);
    let v = cx.single(stmt, "a size like \"512m\"")?;
    let bytes = match v {
        Value::Int(i) => Some(i.value),
        Value::Str(s) => parse_size(&s.value),
        _ => None,
    };
    match bytes {
        Some(b) if b >= MIN_MEMORY => Some(b),
        _ => {
            cx.emit(
                Diagnostic::new(
                    Code::InvalidLimit,
                    format!(
                        "`{}` is not a memory size of at least 6 MiB",
                        cx.spec_text(v.span())
                    ),
                    cx.label(v.span(), "invalid memory limit"),
                )
                .with_help(
                    "write a size with a unit (powers of 1024): `memory \"512m\"`, `memory \"2g\"`",
                ),
            );
            None
        }
    }
}

/// `"512m"`, `"2G"`, `"64MiB"`, `"1048576"` in bytes.
pub(crate) fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    let s = s
        .strip_suffix("ib")
        .or_else(|| s.strip_suffix('b'))
        .unwrap_or(&s);
    let (digits, mult) = match s.chars().last()? {
        'k' => (&s[..s.len() - 1], 1u64 << 10),
        'm' => (&s[..s.len() - 1], 1 << 20),
        'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// `cpus 2` or `cpus "0.5"`, in thousandths of a CPU.
fn cpus(cx: &mut Cx<'_>, stmt: &Statement) -> Option<u64> {
    cx.no_block(stmt);
    let v = cx.single(stmt, "a number of CPUs")?;
    let milli = match v {
        Value::Int(i) => i.value.checked_mul(1000),
        Value::Str(s) => parse_milli(&s.value),
        _ => None,
    };
    match milli {
        Some(m) if (1..=MAX_CPUS_MILLI).contains(&m) => Some(m),
        _ => {
            cx.emit(
                Diagnostic::new(
                    Code::InvalidLimit,
                    format!(
                        "`{}` is not a number of CPUs above 0 and at most 64",
                        cx.spec_text(v.span())
                    ),
                    cx.label(v.span(), "invalid cpus"),
                )
                .with_help("write an integer (`cpus 2`) or a decimal string with at most three decimals (`cpus \"0.5\"`)"),
            );
            None
        }
    }
}

/// `"1.5"` → 1500; at most three decimals.
pub(crate) fn parse_milli(s: &str) -> Option<u64> {
    let s = s.trim();
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > 3 {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let i: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let f: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<3}").parse().ok()?
    };
    i.checked_mul(1000)?.checked_add(f)
}

/// A DNS label: 1-63 of `[a-z0-9-]`, starting with a letter, not ending with `-`.
pub(crate) fn valid_hostname(h: &str) -> bool {
    (1..=63).contains(&h.len())
        && h.starts_with(|c: char| c.is_ascii_lowercase())
        && !h.ends_with('-')
        && h.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn suggest_hostname(h: &str) -> String {
    let s: String = h
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(63)
        .collect();
    let s = s
        .trim_matches('-')
        .trim_start_matches(|c: char| c.is_ascii_digit());
    if s.is_empty() {
        "svc".into()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_cpus_and_hostnames() {
        assert_eq!(parse_size("512m"), Some(512 << 20));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("64MiB"), Some(64 << 20));
        assert_eq!(parse_size("100"), Some(100));
        assert_eq!(parse_size("1.5g"), None);
        assert_eq!(parse_size("m"), None);
        assert_eq!(parse_size("99999999999999999999g"), None);
        assert_eq!(parse_milli("1.5"), Some(1500));
        assert_eq!(parse_milli(".25"), Some(250));
        assert_eq!(parse_milli("2"), Some(2000));
        assert_eq!(parse_milli("0.0001"), None);
        assert_eq!(parse_milli("."), None);
        assert_eq!(parse_milli("-1"), None);
        assert!(valid_hostname("db"));
        assert!(valid_hostname("mock-api2"));
        assert!(!valid_hostname("Db"));
        assert!(!valid_hostname("2db"));
        assert!(!valid_hostname("db-"));
        assert!(!valid_hostname("my_db"));
        assert!(!valid_hostname(&"a".repeat(64)));
        assert_eq!(suggest_hostname("My_DB"), "my-db");
    }
}
