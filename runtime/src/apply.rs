//! Strict patch application.
