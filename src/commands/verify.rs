//! `taskc verify SPEC...`: build, run the verification plan, derive the oracle, prove joint
//! necessity, print the truth table and write the lock.

use std::collections::BTreeMap;
use std::path::PathBuf;

use taskc_compiler::plan::VerifyStrategy;
use taskc_runtime::canary::CanarySummary;
use taskc_runtime::pipeline::{
    self, BackendChoice, CheckedSpec, ProgressStyle, Selection, SessionOptions, VerifyEnd,
    VerifyEvent, VerifyOutcome, VerifySpecsError, VerifySpecsOptions,
};
use taskc_runtime::verify::truth;

use super::spec::load_checked;
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

/// `--task` / `--exclude-task`: which of the given specs' tasks run.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskFilterArgs {
    /// Only the tasks with this id or matching this glob (`*`, `?`); repeatable or
    /// comma-separated (SWE-bench's `--instance_ids`, Harbor's `--task-names`).
    #[arg(
        long = "task",
        short = 't',
        visible_alias = "instance-ids",
        value_delimiter = ',',
        value_name = "ID|GLOB"
    )]
    pub tasks: Vec<String>,
    /// Leave out the tasks with this id or matching this glob; wins over `--task`.
    #[arg(
        long = "exclude-task",
        short = 'x',
        value_delimiter = ',',
        value_name = "ID|GLOB"
    )]
    pub exclude_tasks: Vec<String>,
    /// Only the first N tasks `--task`/`--exclude-task` keep, in the order the specs are
    /// given (Harbor's `--n-tasks`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
}

impl TaskFilterArgs {
    /// The selection, keeping every model.
    pub fn selection(&self) -> Selection {
        Selection {
            tasks: self.tasks.clone(),
            exclude_tasks: self.exclude_tasks.clone(),
            models: Vec::new(),
            limit: self.limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        }
    }
}

/// The note for `kept` of `of` specs selected; the exit code (usage when none is left).
pub fn render_selected(kept: usize, of: usize) -> Exit {
    if kept == 0 {
        output::error(&format!(
            "--task/--exclude-task left none of the {of} specs' tasks\n  help: a task is selected by its `task` id (or a glob of it), not by its file name"
        ));
        return Exit::Usage;
    }
    output::err(&format!("note: {kept} of {of} specs' tasks selected\n"));
    Exit::Success
}

/// Tell the run's id and where it was recorded (a warning when the index could not be
/// written: the run's results are kept all the same).
pub fn render_recorded(id: &str, index: Result<PathBuf, pipeline::PipelineError>) {
    match index {
        Ok(path) => output::err(&format!(
            "run id: {id} (recorded in {})\n",
            crate::discover::display(&path)
        )),
        Err(e) => output::err(&format!("warning: run {id}: {e}\n")),
    }
}

/// Arguments of `taskc verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Spec files.
    #[arg(required = true)]
    pub specs: Vec<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub filter: TaskFilterArgs,
    #[command(flatten)]
    pub verbosity: super::verbosity::VerbosityArgs,
    /// Scale every test step's time limit by F (> 0); runs under another limit are not
    /// reused (the limit is part of a run's id).
    #[arg(long, value_name = "F", default_value = "1")]
    pub timeout_multiplier: pipeline::TimeoutMultiplier,
    /// This run's id (default: generated), recorded in the index of runs
    /// (`<cache>/runs/index.jsonl`) with the inputs' digests.
    #[arg(long, value_name = "ID")]
    pub run_id: Option<pipeline::RunId>,
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

    /// What the session of an executing command is opened with.
    pub fn session(&self, progress: ProgressStyle) -> SessionOptions {
        SessionOptions {
            backend: self.backend.into(),
            jobs: self.jobs,
            cache: self.cache.clone(),
            progress,
        }
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
    let style = match args.format {
        VerifyFormat::Human => args.verbosity.human_progress(),
        VerifyFormat::Json => ProgressStyle::Json,
    };
    let (files, mut exit) = super::spec::spec_files(&args.specs);
    let mut specs = Vec::new();
    for f in &files {
        match load_checked(f, &args.run.cache(), ctx) {
            Ok(l) => specs.push(l),
            Err(e) => exit = exit.max(report(&e)),
        }
    }
    if specs.is_empty() {
        return Ok(exit);
    }
    if args.compare_oracle.is_some() && args.specs.len() > 1 {
        return Err(CliError::usage_with(
            "--compare-oracle takes one spec",
            "verify the specs one at a time, each with its oracle file",
        ));
    }
    let opts = VerifySpecsOptions {
        session: args.run.session(style),
        exhaustive: args.exhaustive,
        full: args.full,
        repeat: args.repeat as usize,
        write_lock: !args.no_lock,
        compare_oracle: args.compare_oracle.clone(),
        selection: args.filter.selection(),
        timeout_multiplier: args.timeout_multiplier,
        run_id: args.run_id.clone(),
    };
    let verified = ctx
        .rt
        .block_on(pipeline::verify_specs(&specs, &opts, &mut |event| {
            exit = exit.max(render(args, event))
        }));
    match verified {
        Ok(VerifyEnd::Done {
            unsound,
            oracle_differs,
        }) if unsound + oracle_differs > 0 => Ok(exit.max(Exit::Findings)),
        Ok(_) => Ok(exit),
        Err(VerifySpecsError::Session(e)) => Err(CliError::session(e, NO_BACKEND)),
        Err(VerifySpecsError::Oracle(e)) => Err(super::oracle::file_error(&e)),
    }
}

/// Print one event of the verification; the exit code it calls for.
fn render(args: &VerifyArgs, event: VerifyEvent<'_>) -> Exit {
    match event {
        VerifyEvent::BackendNote(note) => output::err(&format!("note: {note}\n")),
        VerifyEvent::Selected { kept, of } => return render_selected(kept, of),
        VerifyEvent::RunRecorded { record, index } => {
            render_recorded(record.run_id.as_str(), index)
        }
        VerifyEvent::Verified {
            spec,
            outcome,
            canaries,
            comparison,
        } => {
            print_outcome(spec, outcome, canaries, args);
            if let Some(c) = comparison {
                super::oracle::print(c, args.format);
            }
        }
        VerifyEvent::LockWritten { path, .. } => {
            if args.format == VerifyFormat::Human {
                output::out(&format!("wrote {}\n", crate::discover::display(path)));
            }
        }
        VerifyEvent::LockFailed { spec, error } => {
            return report(&CliError::pipeline(spec.name.clone(), error))
        }
        VerifyEvent::SpecFailed { spec, error } => {
            return report(&CliError::pipeline(
                format!("{}: verification could not run", spec.name),
                error,
            ))
        }
    }
    Exit::Success
}

fn print_outcome(
    l: &CheckedSpec,
    o: &VerifyOutcome,
    canaries: &BTreeMap<String, CanarySummary>,
    args: &VerifyArgs,
) {
    let v = &o.verification;
    if args.format == VerifyFormat::Json {
        let value = serde_json::json!({
            "spec": l.name,
            "task": l.task.id,
            "time": output::now_rfc3339(),
            "sound": v.is_sound(),
            "verification": v,
            "canaries": canaries,
            "runs": {
                "executed": o.execution.executed,
                "cached": o.execution.cached,
                "wall_s": o.execution.wall.as_secs_f64(),
            },
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
    s.push_str(&truth::legend(&v.rows));
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
    for (repo, c) in canaries {
        s.push_str(&format!("canaries: {repo}: {}\n", c.text()));
    }
    for n in &v.notes {
        s.push_str(&format!("note: {n}\n"));
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
