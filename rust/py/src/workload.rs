//! Bindings of `clustersched_core::workload`: the SWF scanner behind
//! `clustersched.read_swf`, which stays the public interface (it reads the
//! file and words the errors), on plain text or on a gzip file the core
//! inflates. They convert and call, nothing else.

use clustersched_core::workload::swf::{self, Finding, Scan};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;

/// A malformed data line: (row, line, job number or None, kind, field or
/// None, token start, token end, value or None, extra), kind being
/// `"fields"` (extra: the number of fields), `"number"` (field's token is not
/// a number), `"rule"` (field's value breaks rule `extra`, an index of
/// `_RULES` in `clustersched.workload.swf`) or `"duplicate"` (extra: the line
/// that has the job number first).
type ProblemTuple = (
    usize,
    usize,
    Option<i64>,
    &'static str,
    Option<usize>,
    usize,
    usize,
    Option<f64>,
    usize,
);

/// (header lines as (line, start, end) byte ranges of their text after `;`,
/// the number of data lines, the time and memory columns one after another,
/// the id and count columns one after another, the problems).
type Scanned<'py> = (
    Vec<(usize, usize, usize)>,
    usize,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Vec<ProblemTuple>,
);

/// Scan the (decompressed) bytes of an SWF trace; see `clustersched_core::workload::swf`.
#[pyfunction]
fn scan_swf<'py>(py: Python<'py>, raw: &[u8]) -> Scanned<'py> {
    // `raw` borrows an immutable `bytes` object held by the caller: nothing
    // can change it while the GIL is released, so it is not copied.
    let scan = py.detach(|| swf::scan(raw));
    scanned(py, scan)
}

/// The text of a gzip file (as a uint8 array, handed over without a copy)
/// and its scan, when the file is one gzip member that inflates cleanly
/// (`swf::scan_gz`); `None` for anything else, which `read_swf` then inflates
/// with Python's zlib and hands to `scan_swf`.
#[pyfunction]
fn scan_swf_gz<'py>(py: Python<'py>, raw: &[u8]) -> Option<(Bound<'py, PyArray1<u8>>, Scanned<'py>)> {
    let (text, scan) = py.detach(|| swf::scan_gz(raw))?;
    Some((text.into_pyarray(py), scanned(py, scan)))
}

/// A scan as Python's tuples and arrays.
fn scanned(py: Python<'_>, scan: Scan) -> Scanned<'_> {
    let header = scan.header.iter().map(|h| (h.line, h.text.start, h.text.end)).collect();
    let problems = scan
        .problems
        .iter()
        .map(|p| {
            let (kind, field, token, value, extra) = match &p.finding {
                Finding::FieldCount(n) => ("fields", None, 0..0, None, *n),
                Finding::NotANumber { field, token } => ("number", Some(*field), token.clone(), None, 0),
                Finding::Broken {
                    field,
                    rule,
                    token,
                    value,
                } => ("rule", Some(*field), token.clone(), Some(*value), *rule as usize),
                Finding::Duplicate { first_line, .. } => ("duplicate", Some(0), 0..0, None, *first_line),
            };
            (p.row, p.line, p.job, kind, field, token.start, token.end, value, extra)
        })
        .collect();
    (
        header,
        scan.rows(),
        scan.floats.into_pyarray(py),
        scan.ints.into_pyarray(py),
        problems,
    )
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_swf, m)?)?;
    m.add_function(wrap_pyfunction!(scan_swf_gz, m)?)?;
    Ok(())
}
