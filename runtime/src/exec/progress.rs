//! Progress reporting for long runs: a progress bar on a terminal, plain lines otherwise,
//! JSON events for tools, or nothing.

use std::io::Write;
use std::sync::Mutex;

use serde::Serialize;

/// One thing that happened while executing a plan.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// How many runs this execution will account for (cached or executed).
    Planned {
        runs: usize,
    },
    ImageReady {
        image: String,
        cached: bool,
        secs: f64,
    },
    RunCached {
        run: String,
        repetition: usize,
    },
    RunStarted {
        run: String,
        repetition: usize,
    },
    RunFinished {
        run: String,
        repetition: usize,
        /// The run's failure, as one line (`None`: it completed).
        failure: Option<String>,
        secs: f64,
    },
    Interrupted {
        finished: usize,
        pending: usize,
    },
}

/// How events are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressStyle {
    /// An indicatif bar on stderr (for terminals); images and invalid runs still get a line.
    Bar,
    /// One human line per event on stderr.
    Lines,
    /// One JSON object per event on stderr.
    Json,
    Quiet,
}

/// A thread-safe event sink.
#[derive(Debug)]
pub struct Progress {
    style: ProgressStyle,
    lock: Mutex<()>,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    pub fn new(style: ProgressStyle) -> Progress {
        let bar = (style == ProgressStyle::Bar).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            if let Ok(s) = indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs {msg}",
            ) {
                bar.set_style(s);
            }
            bar
        });
        Progress {
            style,
            lock: Mutex::new(()),
            bar,
        }
    }

    pub fn emit(&self, e: Event) {
        if let Some(bar) = &self.bar {
            match &e {
                Event::Planned { runs } => bar.inc_length(*runs as u64),
                Event::RunCached { .. } => bar.inc(1),
                Event::RunStarted { run, .. } => bar.set_message(run.clone()),
                Event::RunFinished { failure, run, .. } => {
                    bar.inc(1);
                    if let Some(why) = failure {
                        bar.println(format!("run {run}: FAILED: {why}"));
                    }
                }
                Event::ImageReady {
                    image,
                    cached,
                    secs,
                } => bar.println(if *cached {
                    format!("image {image}: cached")
                } else {
                    format!("image {image}: built in {secs:.1} s")
                }),
                Event::Interrupted { .. } => bar.abandon(),
            }
            return;
        }
        let line = match self.style {
            ProgressStyle::Quiet | ProgressStyle::Bar => return,
            ProgressStyle::Json => serde_json::to_string(&e).unwrap_or_default(),
            ProgressStyle::Lines => match &e {
                Event::ImageReady {
                    image,
                    cached: true,
                    ..
                } => format!("image {image}: cached"),
                Event::ImageReady { image, secs, .. } => {
                    format!("image {image}: built in {secs:.1} s")
                }
                Event::RunCached { run, .. } => format!("run {run}: cached"),
                Event::RunStarted { .. } | Event::Planned { .. } => return,
                Event::RunFinished {
                    run,
                    failure: None,
                    secs,
                    ..
                } => {
                    format!("run {run}: done in {secs:.1} s")
                }
                Event::RunFinished {
                    run,
                    failure: Some(why),
                    secs,
                    ..
                } => {
                    format!("run {run}: FAILED after {secs:.1} s: {why}")
                }
                Event::Interrupted { finished, pending } => {
                    format!("interrupted: {finished} results kept, {pending} runs not started")
                }
            },
        };
        let _guard = self.lock.lock();
        let _ = writeln!(std::io::stderr(), "{line}");
    }

    /// Clear the bar (if any) once an execution is over.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
