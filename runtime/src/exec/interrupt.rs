//! The signals that stop a session: Ctrl-C (SIGINT) and SIGTERM (what `kill`, `timeout`
//! and a CI runner's cancel send). While runs are under way either stops new work and
//! removes the session's containers, service containers and networks (scheduler.rs); the
//! command exits 128 + the signal's number (130, 143: docs/cli.md).
//!
//! Listening replaces the signals' default action for the whole process, so [`watch`]
//! (started once by the CLI) ends the process with that code when a signal arrives while no
//! scheduler handles it (an image build, writing a lock), as the default action would.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The signal that stopped a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl Signal {
    /// Its conventional name.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }

    /// The exit code of a command it stopped (128 + its number).
    pub fn exit_code(self) -> i32 {
        match self {
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
        }
    }
}

/// SIGINT and SIGTERM, listened to from the moment it is made.
pub struct Signals {
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Starts listening. A signal whose handler cannot be installed is not waited for (the
    /// other still is).
    pub fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Signals {
                int: signal(SignalKind::interrupt()).ok(),
                term: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal; never resolves when neither could be listened to.
    pub async fn recv(&mut self) -> Signal {
        #[cfg(unix)]
        {
            let int = async {
                match self.int.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            let term = async {
                match self.term.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = int => Signal::Interrupt,
                _ = term => Signal::Terminate,
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            Signal::Interrupt
        }
    }
}

impl Default for Signals {
    fn default() -> Self {
        Signals::new()
    }
}

/// Schedulers handling the signals now.
static HANDLING: AtomicUsize = AtomicUsize::new(0);

/// While it lives, a scheduler handles SIGINT and SIGTERM (and [`watch`] leaves them to it).
pub struct Handling(());

impl Handling {
    pub fn start() -> Handling {
        HANDLING.fetch_add(1, Ordering::SeqCst);
        Handling(())
    }
}

impl Drop for Handling {
    fn drop(&mut self) {
        HANDLING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Ends the process with 130 or 143 on a signal no scheduler handles. Spawned once on the
/// CLI's runtime.
pub async fn watch() {
    let mut signals = Signals::new();
    loop {
        let s = signals.recv().await;
        if HANDLING.load(Ordering::SeqCst) == 0 {
            std::process::exit(s.exit_code());
        }
    }
}
