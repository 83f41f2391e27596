//! All of taskc's I/O: files, repositories, images, containers, processes, log parsers,
//! grading and reports.

pub mod fs_loader;
pub mod parsers;
