//! The checked task: what a spec means once the checker accepts it.
//! Every file it names has been read, every patch parsed, every reference resolved.
//! Lowering (`crate::lower`) turns it into plans.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::patch::Patch;
use crate::span::Span;
use crate::words::words;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub id: String,
    /// The spec's path as given to taskc, with `/` separators (for messages only; never hashed).
    pub spec_path: String,
    pub title: Option<String>,
    pub kind: TaskKind,
    pub ecosystem: Option<String>,
    pub languages: Vec<String>,
    /// Source pull requests or issues the task was mined from.
    pub links: Vec<String>,
    pub prompt: Prompt,
    pub verify: VerifyStrategy,
    pub env: Environment,
    /// Targets and context repositories, in declaration order.
    pub repos: Vec<Repo>,
    /// Services beside the tests (`service` blocks of the task and of its repositories),
    /// in declaration order; a target's runs get those its [`Repo::services`] names.
    pub services: Vec<Service>,
}

impl Task {
    pub fn repo(&self, name: &str) -> Option<&Repo> {
        self.repos.iter().find(|r| r.name == name)
    }

    pub fn targets(&self) -> impl Iterator<Item = &Repo> {
        self.repos.iter().filter(|r| r.role == Role::Target)
    }

    pub fn contexts(&self) -> impl Iterator<Item = &Repo> {
        self.repos.iter().filter(|r| r.role == Role::Context)
    }

    pub fn service(&self, name: &str) -> Option<&Service> {
        self.services.iter().find(|s| s.name == name)
    }
}

/// The spec's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskKind {
    Bugfix,
    Feature,
}

words!(TaskKind {
    Bugfix => "bugfix",
    Feature => "feature",
});

/// How a task is verified (the spec's `verify` field; the verify plan's `strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerifyStrategy {
    /// All 2^N subsets of gold patches; only the full set may pass.
    Joint,
    /// Each target fails at base and passes with its own gold.
    PerRepo,
}

words!(VerifyStrategy {
    Joint => "joint",
    PerRepo => "per-repo",
});

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    /// The file it came from, relative to the spec's folder, if not inline.
    pub file: Option<String>,
}

/// A stdlib recipe and its (type-checked) parameters, defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    pub recipe: String,
    pub params: BTreeMap<String, ParamValue>,
}

impl Environment {
    /// Its named build contexts (`contexts { … }`), in the order written; empty when none.
    pub fn contexts(&self) -> &[NamedContext] {
        self.params
            .values()
            .find_map(|v| match v {
                ParamValue::Contexts(c) => Some(c.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ParamValue {
    Str(String),
    Int(u64),
    Bool(bool),
    List(Vec<String>),
    /// A `file("…")` parameter: path relative to the spec's folder, its text, its sha256.
    File {
        path: String,
        text: String,
        digest: String,
    },
    /// A `dir("…")` parameter (a build context): path relative to the spec's folder and the
    /// digest of its tree.
    Dir {
        path: String,
        digest: String,
    },
    /// A `contexts { … }` parameter: the Dockerfile's named build contexts, in the order
    /// written (`docs/language.md`, "Named build contexts").
    Contexts(Vec<NamedContext>),
}

/// One named build context of an `env dockerfile` / `image dockerfile`: what
/// `COPY --from=<name>` and `FROM <name>` of the Dockerfile read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NamedContext {
    /// As written; the Dockerfile names it case-insensitively, as a stage.
    pub name: String,
    pub source: ContextSource,
    /// The name's span in the spec (for diagnostics only, never hashed).
    pub span: Span,
}

/// Where a named build context's files come from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ContextSource {
    /// `dir("…")`: a folder beside the spec; its tree's digest.
    Dir { path: String, digest: String },
    /// `image("…")`: an image, as `FROM` names one (stand-ins and digests apply).
    Image(String),
    /// `repo(<name>)`: a repository of the task as taskc materialises it at its base commit
    /// (the work tree, without `.git`; never a setup step's, a patch's or a run's effects).
    Repo(String),
}

/// Whether a repository is scored (in specs, plans and workspaces alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Scored: has a gold patch and hidden tests.
    Target,
    /// Visible to agents, may be edited, never scored.
    Context,
}

words!(Role {
    Target => "target",
    Context => "context",
});

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    pub name: String,
    pub role: Role,
    pub source: Source,
    /// Full 40-hex commit; required for git and bundle sources, optional for dir sources.
    pub base: Option<String>,
    pub gold: Option<PatchFile>,
    /// Shell commands run in the task image, in order, in the repository's folder.
    pub setup: Vec<String>,
    /// Repositories whose working tree this repository's tests see.
    pub uses: Vec<String>,
    pub test: Option<TestBlock>,
    pub relaxations: Vec<Relaxation>,
    /// The services its test runs get, sorted: the task-level ones it names with
    /// `services …` and those declared in its own block.
    pub services: Vec<String>,
    /// `protect` globs of the repository and its test block, in order: more test surface,
    /// reverted to base in scoring runs (`crate::glob`).
    pub protect: Vec<String>,
    /// Where the repository was declared (for diagnostics after checking).
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Git {
        url: String,
    },
    /// A git bundle file, relative to the spec's folder; `digest` is the sha256 of its bytes.
    Bundle {
        path: String,
        digest: String,
    },
    /// A plain folder, relative to the spec's folder; `digest` hashes its tree (paths, modes, bytes).
    Dir {
        path: String,
        digest: String,
    },
}

impl Source {
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Git { .. } => "git",
            Source::Bundle { .. } => "bundle",
            Source::Dir { .. } => "dir",
        }
    }
}

/// A patch file named by the spec: its path, bytes, sha256 and parsed form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile {
    /// Relative to the spec's folder, `/`-separated.
    pub path: String,
    pub text: String,
    /// sha256 of `text`, lowercase hex.
    pub digest: String,
    pub patch: Patch,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestBlock {
    /// The hidden test patch: never in an image an agent can see.
    pub patch: PatchFile,
    /// Shell command that runs the tests, in the repository's folder.
    pub run: String,
    /// The log parser (`parser pytest`), which decides how its runs are read.
    pub parser: crate::parser::LogParser,
    pub timeout_secs: u64,
    pub expect: Expectations,
    /// `select "… {ids} …"`: the command that runs only the given tests, for a parser taskc
    /// cannot narrow itself (`docs/language.md`, "Test selection").
    pub select: Option<String>,
}

/// Tests the curator asserts must end up fail-to-pass or pass-to-pass.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expectations {
    pub f2p: Vec<String>,
    pub p2p: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relaxation {
    pub rule: Rule,
    pub reason: String,
    pub action: RelaxAction,
}

/// The review rule a relaxation invokes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Review rule 1: relax implementation-specific constraints.
    ImplementationSpecific,
    /// Review rule 2: remove checks of functionality the prompt never asked for.
    Unrequested,
}

words!(Rule {
    ImplementationSpecific => "implementation-specific",
    Unrequested => "unrequested",
});

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelaxAction {
    /// Remove a test id (`file::name` or `file::Class::name`) from the oracle.
    Drop { test: String },
    /// Replace `replace` (occurring exactly once in the added lines of `file` in the
    /// hidden test patch) with `with`.
    Edit {
        file: String,
        replace: String,
        with: String,
    },
}

/// Default per-run test timeout, seconds.
pub const DEFAULT_TEST_TIMEOUT_SECS: u64 = 1800;

pub use crate::service::{ReadyCheck, Service, ServiceImage, ServiceLimits, ServiceScope};
