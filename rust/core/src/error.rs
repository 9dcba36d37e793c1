//! The core's error type. Every error says what it is about: a bad item of
//! the input carries its address ([`Item`], field, value), so the Python
//! bindings can fill the attributes of one `clustersched.errors` class per
//! variant without parsing a message.

use std::fmt;

/// The input item an [`Error::Invalid`] is about, by 0-based position in the
/// arrays the caller gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// A job (batch, DFRS): its row in the job arrays.
    Job(usize),
    /// A whole parallel task graph: its position in the PTG set.
    Ptg(usize),
    /// A task: of PTG `ptg` in a PTG set, or of the only graph (`ptg: None`,
    /// e.g. a task interaction graph).
    Task { ptg: Option<usize>, task: usize },
    /// A LAN of a grid.
    Lan(usize),
}

/// The offending value of an [`Error::Invalid`], as the caller gave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Float(x)
    }
}

impl From<i64> for Value {
    fn from(x: i64) -> Self {
        Value::Int(x)
    }
}

impl From<u32> for Value {
    fn from(x: u32) -> Self {
        Value::Int(i64::from(x))
    }
}

impl From<u64> for Value {
    fn from(x: u64) -> Self {
        i64::try_from(x).map_or(Value::Float(x as f64), Value::Int)
    }
}

impl From<usize> for Value {
    fn from(x: usize) -> Self {
        Value::from(x as u64)
    }
}

/// What is wrong with one item of the input, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub item: Item,
    /// The input column or attribute (`"width"`, `"work"`, `"alpha"`, ...),
    /// when the problem is one value's.
    pub field: Option<&'static str>,
    pub value: Option<Value>,
    /// The rule broken, without the address (`"must be in 1..=4"`).
    pub message: String,
}

/// Everything that can go wrong in a core kernel.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// An item of the input (a job, a PTG, a task, a LAN) has an impossible value.
    Invalid(Box<Invalid>),
    /// An argument (not tied to one item) breaks its rule.
    InvalidArgument(String),
    /// A request cannot be satisfied in the current state (e.g. starting a job
    /// that does not fit on the free processors).
    Infeasible(String),
}

impl Error {
    /// `field` of `item` has the impossible `value`: `message` says the rule.
    pub fn invalid(item: Item, field: &'static str, value: impl Into<Value>, message: impl Into<String>) -> Self {
        Error::Invalid(Box::new(Invalid {
            item,
            field: Some(field),
            value: Some(value.into()),
            message: message.into(),
        }))
    }

    /// `item` is wrong as a whole (no tasks, a bad shape): `message` says how.
    pub fn invalid_item(item: Item, message: impl Into<String>) -> Self {
        Error::Invalid(Box::new(Invalid {
            item,
            field: None,
            value: None,
            message: message.into(),
        }))
    }

    /// The same error, about PTG `ptg` of a set: a graph's own error names
    /// the graph or its task without knowing where the graph sits in the set.
    #[must_use]
    pub fn in_ptg(self, ptg: usize) -> Self {
        match self {
            Error::Invalid(mut e) => {
                e.item = match e.item {
                    Item::Task { task, .. } => Item::Task { ptg: Some(ptg), task },
                    _ => Item::Ptg(ptg),
                };
                Error::Invalid(e)
            }
            other => other,
        }
    }
}

/// Result alias used across the core.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Job(j) => write!(f, "job index {j}"),
            Item::Ptg(g) => write!(f, "PTG {g}"),
            Item::Task { ptg: Some(g), task } => write!(f, "PTG {g}, task {task}"),
            Item::Task { ptg: None, task } => write!(f, "task {task}"),
            Item::Lan(l) => write!(f, "LAN {l}"),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(x) => write!(f, "{x}"),
            Value::Float(x) => write!(f, "{x}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(e) => match (e.field, e.value) {
                (Some(field), Some(value)) => write!(f, "{}: {field} == {value}, {}", e.item, e.message),
                _ => write!(f, "{}: {}", e.item, e.message),
            },
            Error::InvalidArgument(m) | Error::Infeasible(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_item_field_and_value() {
        let e = Error::invalid(Item::Job(1), "width", 9u32, "must be in 1..=4");
        assert_eq!(e.to_string(), "job index 1: width == 9, must be in 1..=4");
        let e = Error::invalid(Item::Task { ptg: None, task: 3 }, "alpha", 1.5, "must be in [0, 1]").in_ptg(2);
        assert_eq!(e.to_string(), "PTG 2, task 3: alpha == 1.5, must be in [0, 1]");
        assert_eq!(
            Error::invalid_item(Item::Ptg(0), "has no tasks").in_ptg(4).to_string(),
            "PTG 4: has no tasks"
        );
    }
}
