//! Executing plans: images, run scripts, the scheduler, interpretation of logs, and the
//! result store.

mod go_order;
pub mod images;
pub mod interpret;
pub mod interrupt;
pub mod progress;
pub mod scheduler;
pub mod script;
pub mod session_record;
pub mod store;
pub mod surface;

pub use progress::{Event, Progress, ProgressStyle};
pub use scheduler::{ExecError, Execution, Executor, Job};
pub use session_record::{SessionCensus, SessionLock, SessionRecords};
pub use store::{ResultKey, ResultStore};
