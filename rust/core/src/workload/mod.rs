//! Inputs several problems read. Today: the SWF reader's scanner ([`swf`]);
//! job tables, generators and the other formats stay in Python
//! (`clustersched.workload`), which this module mirrors.

pub mod swf;
