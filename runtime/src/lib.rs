//! All of taskc's I/O: files, repositories, images, containers, processes, log parsers,
//! grading and reports.

// The test helpers shared with the integration tests (`tests/support/`) name this crate
// as they do.
#[cfg(test)]
extern crate self as taskc_runtime;

pub mod atomic;
pub mod backend;
mod base_tree;
pub mod bootstrap;
pub mod canary;
pub mod docker;
pub mod exec;
pub mod export;
pub mod failure;
pub mod fs_loader;
pub mod grade;
pub mod import;
pub mod local;
pub mod parsers;
pub mod pipeline;
pub mod predictions;
pub mod repo;
pub mod report;
pub mod results;
pub mod swarm;
pub mod verify;
