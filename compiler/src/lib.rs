//! The pure front end of taskc: source → tokens/AST → checked task → plan.
//!
//! Invariant: nothing in this crate touches the file system, the network, Docker or the
//! clock. Files named by a spec are read through [`loader::Loader`], supplied by the caller.

pub mod check;
pub mod codes;
pub mod diagnostic;
pub mod diff;
pub mod fmt;
pub mod glob;
pub mod image_ref;
pub mod inline_tests;
pub mod loader;
pub mod lock;
pub mod lower;
pub mod model;
pub mod parser;
pub mod patch;
pub mod plan;
pub mod recipe;
pub mod service;
pub mod source;
pub mod span;
pub mod syntax;
pub mod words;

pub use codes::Code;
pub use diagnostic::{Diagnostic, Diagnostics, Label, Severity};
pub use source::SourceMap;
pub use span::{SourceId, Span};
