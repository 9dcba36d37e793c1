//! Inputs several problems read. Today: the SWF reader's scanner ([`swf`]),
//! the `sacct -P` dump scanner ([`sacct`]) and the gzip inflation of trace
//! files ([`gzip`]); job tables, generators
//! and the other formats stay in Python (`clustersched.workload`), which this
//! module mirrors.

pub mod gzip;
pub mod sacct;
pub mod swf;
