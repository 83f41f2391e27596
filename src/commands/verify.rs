//! `taskc verify SPEC...`: build, run the verification plan, derive the oracle, prove joint
//! necessity, print the truth table and write the lock.

use std::path::PathBuf;

use taskc_compiler::lower::LowerOptions;
use taskc_compiler::plan::VerifyStrategy;
use taskc_runtime::exec::ProgressStyle;
use taskc_runtime::pipeline::{
    self, BackendChoice, Session, SessionOptions, VerifyOptions, VerifyOutcome,
};
use taskc_runtime::verify::truth;

use super::spec::{load_checked, Loaded};
use super::Context;
use crate::error::{report, CliError};
use crate::exit::Exit;
use crate::output;

/// `--backend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendArg {
    /// Docker when the engine answers, else local.
    Auto,
    Docker,
    Local,
    /// A Docker Swarm this engine manages (one job per run).
    Swarm,
}

impl From<BackendArg> for BackendChoice {
    fn from(b: BackendArg) -> BackendChoice {
        match b {
            BackendArg::Auto => BackendChoice::Auto,
            BackendArg::Docker => BackendChoice::Docker,
            BackendArg::Local => BackendChoice::Local,
            BackendArg::Swarm => BackendChoice::Swarm,
        }
    }
}

/// How progress and results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VerifyFormat {
    /// Progress lines on stderr, the truth table on stdout.
    Human,
    /// JSON events on stderr, one JSON verification per spec on stdout.
    Json,
}

/// Options shared by the commands that execute plans.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Where runs execute.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Runs at once (default: the number of cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Cache folder for results, mirrors and local images (default: $TASKC_CACHE, else
    /// $XDG_CACHE_HOME/taskc, else ~/.cache/taskc).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// Arguments of `taskc verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Spec files.
    #[arg(required = true)]
    pub specs: Vec<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Run every run K times and report tests whose outcome changes (flaky).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Check the `uses` declarations too: every target against every gold subset (runs the
    /// full suite everywhere).
    #[arg(long)]
    pub exhaustive: bool,
    /// Run the full hidden-test command in every configuration, not only at base and gold
    /// (proper subsets otherwise run only the target's F2P tests).
    #[arg(long)]
    pub full: bool,
    /// Do not write the lock file.
    #[arg(long)]
    pub no_lock: bool,
    #[arg(long, value_enum, default_value_t = VerifyFormat::Human)]
    pub format: VerifyFormat,
    /// Compare the derived oracle with an imported one (`<task>.oracle.toml`, written by
    /// `taskc import`), per repository, counts and ids; exit 1 when they differ.
    #[arg(long, value_name = "FILE")]
    pub compare_oracle: Option<PathBuf>,
}

impl RunArgs {
    /// The cache folder: `--cache`, else the default.
    pub fn cache(&self) -> PathBuf {
        pipeline::cache_or_default(self.cache.as_deref())
    }

    /// Open the session of an executing command, printing the backend note; `hint` says
    /// what to do when no backend opens.
    pub async fn open(&self, progress: ProgressStyle, hint: &str) -> Result<Session, CliError> {
        let opened = pipeline::open_session(&SessionOptions {
            backend: self.backend.into(),
            jobs: self.jobs,
            cache: self.cache.clone(),
            progress,
        })
        .await
        .map_err(|e| CliError::session(e, hint))?;
        if let Some(note) = opened.note {
            output::err(&format!("note: {note}\n"));
        }
        Ok(opened.session)
    }
}

/// What to do when `verify` or `score` cannot open a backend.
pub const NO_BACKEND: &str = "start the Docker Engine, or pass `--backend local`";

/// A bar on a terminal, plain lines otherwise.
pub fn human_progress() -> ProgressStyle {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        ProgressStyle::Bar
    } else {
        ProgressStyle::Lines
    }
}

/// Run `taskc verify`.
pub fn run(args: &VerifyArgs, ctx: &Context) -> Result<Exit, CliError> {
    ctx.rt.block_on(run_async(args, ctx))
}

async fn run_async(args: &VerifyArgs, ctx: &Context) -> Result<Exit, CliError> {
    let style = match args.format {
        VerifyFormat::Human => human_progress(),
        VerifyFormat::Json => ProgressStyle::Json,
    };
    let mut loaded = Vec::new();
    let (specs, mut exit) = super::spec::spec_files(&args.specs);
    for spec in &specs {
        match load_checked(spec, &args.run.cache(), ctx) {
            Ok(l) => loaded.push(l),
            Err(e) => exit = exit.max(report(&e)),
        }
    }
    if loaded.is_empty() {
        return Ok(exit);
    }
    let imported = match &args.compare_oracle {
        None => None,
        Some(_) if args.specs.len() > 1 => {
            return Err(CliError::usage_with(
                "--compare-oracle takes one spec",
                "verify the specs one at a time, each with its oracle file",
            ))
        }
        Some(path) => Some(super::oracle::load(path)?),
    };
    let session = args.run.open(style, NO_BACKEND).await?;
    for l in &loaded {
        let opts = VerifyOptions {
            lower: LowerOptions {
                exhaustive: args.exhaustive,
                full: args.full,
                ..l.lower_options()
            },
            repeat: args.repeat as usize,
            site: l.site.clone(),
        };
        let outcome = match pipeline::verify(&session, &l.task, &l.dir, &opts).await {
            Ok(outcome) => outcome,
            Err(e) => {
                let e = CliError::pipeline(format!("{}: verification could not run", l.name), e);
                exit = exit.max(report(&e));
                if exit == Exit::Interrupted {
                    return Ok(exit);
                }
                continue;
            }
        };
        let sound = outcome.verification.is_sound();
        print_outcome(l, &outcome, args);
        if let Some(o) = &imported {
            exit = exit.max(super::oracle::compare(o, &outcome, args.format));
        }
        if sound && !args.no_lock {
            match pipeline::write_lock(&l.path, &l.task, l.base_image_override.clone(), &outcome) {
                Ok(path) if args.format == VerifyFormat::Human => {
                    output::out(&format!("wrote {}\n", crate::discover::display(&path)))
                }
                Ok(_) => {}
                Err(e) => exit = exit.max(report(&CliError::pipeline(l.name.clone(), e))),
            }
        }
        if !sound {
            exit = exit.max(Exit::Findings);
        }
    }
    Ok(exit)
}

fn print_outcome(l: &Loaded, o: &VerifyOutcome, args: &VerifyArgs) {
    let v = &o.verification;
    let canaries = taskc_runtime::canary::summarise(&o.execution.results);
    if args.format == VerifyFormat::Json {
        let value = serde_json::json!({
            "spec": l.name,
            "task": l.task.id,
            "time": output::now_rfc3339(),
            "sound": v.is_sound(),
            "verification": v,
            "canaries": canaries,
            "runs": { "executed": o.execution.executed, "cached": o.execution.cached },
        });
        output::out(&format!("{value}\n"));
        return;
    }
    let mut s = String::new();
    s.push_str(&format!(
        "verify {} ({}: {} targets, {} runs: {} executed, {} cached, {:.1} s)\n\n",
        l.name,
        v.strategy,
        v.targets.len(),
        o.execution.executed + o.execution.cached,
        o.execution.executed,
        o.execution.cached,
        o.execution.wall.as_secs_f64(),
    ));
    s.push_str(&truth::render(&v.rows, &v.targets));
    if v.rows.iter().any(|r| r.cells.values().any(|c| c.targeted)) {
        s.push_str("(`F2P`: a proper subset ran only the target's F2P tests, stopping at the first failure; `--full` runs every test)\n");
    }
    if let Some(vp) = o.plan.verify() {
        for (t, why) in &vp.full_suite {
            s.push_str(&format!(
                "note: `{t}`'s proper subsets ran its full suite: {why}\n"
            ));
        }
    }
    s.push('\n');
    for (t, o) in &v.oracles {
        let dropped = if o.dropped.is_empty() {
            String::new()
        } else {
            let rules: Vec<String> = o
                .dropped
                .iter()
                .map(|d| format!("{} ({})", d.test, d.rule))
                .collect();
            format!(", dropped: {}", rules.join(", "))
        };
        let skipped = match (o.skipped.len(), o.skipped_unnamed) {
            (0, 0) => String::new(),
            (n, 0) => format!(", {n} skipped at gold"),
            (n, u) => format!(
                ", {} skipped at gold ({u} not named by the log: add `-v` to a pytest command)",
                n as u64 + u
            ),
        };
        s.push_str(&format!(
            "{t}: {} F2P, {} P2P{dropped}{skipped}\n",
            o.f2p.len(),
            o.p2p.len()
        ));
    }
    for (repo, c) in &canaries {
        s.push_str(&format!("canaries: {repo}: {}\n", c.text()));
    }
    for f in &v.flaky {
        s.push_str(&format!(
            "flaky: {} {} passed {}/{}\n",
            f.repo, f.test, f.passed, f.runs
        ));
    }
    if v.is_sound() {
        s.push_str(&format!(
            "\nsound: {}\n",
            match v.strategy {
                VerifyStrategy::Joint => "only the full set of gold patches passes",
                VerifyStrategy::PerRepo =>
                    "every target fails at base and passes with its gold patch",
            }
        ));
    } else {
        s.push_str("\nUNSOUND:\n");
        for p in &v.problems {
            s.push_str(&format!("  - {p}\n"));
        }
    }
    output::out(&s);
}
