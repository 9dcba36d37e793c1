//! Python bindings of clustersched-core, compiled as `clustersched._core`.
//!
//! Only conversion lives here: numpy arrays in, numpy arrays out, the GIL
//! released around long calls, and every core error mapped onto the
//! exception classes declared once in `clustersched.errors` (by [`errors`]).

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod batch;
mod dfrs;
mod dfrs_bound;
mod errors;
mod grid;
mod ptg;
mod rl;
mod scrap;
mod workload;

/// A contiguous 1-D array copied into owned data (so the GIL can be released).
fn owned<T: numpy::Element + Copy>(name: &str, a: &PyReadonlyArray1<'_, T>) -> PyResult<Vec<T>> {
    a.as_slice()
        .map(<[T]>::to_vec)
        .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous 1-D array")))
}

/// An integer array converted element by element to the core's type `T`,
/// or ValueError naming the first element that does not fit:
/// `"{name}[{k}] == {x}, must be {rule}"`.
fn integers<T: TryFrom<i64>>(name: &str, a: &PyReadonlyArray1<'_, i64>, rule: &str) -> PyResult<Vec<T>> {
    let a = a
        .as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous 1-D array")))?;
    a.iter()
        .enumerate()
        .map(|(k, &x)| T::try_from(x).map_err(|_| PyValueError::new_err(format!("{name}[{k}] == {x}, must be {rule}"))))
        .collect()
}

/// Indices (tasks, edges, offsets) as `usize`.
fn indices(name: &str, a: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<usize>> {
    integers(name, a, ">= 0")
}

/// Counts as `u32` (`0` and values too large for the problem are left to the
/// core's checks, which name the item).
fn counts(name: &str, a: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<u32>> {
    integers(name, a, &format!("between 0 and {}", u32::MAX))
}

/// Core integers (indices, counts) as numpy's int64.
fn int64s<T: Copy>(v: &[T]) -> Vec<i64>
where
    i64: TryFrom<T>,
{
    // Indices of in-memory arrays are far below 2^63: the fallback is never taken.
    v.iter().map(|&x| i64::try_from(x).unwrap_or(i64::MAX)).collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    batch::register(m)?;
    ptg::register(m)?;
    scrap::register(m)?;
    dfrs::register(m)?;
    dfrs_bound::register(m)?;
    grid::register(m)?;
    workload::register(m)?;
    rl::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
