//! Repositories.
