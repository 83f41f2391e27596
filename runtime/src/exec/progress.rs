//! Progress reporting for long runs: a progress bar on a terminal, plain lines otherwise,
//! JSON events for tools, or nothing.
//!
//! Plain lines (a non-terminal stderr: CI logs, `2> file`) say one line per finished run
//! with the count (`run r-…: done in 3.1 s (5/8 runs)`), a `still running` line every
//! minute while runs are in flight and none finished (so a long run never looks hung), and
//! once per execution a hint when runs slow down: a run that took far longer than the
//! fastest while others ran beside it is what an oversubscribed CPU does to CPU-heavy
//! suites (`--jobs` lower is then faster).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

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

/// How often plain lines say which runs are still in flight.
const HEARTBEAT: Duration = Duration::from_secs(60);

/// A run slower than this many times the fastest finished run (and slower than
/// [`SLOW_SECS`]), while other runs ran beside it, gets the one slow-down hint.
const SLOW_FACTOR: f64 = 4.0;
const SLOW_SECS: f64 = 30.0;

/// Where plain lines go: stderr, or a test's buffer.
type Sink = Arc<Mutex<Box<dyn Write + Send>>>;

/// What plain lines count: runs planned, finished, in flight.
#[derive(Default)]
struct Counts {
    planned: usize,
    finished: usize,
    running: BTreeMap<(String, usize), Instant>,
    /// The fastest finished run, in seconds.
    fastest: Option<f64>,
    hinted: bool,
    /// Runs at once (`--jobs`), for the ETA.
    jobs: usize,
    /// Runs executed (not cached) and finished, and their total wall time in seconds.
    executed: usize,
    executed_secs: f64,
}

impl Counts {
    /// Seconds until every planned run has finished: the runs left × the mean duration of
    /// the runs executed so far ÷ the runs at once (`--jobs`, at most the runs left);
    /// `None` before any run executed, or when none is left.
    fn eta(&self) -> Option<f64> {
        let left = self.planned.saturating_sub(self.finished);
        if self.executed == 0 || left == 0 {
            return None;
        }
        let mean = self.executed_secs / self.executed as f64;
        Some(mean * left as f64 / self.jobs.clamp(1, left) as f64)
    }

    fn still_running(&self, now: Instant) -> Option<String> {
        let ((run, _), since) = self.running.iter().min_by_key(|(_, t)| **t)?;
        Some(format!(
            "still running: {} run{} ({}/{} finished); the longest, {run}, for {:.0} s",
            self.running.len(),
            if self.running.len() == 1 { "" } else { "s" },
            self.finished,
            self.planned,
            now.duration_since(*since).as_secs_f64()
        ))
    }

    /// The slow-down hint, once, when `secs` is far slower than the fastest run and other
    /// runs ran beside it.
    fn slow_hint(&mut self, secs: f64, beside: usize) -> Option<String> {
        let fastest = self.fastest?;
        if self.hinted || beside == 0 || secs < SLOW_SECS || secs < SLOW_FACTOR * fastest {
            return None;
        }
        self.hinted = true;
        Some(format!(
            "hint: runs are slowing down ({secs:.0} s for a run, {fastest:.1} s for the fastest, \
             {beside} other run{} at once): CPU-heavy test suites oversubscribe the machine \
             when several run together; fewer runs at once (`--jobs 1`, or a lower `-j`) can \
             finish sooner",
            if beside == 1 { "" } else { "s" }
        ))
    }
}

/// A thread-safe event sink.
pub struct Progress {
    style: ProgressStyle,
    sink: Sink,
    bar: Option<indicatif::ProgressBar>,
    counts: Arc<Mutex<Counts>>,
    /// Dropping it stops the heartbeat thread (plain lines only).
    _heartbeat: Option<mpsc::Sender<()>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("style", &self.style)
            .finish_non_exhaustive()
    }
}

impl Progress {
    pub fn new(style: ProgressStyle) -> Progress {
        Progress::with_sink(style, Box::new(std::io::stderr()), HEARTBEAT)
    }

    /// The same, counting the ETA with `jobs` runs at once.
    pub fn with_jobs(self, jobs: usize) -> Progress {
        if let Ok(mut c) = self.counts.lock() {
            c.jobs = jobs.max(1);
        }
        self
    }

    /// Plain lines (and JSON events) into `sink`, a `still running` line every `heartbeat`.
    pub fn with_sink(
        style: ProgressStyle,
        sink: Box<dyn Write + Send>,
        heartbeat: Duration,
    ) -> Progress {
        let sink: Sink = Arc::new(Mutex::new(sink));
        let counts = Arc::new(Mutex::new(Counts::default()));
        let beat = (style == ProgressStyle::Lines).then(|| {
            let (stop, stopped) = mpsc::channel::<()>();
            let (sink, counts) = (sink.clone(), counts.clone());
            std::thread::spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(heartbeat) {
                    let line = counts
                        .lock()
                        .ok()
                        .and_then(|c| c.still_running(Instant::now()));
                    if let (Some(line), Ok(mut w)) = (line, sink.lock()) {
                        let _ = writeln!(w, "{line}");
                    }
                }
            });
            stop
        });
        let bar = (style == ProgressStyle::Bar).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            if let Ok(s) = indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs, ETA {eta} {msg}",
            ) {
                bar.set_style(s);
            }
            bar
        });
        Progress {
            style,
            sink,
            bar,
            counts,
            _heartbeat: beat,
        }
    }

    /// Counts `e`; the lines plain output adds to it (count, hint).
    fn count(&self, e: &Event) -> (String, Option<String>) {
        let Ok(mut c) = self.counts.lock() else {
            return (String::new(), None);
        };
        match e {
            Event::Planned { runs } => c.planned += runs,
            Event::RunCached { .. } => c.finished += 1,
            Event::RunStarted { run, repetition } => {
                c.running.insert((run.clone(), *repetition), Instant::now());
            }
            Event::RunFinished {
                run,
                repetition,
                secs,
                failure,
            } => {
                c.running.remove(&(run.clone(), *repetition));
                c.finished += 1;
                let beside = c.running.len();
                let hint = c.slow_hint(*secs, beside);
                if failure.is_none() {
                    c.fastest = Some(c.fastest.map_or(*secs, |f| f.min(*secs)));
                }
                c.executed += 1;
                c.executed_secs += secs;
                let eta = c
                    .eta()
                    .map(|e| format!(", ETA {}", eta_text(e)))
                    .unwrap_or_default();
                return (format!(" ({}/{} runs{eta})", c.finished, c.planned), hint);
            }
            _ => {}
        }
        (String::new(), None)
    }

    fn write(&self, line: &str) {
        if let Ok(mut w) = self.sink.lock() {
            let _ = writeln!(w, "{line}");
        }
    }

    pub fn emit(&self, e: Event) {
        let (count, hint) = self.count(&e);
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
                    format!("run {run}: done in {secs:.1} s{count}")
                }
                Event::RunFinished {
                    run,
                    failure: Some(why),
                    secs,
                    ..
                } => {
                    format!("run {run}: FAILED after {secs:.1} s{count}: {why}")
                }
                Event::Interrupted { finished, pending } => {
                    format!("interrupted: {finished} results kept, {pending} runs not started")
                }
            },
        };
        self.write(&line);
        if let Some(hint) = hint.filter(|_| self.style == ProgressStyle::Lines) {
            self.write(&hint);
        }
    }

    /// Clear the bar (if any) once an execution is over.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `42 s`, `3 min 5 s`, `2 h 10 min`.
fn eta_text(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test reads back.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Buf {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    fn started(run: &str) -> Event {
        Event::RunStarted {
            run: run.into(),
            repetition: 0,
        }
    }

    fn finished(run: &str, secs: f64) -> Event {
        Event::RunFinished {
            run: run.into(),
            repetition: 0,
            failure: None,
            secs,
        }
    }

    #[test]
    fn plain_lines_count_runs_say_what_is_in_flight_and_hint_once_at_a_slow_down() {
        let buf = Buf::default();
        let p = Progress::with_sink(
            ProgressStyle::Lines,
            Box::new(buf.clone()),
            Duration::from_millis(50),
        );
        p.emit(Event::Planned { runs: 4 });
        for r in ["r-a", "r-b", "r-c", "r-d"] {
            p.emit(started(r));
        }
        p.emit(finished("r-a", 2.0));
        std::thread::sleep(Duration::from_millis(200));
        p.emit(finished("r-b", 95.0));
        p.emit(finished("r-c", 120.0));
        p.emit(finished("r-d", 130.0));
        drop(p);
        let text = buf.text();
        // One run of 2 s executed, 3 left, one at a time: 6 s.
        assert!(
            text.contains("run r-a: done in 2.0 s (1/4 runs, ETA 6 s)"),
            "{text}"
        );
        assert!(
            text.contains("still running: 3 runs (1/4 finished); the longest, r-b, for"),
            "{text}"
        );
        assert_eq!(
            text.matches("hint: runs are slowing down").count(),
            1,
            "{text}"
        );
        assert!(text.contains("(95 s for a run, 2.0 s for the fastest, 2 other runs at once)"));
        assert!(
            text.contains("run r-d: done in 130.0 s (4/4 runs)"),
            "{text}"
        );
    }

    #[test]
    fn the_eta_is_the_runs_left_times_the_mean_run_over_the_runs_at_once() {
        let buf = Buf::default();
        let p = Progress::with_sink(ProgressStyle::Lines, Box::new(buf.clone()), HEARTBEAT)
            .with_jobs(2);
        p.emit(Event::Planned { runs: 6 });
        p.emit(Event::RunCached {
            run: "r-c".into(),
            repetition: 0,
        });
        p.emit(finished("r-a", 10.0));
        p.emit(finished("r-b", 30.0));
        drop(p);
        let text = buf.text();
        // After r-a: 4 left × 10 s ÷ 2 at once; after r-b: 3 left × 20 s ÷ 2.
        assert!(text.contains("(2/6 runs, ETA 20 s)"), "{text}");
        assert!(text.contains("(3/6 runs, ETA 30 s)"), "{text}");
        assert_eq!(eta_text(185.0), "3 min 5 s");
        assert_eq!(eta_text(7800.0), "2 h 10 min");
    }

    #[test]
    fn a_slow_run_alone_gets_no_hint() {
        let mut c = Counts {
            fastest: Some(1.0),
            ..Counts::default()
        };
        assert_eq!(c.slow_hint(300.0, 0), None);
        assert_eq!(c.slow_hint(20.0, 3), None);
        assert!(c.slow_hint(300.0, 1).is_some());
        assert_eq!(c.slow_hint(300.0, 1), None);
    }
}
