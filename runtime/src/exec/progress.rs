//! Progress reporting for long runs: plain lines, JSON events, or nothing.

use std::io::Write;
use std::sync::Mutex;

use serde::Serialize;

/// One thing that happened while executing a plan.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
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
        invalid: Option<String>,
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
}

impl Progress {
    pub fn new(style: ProgressStyle) -> Progress {
        Progress {
            style,
            lock: Mutex::new(()),
        }
    }

    pub fn emit(&self, e: Event) {
        let line = match self.style {
            ProgressStyle::Quiet => return,
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
                Event::RunStarted { .. } => return,
                Event::RunFinished {
                    run,
                    invalid: None,
                    secs,
                    ..
                } => {
                    format!("run {run}: done in {secs:.1} s")
                }
                Event::RunFinished {
                    run,
                    invalid: Some(why),
                    secs,
                    ..
                } => {
                    format!("run {run}: INVALID after {secs:.1} s: {why}")
                }
                Event::Interrupted { finished, pending } => {
                    format!("interrupted: {finished} results kept, {pending} runs not started")
                }
            },
        };
        let _guard = self.lock.lock();
        let _ = writeln!(std::io::stderr(), "{line}");
    }
}
