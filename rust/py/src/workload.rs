//! Bindings of `clustersched_core::workload`: the SWF scanner behind
//! `clustersched.read_swf`, which stays the public interface (it reads the
//! file and words the errors), on plain text or on a gzip file the core
//! inflates. They convert and call, nothing else.

use clustersched_core::workload::sacct::{self, Kind, Parsed};
use clustersched_core::workload::swf::{self, Finding, Scan};
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

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

/// (the line number of each row, the lines with another number of fields as
/// (line, fields, start, end), one tuple per column asked).
type SacctScanned<'py> = (
    Bound<'py, PyArray1<u64>>,
    Vec<(usize, usize, usize, usize)>,
    Vec<Bound<'py, PyTuple>>,
);

/// Scan a `sacct -P` dump from byte `start` (line `first_line`), rows of
/// `ncols` fields, parsing `columns` ((field, kind code) pairs; see
/// `clustersched_core::workload::sacct::Kind::from_code`). Each column comes
/// back as `("text", codes, [value, ...])`, `("number", values, bad
/// rows)`, `("jobid", kind, base, task, link)` or `("span", [text, ...])`.
#[pyfunction]
fn scan_sacct<'py>(
    py: Python<'py>,
    raw: &[u8],
    start: usize,
    first_line: usize,
    ncols: usize,
    columns: Vec<(usize, u8)>,
) -> PyResult<SacctScanned<'py>> {
    let columns = columns
        .into_iter()
        .map(|(field, code)| {
            Kind::from_code(code)
                .map(|kind| (field, kind))
                .ok_or_else(|| PyValueError::new_err(format!("column kind == {code}, must be between 0 and 5")))
        })
        .collect::<PyResult<Vec<_>>>()?;
    // `raw` borrows an immutable `bytes` object held by the caller (as in scan_swf).
    let scan = py.detach(|| sacct::scan(raw, start, first_line, ncols, &columns));
    let lines: Vec<u64> = scan.lines.iter().map(|&l| l as u64).collect();
    let bad = scan
        .bad_lines
        .iter()
        .map(|b| (b.line, b.fields, b.start, b.end))
        .collect();
    let parsed = scan
        .columns
        .into_iter()
        .map(|c| -> PyResult<Bound<'py, PyTuple>> {
            Ok(match c {
                Parsed::Text { codes, values } => {
                    // The distinct values as str, decoded here: a dump's JobIDs are a million of them.
                    let values: Vec<String> = values
                        .iter()
                        .map(|&(a, b)| String::from_utf8_lossy(&raw[a..b]).into_owned())
                        .collect();
                    ("text", codes.into_pyarray(py), values).into_pyobject(py)?
                }
                Parsed::Number { values, bad } => ("number", values.into_pyarray(py), bad).into_pyobject(py)?,
                Parsed::Span(spans) => {
                    let texts = spans.iter().map(|&(a, b)| String::from_utf8_lossy(&raw[a..b]));
                    ("span", PyList::new(py, texts)?).into_pyobject(py)?
                }
                Parsed::JobId(ids) => (
                    "jobid",
                    ids.kind.into_pyarray(py),
                    ids.base.into_pyarray(py),
                    ids.task.into_pyarray(py),
                    ids.link.into_pyarray(py),
                )
                    .into_pyobject(py)?,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((lines.into_pyarray(py), bad, parsed))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_sacct, m)?)?;
    m.add_function(wrap_pyfunction!(scan_swf, m)?)?;
    m.add_function(wrap_pyfunction!(scan_swf_gz, m)?)?;
    Ok(())
}
