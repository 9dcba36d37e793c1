//! The one conversion of core errors into the exception classes declared in
//! `clustersched.errors` (polars' `PyPolarsErr` pattern): every binding
//! maps its errors with [`to_py`], and a bad item of the input arrives with
//! its address as attributes (`job`, `ptg`, `task`, `field`, `value`; a grid's
//! task or LAN as `node`), never only inside a message.

use clustersched_core::error::{Invalid, Item, Value};
use clustersched_core::Error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

pyo3::import_exception!(clustersched.errors, InvalidWorkloadError);
pyo3::import_exception!(clustersched.errors, InvalidGraphError);
pyo3::import_exception!(clustersched.errors, InfeasibleError);

/// The `clustersched.errors` exception for `err`.
pub fn to_py(err: Error) -> PyErr {
    match err {
        Error::Invalid(invalid) => Python::attach(|py| invalid_to_py(py, &invalid).unwrap_or_else(|e| e)),
        Error::InvalidArgument(m) => PyValueError::new_err(m),
        Error::Infeasible(m) => InfeasibleError::new_err(m),
    }
}

/// `InvalidWorkloadError` (a job, a PTG or one of its tasks) or
/// `InvalidGraphError` (a task or LAN of a grid model), built with keyword
/// attributes so that the Python class writes the "where" prefix itself.
fn invalid_to_py(py: Python<'_>, e: &Invalid) -> PyResult<PyErr> {
    let kwargs = PyDict::new(py);
    let detail = match (e.field, e.value) {
        (Some(field), Some(value)) => {
            kwargs.set_item("field", field)?;
            match value {
                Value::Int(x) => kwargs.set_item("value", x)?,
                Value::Float(x) => kwargs.set_item("value", x)?,
            }
            format!("{field} == {value}, {}", e.message)
        }
        _ => e.message.clone(),
    };
    let class = match e.item {
        Item::Job(job) => {
            kwargs.set_item("job", job)?;
            py.get_type::<InvalidWorkloadError>()
        }
        Item::Ptg(ptg) => {
            kwargs.set_item("ptg", ptg)?;
            py.get_type::<InvalidWorkloadError>()
        }
        Item::Task { ptg: Some(ptg), task } => {
            kwargs.set_item("ptg", ptg)?;
            kwargs.set_item("task", task)?;
            py.get_type::<InvalidWorkloadError>()
        }
        Item::Task { ptg: None, task: node } | Item::Lan(node) => {
            let what = if matches!(e.item, Item::Lan(_)) { "LAN" } else { "task" };
            kwargs.set_item("node", node)?;
            let exc = py
                .get_type::<InvalidGraphError>()
                .call((format!("{what} {node}: {detail}"),), Some(&kwargs))?;
            return Ok(PyErr::from_value(exc));
        }
    };
    Ok(PyErr::from_value(class.call((detail,), Some(&kwargs))?))
}
