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
mod scrap;

/// A contiguous 1-D array copied into owned data (so the GIL can be released).
fn owned<T: numpy::Element + Copy>(name: &str, a: &PyReadonlyArray1<'_, T>) -> PyResult<Vec<T>> {
    a.as_slice()
        .map(<[T]>::to_vec)
        .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous 1-D array")))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    batch::register(m)?;
    ptg::register(m)?;
    scrap::register(m)?;
    dfrs::register(m)?;
    dfrs_bound::register(m)?;
    grid::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
