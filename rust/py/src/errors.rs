//! The one conversion of core errors into the exception classes declared in
//! `clustersched.errors` (polars' `PyPolarsErr` pattern): every binding
//! maps its errors with [`to_py`]. A bad item of the input arrives as data
//! (its row or position, field, value, and the rule with its bounds) and
//! `clustersched.errors._from_core` words the message, in Python, in one
//! place; the Python layer adds the job's id (or the node's label) where it
//! knows the table.

use clustersched_core::error::{Invalid, Item, Refusal, Rule, Value};
use clustersched_core::Error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

pyo3::import_exception!(clustersched.errors, InfeasibleError);

/// The `clustersched.errors` exception for `err`.
pub fn to_py(err: Error) -> PyErr {
    match err {
        Error::InvalidArgument(m) => PyValueError::new_err(m),
        Error::Infeasible(m) => InfeasibleError::new_err(m),
        other => Python::attach(|py| from_core(py, &other).unwrap_or_else(|e| e)),
    }
}

fn value<'py>(py: Python<'py>, v: Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Int(x) => x.into_pyobject(py)?.into_any(),
        Value::Float(x) => x.into_pyobject(py)?.into_any(),
    })
}

/// The rule as a tuple `(kind, bounds...)`, which `_from_core` words.
fn rule<'py>(py: Python<'py>, r: &Rule) -> PyResult<Bound<'py, PyTuple>> {
    let v = |x: &Value| value(py, *x);
    match r {
        Rule::Between(lo, hi) => PyTuple::new(py, ["between".into_pyobject(py)?.into_any(), v(lo)?, v(hi)?]),
        Rule::AtLeast(lo) => PyTuple::new(py, ["at_least".into_pyobject(py)?.into_any(), v(lo)?]),
        Rule::Above(lo) => PyTuple::new(py, ["above".into_pyobject(py)?.into_any(), v(lo)?]),
        Rule::AtMost(hi) => PyTuple::new(py, ["at_most".into_pyobject(py)?.into_any(), v(hi)?]),
        Rule::AboveUpTo(lo, hi) => PyTuple::new(py, ["above_up_to".into_pyobject(py)?.into_any(), v(lo)?, v(hi)?]),
        Rule::AtLeastUpTo(lo, hi) => PyTuple::new(py, ["at_least_up_to".into_pyobject(py)?.into_any(), v(lo)?, v(hi)?]),
        Rule::Finite => PyTuple::new(py, ["finite".into_pyobject(py)?.into_any()]),
        Rule::AtLeastOf(what, x) => PyTuple::new(
            py,
            [
                "at_least_of".into_pyobject(py)?.into_any(),
                what.into_pyobject(py)?.into_any(),
                v(x)?,
            ],
        ),
        Rule::Other(words) => PyTuple::new(
            py,
            [
                "other".into_pyobject(py)?.into_any(),
                words.into_pyobject(py)?.into_any(),
            ],
        ),
    }
}

/// Calls `clustersched.errors._from_core(kind, **data)` for the exception.
fn from_core(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let kwargs = PyDict::new(py);
    let kind = match err {
        Error::Invalid(e) => {
            invalid_data(py, e, &kwargs)?;
            "invalid"
        }
        Error::CannotStart { row, time, why } => {
            kwargs.set_item("row", row)?;
            kwargs.set_item("time", time)?;
            match why {
                Refusal::Missing => kwargs.set_item("why", "missing")?,
                Refusal::Started => kwargs.set_item("why", "started")?,
                Refusal::NotSubmitted => kwargs.set_item("why", "not_submitted")?,
                Refusal::NoRoom => kwargs.set_item("why", "no_room")?,
                Refusal::TooWide { needs, free } => {
                    kwargs.set_item("why", "too_wide")?;
                    kwargs.set_item("needs", needs)?;
                    kwargs.set_item("free", free)?;
                }
            }
            "cannot_start"
        }
        Error::InvalidArgument(m) => return Ok(PyValueError::new_err(m.clone())),
        Error::Infeasible(m) => return Ok(InfeasibleError::new_err(m.clone())),
    };
    call_from_core(py, kind, &kwargs)
}

/// The error of starting row `row` (a negative one, which the core's
/// `usize` rows cannot hold) at `time`: no job has this row.
pub fn no_such_row(row: i64, time: f64) -> PyErr {
    Python::attach(|py| {
        let kwargs = PyDict::new(py);
        kwargs.set_item("row", row)?;
        kwargs.set_item("time", time)?;
        kwargs.set_item("why", "missing")?;
        call_from_core(py, "cannot_start", &kwargs)
    })
    .unwrap_or_else(|e| e)
}

fn call_from_core(py: Python<'_>, kind: &str, kwargs: &Bound<'_, PyDict>) -> PyResult<PyErr> {
    let exc = py
        .import("clustersched.errors")?
        .getattr("_from_core")?
        .call((kind,), Some(kwargs))?;
    Ok(PyErr::from_value(exc))
}

fn invalid_data(py: Python<'_>, e: &Invalid, kwargs: &Bound<'_, PyDict>) -> PyResult<()> {
    match e.item {
        Item::Job(row) => kwargs.set_item("row", row)?,
        Item::Ptg(ptg) => kwargs.set_item("ptg", ptg)?,
        Item::Task { ptg: Some(ptg), task } => {
            kwargs.set_item("ptg", ptg)?;
            kwargs.set_item("task", task)?;
        }
        Item::Task { ptg: None, task } => {
            kwargs.set_item("node_kind", "task")?;
            kwargs.set_item("row", task)?;
        }
        Item::Lan(lan) => {
            kwargs.set_item("node_kind", "LAN")?;
            kwargs.set_item("row", lan)?;
        }
    }
    kwargs.set_item("field", e.field)?;
    kwargs.set_item("value", e.value.map(|v| value(py, v)).transpose()?)?;
    kwargs.set_item("rule", rule(py, &e.rule)?)?;
    kwargs.set_item("note", e.note)?;
    Ok(())
}
