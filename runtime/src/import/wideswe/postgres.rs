//! A PostgreSQL server a WideSWE case's `run_profile.sh` starts *inside* its test container
//! (`service postgresql start`, `pg_ctl … start`, `pg_ctlcluster … start`), set up with
//! `createuser`, `createdb`, `psql -c "…"` and lines appended to `postgresql.conf`, becomes
//! a `service postgres` beside the tests, built from the stdlib `postgres` recipe: the
//! version the script (or the case's Dockerfile) names, the roles, passwords, databases and
//! grants as the recipe's `sql`, the configuration lines as its `conf`. The tests of the
//! repositories whose profiles start it get the service, and the variables the script
//! exports for them that name the database (`DB_HOST=127.0.0.1`, `…_DB_USER=awx`) are set
//! in their `run`, a loopback host rewritten to the service's hostname.
//!
//! What cannot be mapped is said (W1131): a schema loaded from a file of a repository
//! (`psql -d awx < tools/docker/latest.sql`: the service image is built without the
//! repositories), a statement whose text is built at run time.

use std::collections::BTreeMap;

use taskc_compiler::{Code, Diagnostic};

use super::case::Case;
use super::script::{attribute, logical_lines, words};
use crate::import::files::CaseFiles;

/// The service's name and hostname.
pub const NAME: &str = "postgres";
/// The port the recipe's server listens on.
pub const PORT: u16 = 5432;
/// The major versions the stdlib `postgres` recipe offers.
const OFFERED: &[&str] = &["15", "17"];

/// The in-container server as the spec declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InContainer {
    /// The recipe's `version`.
    pub version: String,
    /// Where the version came from (`/etc/postgresql/17/main/postgresql.conf` in the script).
    pub version_from: String,
    /// The recipe's `sql`: one psql script, in the order the script runs it.
    pub sql: Vec<String>,
    /// The recipe's `conf`: lines appended to `postgresql.conf`.
    pub conf: Vec<String>,
    /// WideSWE repositories whose tests start it, in the case's order.
    pub repos: Vec<String>,
    /// Per repository: the variables its tests get (`DB_HOST` → `postgres`).
    pub env: BTreeMap<String, Vec<(String, String)>>,
    /// Byte offset of the line that starts the server.
    pub at: usize,
    /// What was not mapped: (byte offset, what).
    pub unmapped: Vec<(usize, String)>,
}

/// Whether the words of one command start PostgreSQL.
fn starts_server(w: &[String]) -> bool {
    let has = |seq: &[&str]| w.windows(seq.len()).any(|x| x == seq);
    let base = |x: &str| x.rsplit('/').next().unwrap_or(x).to_string();
    has(&["service", "postgresql", "start"])
        || has(&["service", "postgresql", "restart"])
        || w.iter().any(|x| x.ends_with("init.d/postgresql"))
            && w.iter().any(|x| x == "start" || x == "restart")
        || w.iter()
            .any(|x| base(x) == "pg_ctl" || base(x) == "pg_ctlcluster")
            && w.iter().any(|x| x == "start" || x == "restart")
}

/// The name of the shell function whose body holds logical line `i`, if any.
fn function_of(lines: &[(usize, String)], i: usize) -> Option<String> {
    for (_, line) in lines[..=i].iter().rev() {
        if line == "}" {
            return None;
        }
        let t = line.trim_start().trim_start_matches("function ").trim();
        if let Some(name) = t.split("()").next() {
            if t.contains("()")
                && !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Some(name.to_string());
            }
        }
    }
    None
}

/// Whether `line` calls shell function `f` (as a command, not its definition).
fn calls(line: &str, f: &str) -> bool {
    let w = words(line);
    !line.contains(&format!("{f}()"))
        && w.iter().enumerate().any(|(k, x)| {
            x == f && (k == 0 || matches!(w[k - 1].as_str(), "&&" | "||" | ";" | "then" | "do"))
        })
}

/// A major version a text names for PostgreSQL: `/etc/postgresql/17/`, `/usr/lib/postgresql/16/`,
/// `postgresql-17`, `postgresql@17`.
fn named_version(text: &str) -> Option<(String, String)> {
    for marker in [
        "/etc/postgresql/",
        "/usr/lib/postgresql/",
        "postgresql-",
        "postgresql@",
    ] {
        let mut rest = text;
        while let Some(k) = rest.find(marker) {
            let after = &rest[k + marker.len()..];
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            let next = after[digits.len()..].chars().next();
            if !digits.is_empty()
                && matches!(
                    next,
                    None | Some('/' | ' ' | '\n' | '"' | '\'' | '-' | '\\')
                )
            {
                let shown: String = rest[k..k + marker.len() + digits.len()].to_string();
                return Some((digits, shown));
            }
            rest = after;
        }
    }
    None
}

/// A SQL identifier as `createuser`/`createdb` quote it.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// One command run as the `postgres` user (the words after `su postgres -c`, re-split),
/// mapped onto SQL; `Err` says why it cannot be.
fn command_sql(w: &[String]) -> Result<Vec<String>, String> {
    let Some(tool) = w
        .first()
        .map(|x| x.rsplit('/').next().unwrap_or(x).to_string())
    else {
        return Ok(Vec::new());
    };
    let has_variable = |s: &str| s.contains('$') || s.contains('`');
    match tool.as_str() {
        "createuser" => {
            let mut superuser = false;
            let mut createdb = false;
            let mut name = None;
            for x in &w[1..] {
                match x.as_str() {
                    "-s" | "--superuser" => superuser = true,
                    "-d" | "--createdb" => createdb = true,
                    o if o.starts_with('-') => {}
                    n => name = Some(n.to_string()),
                }
            }
            let name = name.ok_or("`createuser` names no role")?;
            if has_variable(&name) {
                return Err(format!(
                    "`createuser {name}`: the role's name is built at run time"
                ));
            }
            let mut s = format!("CREATE ROLE {} LOGIN", ident(&name));
            if superuser {
                s.push_str(" SUPERUSER");
            }
            if createdb {
                s.push_str(" CREATEDB");
            }
            s.push(';');
            Ok(vec![s])
        }
        "createdb" => {
            let mut owner = None;
            let mut name = None;
            let mut k = 1;
            while k < w.len() {
                let x = w[k].as_str();
                if x == "-O" || x == "--owner" {
                    owner = w.get(k + 1).cloned();
                    k += 2;
                    continue;
                }
                if let Some(o) = x.strip_prefix("--owner=") {
                    owner = Some(o.to_string());
                } else if !x.starts_with('-') && name.is_none() {
                    name = Some(x.to_string());
                }
                k += 1;
            }
            let name = name.ok_or("`createdb` names no database")?;
            if has_variable(&name) || owner.as_deref().is_some_and(has_variable) {
                return Err(format!("`createdb {name}`: a name is built at run time"));
            }
            Ok(vec![match owner {
                Some(o) => format!("CREATE DATABASE {} OWNER {};", ident(&name), ident(&o)),
                None => format!("CREATE DATABASE {};", ident(&name)),
            }])
        }
        "psql" => {
            let mut db = None;
            let mut sql = Vec::new();
            let mut k = 1;
            while k < w.len() {
                let x = w[k].as_str();
                match x {
                    "-d" | "--dbname" => {
                        db = w.get(k + 1).cloned();
                        k += 2;
                        continue;
                    }
                    "-c" | "--command" => {
                        if let Some(c) = w.get(k + 1) {
                            sql.push(c.clone());
                        }
                        k += 2;
                        continue;
                    }
                    // Short flags run together, ending in `c` (`-tc`, `-Atc`).
                    o if o.len() > 2
                        && o.starts_with('-')
                        && !o.starts_with("--")
                        && o.ends_with('c')
                        && o[1..].chars().all(|c| c.is_ascii_alphabetic()) =>
                    {
                        if let Some(c) = w.get(k + 1) {
                            sql.push(c.clone());
                        }
                        k += 2;
                        continue;
                    }
                    "-f" | "--file" => {
                        return Err(format!(
                            "`psql -f {}` loads a file",
                            w.get(k + 1).map_or("", String::as_str)
                        ))
                    }
                    "-v" | "-U" | "-h" | "-p" | "--set" => {
                        k += 2;
                        continue;
                    }
                    _ => {}
                }
                k += 1;
            }
            let mut out = Vec::new();
            for s in sql {
                let t = s.trim();
                // Existence checks (`SELECT 1 FROM pg_roles …`) change nothing.
                if t.to_ascii_uppercase().starts_with("SELECT") {
                    continue;
                }
                if has_variable(t) {
                    return Err(format!(
                        "`psql -c \"{t}\"`: the statement is built at run time"
                    ));
                }
                out.push(if t.ends_with(';') {
                    t.to_string()
                } else {
                    format!("{t};")
                });
            }
            if out.is_empty() {
                return Ok(out);
            }
            match db.as_deref() {
                None | Some("postgres") => Ok(out),
                Some(d) if has_variable(d) => {
                    Err(format!("`psql -d {d}`: the database is chosen at run time"))
                }
                Some(d) => {
                    let mut v = vec![format!("\\connect {d}")];
                    v.extend(out);
                    v.push("\\connect postgres".into());
                    Ok(v)
                }
            }
        }
        _ => Ok(Vec::new()),
    }
}

/// The commands of one logical line run as the `postgres` user: the text after `su postgres
/// -c`, `runuser -u postgres --`, `sudo -u postgres`, or a bare `createuser`/`createdb`/`psql`.
fn postgres_commands(line: &str) -> Vec<Vec<String>> {
    let w = words(line);
    let mut out = Vec::new();
    let mut k = 0;
    while k < w.len() {
        let x = &w[k];
        if x == "su" && w.get(k + 1).map(String::as_str) == Some("postgres") {
            if let Some(pos) = w[k..].iter().position(|y| y == "-c") {
                if let Some(inner) = w.get(k + pos + 1) {
                    for part in split_commands(&words(inner)) {
                        out.push(part);
                    }
                }
                k += pos + 2;
                continue;
            }
        }
        if matches!(x.as_str(), "createuser" | "createdb" | "psql")
            && (k == 0
                || matches!(
                    w[k - 1].as_str(),
                    "&&" | "||" | ";" | "|" | "--" | "postgres" | "then"
                ))
        {
            let end = w[k..]
                .iter()
                .position(|y| matches!(y.as_str(), "&&" | "||" | ";" | "|"))
                .map_or(w.len(), |e| k + e);
            out.push(w[k..end].to_vec());
            k = end;
            continue;
        }
        k += 1;
    }
    out
}

/// Words split at `&&`, `||`, `;` and `|` into commands.
fn split_commands(w: &[String]) -> Vec<Vec<String>> {
    w.split(|x| matches!(x.as_str(), "&&" | "||" | ";" | "|"))
        .filter(|c| !c.is_empty())
        .map(<[String]>::to_vec)
        .collect()
}

/// Whether a variable the tests get names the database: its value is a loopback host or a
/// URL on one, or its name says it is the database's (`DB_`, `DATABASE`, `PG`, `POSTGRES`).
fn database_variable(name: &str, value: &str) -> bool {
    let n = name.to_ascii_uppercase();
    loopback(value).is_some()
        || n.starts_with("DB_")
        || n.contains("_DB_")
        || n.ends_with("_DB")
        || n.contains("DATABASE")
        || n.starts_with("PG")
        || n.contains("POSTGRES")
}

/// `value` with a loopback host rewritten to the service's hostname; `None` when it names none.
fn loopback(value: &str) -> Option<String> {
    if matches!(value, "127.0.0.1" | "localhost" | "::1") {
        return Some(NAME.to_string());
    }
    for host in ["@127.0.0.1", "@localhost", "//127.0.0.1", "//localhost"] {
        if value.contains(host) {
            let to = format!(
                "{}{NAME}",
                &host[..host.len() - host.trim_start_matches(['@', '/']).len()]
            );
            return Some(value.replace(host, &to));
        }
    }
    None
}

/// The in-container PostgreSQL `case`'s script starts, as a service; `None` when it starts none.
pub fn in_container(case: &Case) -> Option<InContainer> {
    let script = case.run_profile.as_ref()?;
    let lines = logical_lines(&script.text);
    let start = lines.iter().position(|(_, l)| starts_server(&words(l)))?;
    let (repos_view, profiles) = case.script_view();

    // Which repositories' tests start it: the callers of the function around the start
    // (one level up, then the profiles' `case` arms that call those).
    let mut repos: Vec<String> = Vec::new();
    let mut callers: Vec<String> = Vec::new();
    match function_of(&lines, start) {
        Some(f) => {
            for (i, (_, l)) in lines.iter().enumerate() {
                if calls(l, &f) {
                    if let Some(g) = function_of(&lines, i) {
                        if !callers.contains(&g) {
                            callers.push(g);
                        }
                    }
                    for r in attribute(&lines, i, &repos_view, &profiles) {
                        if !repos.contains(&r) {
                            repos.push(r);
                        }
                    }
                }
            }
        }
        None => repos = attribute(&lines, start, &repos_view, &profiles),
    }
    if repos.is_empty() {
        repos = case
            .repos
            .iter()
            .filter(|r| r.target)
            .map(|r| r.name.clone())
            .collect();
    }
    // Keep the case's order.
    repos = case
        .repos
        .iter()
        .filter(|r| r.target && repos.contains(&r.name))
        .map(|r| r.name.clone())
        .collect();

    // The version: named by the script, else by the case's Dockerfile.
    let named = named_version(&script.text)
        .map(|(v, shown)| (v, format!("`{shown}` in {}", script.rel)))
        .or_else(|| {
            let d = case.dockerfile.as_ref()?;
            named_version(&d.text).map(|(v, shown)| (v, format!("`{shown}` in {}", d.rel)))
        });
    let mut unmapped = Vec::new();
    let (version, version_from) = match named {
        Some((v, from)) if OFFERED.contains(&v.as_str()) => (v, from),
        Some((v, from)) => {
            let near = if v.parse::<u32>().unwrap_or(17) > 15 {
                "17"
            } else {
                "15"
            };
            unmapped.push((
                lines[start].0,
                format!(
                    "PostgreSQL {v} ({from}): the `postgres` recipe offers {}; {near} declared",
                    OFFERED.join(" and ")
                ),
            ));
            (near.to_string(), from)
        }
        None => (
            "17".to_string(),
            "no version named: Debian's current `postgresql` (trixie) is 17".to_string(),
        ),
    };

    // Roles, databases, grants and configuration, in the script's order.
    let mut sql: Vec<String> = Vec::new();
    let mut conf: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = &lines[i];
        let w = words(line);
        // A here-document appended to postgresql.conf.
        if line.contains("postgresql.conf") && line.contains("<<") {
            let delim = line
                .split("<<")
                .nth(1)
                .map(|d| {
                    d.trim()
                        .trim_start_matches('-')
                        .trim_matches(['\'', '"'])
                        .to_string()
                })
                .and_then(|d| d.split_whitespace().next().map(str::to_string))
                .unwrap_or_default();
            let mut j = i + 1;
            while j < lines.len() && lines[j].1.trim() != delim {
                let t = lines[j].1.trim();
                if !t.is_empty() && !t.starts_with('#') {
                    conf.push(t.to_string());
                }
                j += 1;
            }
            i = j + 1;
            continue;
        }
        if (w.first().map(String::as_str) == Some("echo")
            || w.first().map(String::as_str) == Some("printf"))
            && line.contains(">>")
            && line.contains("postgresql.conf")
        {
            if let Some(v) = w.get(1).filter(|v| !v.contains('$')) {
                conf.push(v.clone());
            }
        }
        let loads_file = line.contains("psql")
            && (w.iter().any(|x| x.starts_with('<') && !x.starts_with("<<"))
                || w.iter().any(|x| x == "<"));
        if loads_file {
            let file = w
                .iter()
                .position(|x| x == "<")
                .and_then(|k| w.get(k + 1).cloned())
                .or_else(|| {
                    w.iter()
                        .filter(|x| !x.starts_with("<<"))
                        .find_map(|x| x.strip_prefix('<'))
                        .map(str::to_string)
                })
                .unwrap_or_default();
            unmapped.push((
                *at,
                format!("a schema loaded from a file at test time (`psql … < {file}`)"),
            ));
            i += 1;
            continue;
        }
        for cmd in postgres_commands(line) {
            match command_sql(&cmd) {
                Ok(stmts) => {
                    for s in stmts {
                        // `\connect` pairs may repeat; statements are kept once.
                        if s.starts_with('\\') || !sql.contains(&s) {
                            sql.push(s);
                        }
                    }
                }
                Err(why) => unmapped.push((*at, why)),
            }
        }
        i += 1;
    }

    // The variables the tests get: literal exports naming the database in the functions
    // that start the server.
    let mut env: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (i, (_, line)) in lines.iter().enumerate() {
        let t = line.trim();
        let Some(rest) = t.strip_prefix("export ") else {
            continue;
        };
        let Some(f) = function_of(&lines, i) else {
            continue;
        };
        if !callers.contains(&f) && function_of(&lines, start).as_deref() != Some(f.as_str()) {
            continue;
        }
        for w in words(rest) {
            let Some((name, value)) = w.split_once('=') else {
                continue;
            };
            if value.contains('$') || value.contains('`') || !database_variable(name, value) {
                continue;
            }
            let value = loopback(value).unwrap_or_else(|| value.to_string());
            for r in attribute(&lines, i, &repos_view, &profiles) {
                if !repos.contains(&r) {
                    continue;
                }
                let vars = env.entry(r).or_default();
                vars.retain(|(n, _)| n != name);
                vars.push((name.to_string(), value.clone()));
            }
        }
    }
    // The `\connect postgres` right after another is dropped.
    let mut tidy: Vec<String> = Vec::new();
    for s in sql {
        if s == "\\connect postgres" && tidy.last().is_some_and(|l| l.starts_with("\\connect ")) {
            tidy.pop();
            continue;
        }
        if s.starts_with("\\connect ") && tidy.last().is_some_and(|l| l.starts_with("\\connect ")) {
            tidy.pop();
        }
        tidy.push(s);
    }
    if tidy.last().map(String::as_str) == Some("\\connect postgres") {
        tidy.pop();
    }
    Some(InContainer {
        version,
        version_from,
        sql: tidy,
        conf,
        repos,
        env,
        at: lines[start].0,
        unmapped,
    })
}

/// The variables `repo`'s tests get from the in-container server of `case`, as shell
/// assignments for the front of its `run` (`export DB_HOST=postgres && `); empty when none.
pub fn run_prefix(case: &Case, repo: &str) -> String {
    let Some(pg) = in_container(case) else {
        return String::new();
    };
    let Some(vars) = pg.env.get(repo).filter(|v| !v.is_empty()) else {
        return String::new();
    };
    let assignments: Vec<String> = vars
        .iter()
        .map(|(n, v)| format!("{n}={}", taskc_compiler::lower::shell_quote(v)))
        .collect();
    format!("export {} && ", assignments.join(" "))
}

/// The notes for `pg`: what was mapped (W1130, on the line that starts the server) and each
/// thing that was not (W1131).
pub fn report(pg: &InContainer, case: &Case, files: &mut CaseFiles) {
    let Some(script) = &case.run_profile else {
        return;
    };
    let roles = pg
        .sql
        .iter()
        .filter(|s| s.starts_with("CREATE ROLE"))
        .count();
    let dbs = pg
        .sql
        .iter()
        .filter(|s| s.starts_with("CREATE DATABASE"))
        .count();
    let mut vars: Vec<String> = Vec::new();
    for (repo, vs) in &pg.env {
        let shown: Vec<String> = vs.iter().map(|(n, v)| format!("{n}={v}")).collect();
        vars.push(format!("{repo}: {}", shown.join(" ")));
    }
    let label = files.at(
        script.source,
        pg.at,
        "starts PostgreSQL in the test container",
    );
    files.emit(
        Diagnostic::new(
            Code::ImportServiceMapped,
            format!(
                "`{}` starts PostgreSQL {} inside the test container ({}); the spec declares it as `service {NAME}` (stdlib recipe `postgres`, version \"{}\") beside the tests of {}: {} SQL line(s) ({roles} role(s), {dbs} database(s)), {} postgresql.conf line(s){}",
                script.rel,
                pg.version,
                pg.version_from,
                pg.version,
                pg.repos
                    .iter()
                    .map(|r| format!("`{r}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                pg.sql.len(),
                pg.conf.len(),
                if vars.is_empty() {
                    String::new()
                } else {
                    format!("; the tests' variables, loopback hosts now `{NAME}`: {}", vars.join("; "))
                }
            ),
            label,
        )
        .with_help("the tests reach it at the hostname `postgres` (port 5432), not 127.0.0.1: a setting that hard-codes 127.0.0.1 or a Unix socket needs a `relax` edit or a variable"),
    );
    for (at, what) in &pg.unmapped {
        let label = files.at(script.source, *at, "not mapped");
        files.emit(
            Diagnostic::new(
                Code::ImportServiceUnmapped,
                format!(
                    "`{}`: {what}; the `{NAME}` service does not do this",
                    script.rel
                ),
                label,
            )
            .with_help("the service image is built from the recipe alone, without the repositories: load a repository's schema in the test's `run` (`psql -h postgres …`, with a PostgreSQL client in the environment), or add the statements to the service's `sql`"),
        );
    }
}

/// The `service postgres { image postgres { … } port 5432 ready … }` statement for `pg`.
pub fn service_stmt(pg: &InContainer, from: &str) -> crate::import::build::Stmt {
    use crate::import::build::{ident, int, list, string, Stmt};
    let mut image = vec![Stmt::new("version", vec![string(&pg.version)]).comment(&pg.version_from)];
    if !pg.sql.is_empty() {
        image.push(Stmt::new("sql", vec![list(&pg.sql)]));
    }
    if !pg.conf.is_empty() {
        image.push(Stmt::new("conf", vec![list(&pg.conf)]));
    }
    Stmt::new("service", vec![ident(NAME)])
        .block(vec![
            Stmt::new("image", vec![ident("postgres")]).block(image),
            Stmt::new("port", vec![int(u64::from(PORT))]),
            Stmt::new(
                "ready",
                vec![string(&format!("pg_isready -q -h 127.0.0.1 -p {PORT}"))],
            ),
        ])
        .comment(&format!(
            "PostgreSQL {} as {from} starts it inside the test container, beside the tests here",
            pg.version
        ))
        .spaced()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn commands_run_as_postgres_become_sql() {
        // Case 1's shape: an existence check, then the role created.
        let line = r#"su postgres -c "psql -v ON_ERROR_STOP=1 -tc \"SELECT 1 FROM pg_roles WHERE rolname='awx'\" | grep -q 1 || createuser awx" >/dev/null"#;
        let sql: Vec<String> = postgres_commands(line)
            .iter()
            .flat_map(|c| command_sql(c).expect("mapped"))
            .collect();
        assert_eq!(sql, vec![r#"CREATE ROLE "awx" LOGIN;"#.to_string()]);
        assert_eq!(
            command_sql(&w("createdb -O gw gw_db")),
            Ok(vec![r#"CREATE DATABASE "gw_db" OWNER "gw";"#.to_string()])
        );
        assert_eq!(
            command_sql(&w("createuser -s -d root")),
            Ok(vec![
                r#"CREATE ROLE "root" LOGIN SUPERUSER CREATEDB;"#.to_string()
            ])
        );
        // Case 5's grant in another database.
        assert_eq!(
            command_sql(&w(
                r#"psql -v ON_ERROR_STOP=1 -d awx -c "GRANT ALL ON SCHEMA public TO myuser;""#
            )),
            Ok(vec![
                "\\connect awx".to_string(),
                "GRANT ALL ON SCHEMA public TO myuser;".to_string(),
                "\\connect postgres".to_string()
            ])
        );
        // What cannot be mapped says why.
        assert!(command_sql(&w("createuser $ROLE")).is_err());
        assert!(command_sql(&w("psql -f schema.sql")).is_err());
        assert!(command_sql(&w(r#"psql -c "DROP TABLE $t""#)).is_err());
    }

    #[test]
    fn versions_hosts_and_database_variables() {
        assert_eq!(
            named_version("cat >>/etc/postgresql/17/main/postgresql.conf"),
            Some(("17".into(), "/etc/postgresql/17".into()))
        );
        assert_eq!(
            named_version("apt-get install -y postgresql-16 postgresql-contrib"),
            Some(("16".into(), "postgresql-16".into()))
        );
        assert_eq!(
            named_version("apt-get install postgresql postgresql-contrib"),
            None
        );
        assert_eq!(loopback("127.0.0.1").as_deref(), Some("postgres"));
        assert_eq!(
            loopback("postgresql://u:p@localhost:5432/db").as_deref(),
            Some("postgresql://u:p@postgres:5432/db")
        );
        assert_eq!(loopback("db.example"), None);
        assert!(database_variable(
            "METRICS_SERVICE_DATABASES__AWX__USER",
            "awx"
        ));
        assert!(database_variable("ANSIBLE_GW_TEST_DB_HOST", "localhost"));
        assert!(database_variable("PGPASSWORD", "x"));
        assert!(!database_variable("METRICS_SERVICE_MODE", "test"));
        assert!(starts_server(&w(
            "service postgresql start >/tmp/pg.log 2>&1 || {"
        )));
        assert!(starts_server(&w("pg_ctlcluster 17 main start")));
        assert!(!starts_server(&w("service redis-server start")));
    }
}
