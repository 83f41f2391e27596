//! The signals that stop a session: Ctrl-C (SIGINT) and SIGTERM (what `kill`, `timeout`
//! and a CI runner's cancel send). Either stops new work and removes the session's
//! containers, service containers and networks (scheduler.rs); the command exits
//! 128 + the signal's number (130, 143: docs/cli.md).

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
}

/// Resolves when the process receives SIGINT or SIGTERM. A signal whose handler cannot be
/// installed is not waited for (the other still is); without either it never resolves.
pub async fn signalled() -> Signal {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut int = signal(SignalKind::interrupt()).ok();
        let mut term = signal(SignalKind::terminate()).ok();
        let int_recv = async {
            match int.as_mut() {
                Some(s) => s.recv().await,
                None => std::future::pending().await,
            }
        };
        let term_recv = async {
            match term.as_mut() {
                Some(s) => s.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = int_recv => Signal::Interrupt,
            _ = term_recv => Signal::Terminate,
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
