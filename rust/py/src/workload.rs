//! Bindings of `clustersched_core::workload`: the SWF scanner behind
//! `clustersched.read_swf`, which stays the public interface (it reads the
//! file and words the errors), and its fast gzip inflater.

use clustersched_core::memory::advise_huge_pages;
use clustersched_core::workload::swf::{self, Finding};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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

/// The bytes `raw` holds when it is exactly one gzip member that inflates
/// cleanly, with libdeflate (about three times as fast as zlib on the
/// archive's traces); `None` for anything else (several members, padding
/// after the member, damage, a size that does not fit in the trailer), which
/// `read_swf` then hands to Python's zlib: the reader of every gzip file, and
/// the one that words gzip errors.
#[pyfunction]
fn inflate_gzip<'py>(py: Python<'py>, raw: &[u8]) -> Option<Bound<'py, PyBytes>> {
    let n = raw.len();
    let trailer: [u8; 4] = raw.get(n.checked_sub(4)?..)?.try_into().ok()?;
    let size = u32::from_le_bytes(trailer) as usize;
    // Deflate expands at most 1032:1: a trailer claiming more is damage, and
    // allocating what it claims is not worth the try.
    if size > n.saturating_mul(1032) {
        return None;
    }
    // An uninitialised bytes object, asking for huge pages before its first
    // write (PyBytes::new_with would zero every page first). It is either
    // filled whole or dropped, so Python never sees its initial contents.
    // SAFETY: PyBytes_FromStringAndSize with a null pointer allocates `size`
    // bytes (plus a trailing NUL) and returns a new reference or null with an
    // error set, which from_owned_ptr_or_err takes.
    let bytes = unsafe {
        let object = pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), isize::try_from(size).ok()?);
        Bound::from_owned_ptr_or_err(py, object)
            .ok()?
            .cast_into_unchecked::<PyBytes>()
    };
    // SAFETY: the buffer of a bytes object this function alone holds. Its
    // address crosses into the closure without the GIL as a number, since a
    // raw pointer may not cross threads.
    let address = unsafe { pyo3::ffi::PyBytes_AsString(bytes.as_ptr()) } as usize;
    let whole = py.detach(|| {
        let out = address as *mut u8;
        advise_huge_pages(out, size);
        let (mut read, mut written) = (0usize, 0usize);
        // SAFETY: the decompressor is used by this thread only and freed
        // below; `raw` and `out` are valid for their lengths, and libdeflate
        // writes at most `size` bytes and reports what it read and wrote.
        unsafe {
            let d = libdeflate_sys::libdeflate_alloc_decompressor();
            if d.is_null() {
                return false;
            }
            let result = libdeflate_sys::libdeflate_gzip_decompress_ex(
                d,
                raw.as_ptr().cast(),
                n,
                out.cast(),
                size,
                &mut read,
                &mut written,
            );
            libdeflate_sys::libdeflate_free_decompressor(d);
            result == libdeflate_sys::libdeflate_result_LIBDEFLATE_SUCCESS && read == n && written == size
        }
    });
    whole.then_some(bytes)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_swf, m)?)?;
    m.add_function(wrap_pyfunction!(inflate_gzip, m)?)?;
    Ok(())
}
