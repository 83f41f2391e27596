//! What the runtime's integration tests share (`mod support;` in a test file): each test
//! keeps only what it tests.
//!
//! - [`canaries`]: a run whose hidden test patch adds files, its placement laid out and run
//!   as a backend does, and the checks of its outcome (no Docker; also included by the
//!   library's `canary/tests.rs`);
//! - [`runners`]: the runners' image `parsers-runners:bookworm` and bash scripts run in it;
//! - [`docker`]: guards removing the Docker objects a test creates, also when it fails;
//! - [`swarm_guard`]: a single-node swarm shared by the swarm tests.

// Each test binary uses some of these helpers.
#![allow(dead_code)]

pub mod canaries;
pub mod docker;
pub mod runners;
pub mod swarm_guard;
