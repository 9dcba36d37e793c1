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

/// The rule an [`Invalid`] value breaks, as data: the bounds are values, and
/// Python words the rule (`clustersched.errors`), so a message never shows
/// Rust's syntax and is worded in one place.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// `lo <= x <= hi`.
    Between(Value, Value),
    /// `x >= lo` (and finite, for a real).
    AtLeast(Value),
    /// `x > lo` (and finite).
    Above(Value),
    /// `x <= hi`.
    AtMost(Value),
    /// `lo < x <= hi` (and finite).
    AboveUpTo(Value, Value),
    /// `lo <= x <= hi` (and finite), for a real with a documented ceiling.
    AtLeastUpTo(Value, Value),
    /// `x` is finite.
    Finite,
    /// `x >= ` the value of another quantity, named in words (`"runtime"`,
    /// `"the previous job's submit"`), and finite.
    AtLeastOf(&'static str, Value),
    /// A rule with no bound to give as data, in words (never Rust syntax).
    Other(String),
}

impl From<&str> for Rule {
    fn from(words: &str) -> Self {
        Rule::Other(words.to_owned())
    }
}

impl From<String> for Rule {
    fn from(words: String) -> Self {
        Rule::Other(words)
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
    /// The rule broken, as data.
    pub rule: Rule,
    /// What the bound is, or the value's unit, in words (`"the machine size"`,
    /// `"flop"`), when it helps.
    pub note: Option<&'static str>,
}

/// Why [`Error::CannotStart`] refused to start a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No job has this row.
    Missing,
    /// The job has already started.
    Started,
    /// The job has not been submitted yet.
    NotSubmitted,
    /// The job needs more processors than are free.
    TooWide { needs: u32, free: u32 },
    /// On nodes: no set of its partition's nodes has the cores, memory and
    /// generic resources it asks free now.
    NoRoom,
}

/// Everything that can go wrong in a core kernel.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// An item of the input (a job, a PTG, a task, a LAN) has an impossible value.
    Invalid(Box<Invalid>),
    /// An argument (not tied to one item) breaks its rule.
    InvalidArgument(String),
    /// A request cannot be satisfied in the current state.
    Infeasible(String),
    /// A user policy asked to start the job of row `row` at `time`, and it
    /// cannot start (Python words it, with the job's id).
    CannotStart { row: usize, time: f64, why: Refusal },
}

impl Error {
    /// `field` of `item` has the impossible `value`: `rule` says the rule.
    pub fn invalid(item: Item, field: &'static str, value: impl Into<Value>, rule: impl Into<Rule>) -> Self {
        Error::Invalid(Box::new(Invalid {
            item,
            field: Some(field),
            value: Some(value.into()),
            rule: rule.into(),
            note: None,
        }))
    }

    /// `item` is wrong as a whole (no tasks, a bad shape): `rule` says how.
    pub fn invalid_item(item: Item, rule: impl Into<Rule>) -> Self {
        Error::Invalid(Box::new(Invalid {
            item,
            field: None,
            value: None,
            rule: rule.into(),
            note: None,
        }))
    }

    /// The same error, with `note` (what the bound is, or the unit).
    #[must_use]
    pub fn noted(self, note: &'static str) -> Self {
        match self {
            Error::Invalid(mut e) => {
                e.note = Some(note);
                Error::Invalid(e)
            }
            other => other,
        }
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

// Rust's own rendering, for logs and the core's tests: data, not prose. Users
// see Python's wording (`clustersched.errors`), built from the same data.
impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Job(j) => write!(f, "row {j}"),
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
                (Some(field), Some(value)) => write!(f, "{}: {field} == {value}, {:?}", e.item, e.rule),
                _ => write!(f, "{}: {:?}", e.item, e.rule),
            },
            Error::InvalidArgument(m) | Error::Infeasible(m) => f.write_str(m),
            Error::CannotStart { row, time, why } => write!(f, "row {row} at time {time}: {why:?}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_the_address_and_the_rule_as_data() {
        let e = Error::invalid(Item::Job(1), "width", 9u32, Rule::Between(1i64.into(), 4i64.into()))
            .noted("the machine size");
        let Error::Invalid(i) = &e else { panic!("{e:?}") };
        assert_eq!(
            (i.item, i.field, i.value),
            (Item::Job(1), Some("width"), Some(Value::Int(9)))
        );
        assert_eq!(
            (&i.rule, i.note),
            (&Rule::Between(Value::Int(1), Value::Int(4)), Some("the machine size"))
        );
        let e = Error::invalid(Item::Task { ptg: None, task: 3 }, "alpha", 1.5, "a rule in words").in_ptg(2);
        assert_eq!(e.to_string(), "PTG 2, task 3: alpha == 1.5, Other(\"a rule in words\")");
        assert_eq!(
            Error::invalid_item(Item::Ptg(0), "has no tasks").in_ptg(4),
            Error::invalid_item(Item::Ptg(4), "has no tasks")
        );
    }
}
