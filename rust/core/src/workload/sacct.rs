//! The scanner behind `clustersched.slurm.read_sacct`: the lines of a
//! `sacct -P` dump split at `|`, and the columns Python asks for parsed in
//! one pass.
//!
//! Python reads the header (the column names) and gives the offset of the
//! first data line and the columns it wants, each with its [`Kind`]; the
//! scanner returns one [`Parsed`] per column, the line number of every data
//! row, and the lines whose number of fields is not the header's (Python
//! reports or skips them). Values that do not parse are returned as rows, not
//! errors: the rules (which state is kept, what a bad value means) live in
//! Python, which words the errors.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash (rustc's hasher): a dump is local data, so no defence against
/// chosen collisions is needed, and SipHash took most of the scan's time.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
    fn write_i64(&mut self, x: i64) {
        self.add(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Fx {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// How to parse a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text, as codes into the distinct values in order of first appearance.
    Text,
    /// `YYYY-MM-DDTHH:MM:SS` as seconds since 1970-01-01 UTC; `Unknown`,
    /// `None` and blank are NaN.
    Date,
    /// A Slurm time (`[D-]HH:MM:SS`, `min`, `min:sec`, `d-h`, `d-h:m`) as
    /// seconds; `INFINITE`/`UNLIMITED` are infinity, `Partition_Limit` is -1,
    /// blank is NaN.
    Duration,
    /// A whole number (at most 18 digits); blank is NaN.
    Whole,
    /// A job id: job, array task, step, pending array (see [`JobIds`]).
    JobId,
    /// The field as written, one byte range per row (a label such as a JobID, too varied for [`Kind::Text`]).
    Span,
}

impl Kind {
    /// The kind Python names by a number (0 text, 1 date, 2 duration, 3 whole, 4 job id).
    pub fn from_code(code: u8) -> Option<Kind> {
        Some(match code {
            0 => Kind::Text,
            1 => Kind::Date,
            2 => Kind::Duration,
            3 => Kind::Whole,
            4 => Kind::JobId,
            5 => Kind::Span,
            _ => return None,
        })
    }
}

/// The job ids of a column, one entry per row.
#[derive(Debug, Default)]
pub struct JobIds {
    /// 0 a job (`1234`), 1 an array task (`1234_7`), 2 a step (`1234.batch`,
    /// `1234_7.0`), 3 a pending array (`1234_[1-3]`), 4 not a job id.
    pub kind: Vec<u8>,
    /// The job's number (`1234`), -1 when not a job id.
    pub base: Vec<i64>,
    /// The array task (`7`), -1 for none.
    pub task: Vec<i64>,
    /// For a job or task: the row of an earlier job with the same id (a
    /// duplicate), else -1. For a step: the row of its job's line before it,
    /// else -1 (a step without its job).
    pub link: Vec<i64>,
}

/// A parsed column.
#[derive(Debug)]
pub enum Parsed {
    /// Codes (one per row) into `values` (byte ranges in the input of each
    /// distinct value's first occurrence, in order of first appearance).
    Text {
        codes: Vec<u32>,
        values: Vec<(usize, usize)>,
    },
    /// Numbers (NaN where blank or unknown) and the rows whose text does not parse.
    Number {
        values: Vec<f64>,
        bad: Vec<usize>,
    },
    JobId(JobIds),
    /// The byte range of the field in each row.
    Span(Vec<(usize, usize)>),
}

/// A line whose number of fields is not the header's.
#[derive(Debug, PartialEq, Eq)]
pub struct BadLine {
    pub line: usize,
    pub fields: usize,
    pub start: usize,
    pub end: usize,
}

/// What [`scan`] returns.
#[derive(Debug)]
pub struct Scan {
    /// The 1-based line number of each data row.
    pub lines: Vec<usize>,
    pub bad_lines: Vec<BadLine>,
    pub columns: Vec<Parsed>,
}

enum Builder<'a> {
    Text {
        codes: Vec<u32>,
        values: Vec<(usize, usize)>,
        index: FxMap<&'a [u8], u32>,
        last: Option<(&'a [u8], u32)>,
    },
    Number {
        kind: Kind,
        values: Vec<f64>,
        bad: Vec<usize>,
    },
    Span(Vec<(usize, usize)>),
    JobId {
        ids: JobIds,
        seen: Seen,
    },
}

/// The row of each job id seen so far. sacct lists jobs by id, so the ids
/// mostly come in increasing order: those are kept in a vector, in that
/// order, where a new id is recognised as new by one comparison with the
/// last; only an id that comes out of order goes to a hash map. (Hashing a
/// million ids into a map of a million entries took most of the JobID
/// column's time, a cache miss each.)
#[derive(Default)]
struct Seen {
    ordered: Vec<((i64, i64), i64)>,
    others: FxMap<(i64, i64), i64>,
}

impl Seen {
    fn get(&self, key: (i64, i64)) -> Option<i64> {
        match self.ordered.last() {
            Some(&(last, row)) if last == key => return Some(row),
            Some(&(last, _)) if last > key => {
                if let Ok(k) = self.ordered.binary_search_by(|e| e.0.cmp(&key)) {
                    return Some(self.ordered[k].1);
                }
            }
            _ => {}
        }
        if self.others.is_empty() {
            return None;
        }
        self.others.get(&key).copied()
    }

    /// Records `key` at `row`; it must not have been seen.
    fn insert(&mut self, key: (i64, i64), row: i64) {
        if self.ordered.last().is_none_or(|&(last, _)| last < key) {
            self.ordered.push((key, row));
        } else {
            self.others.insert(key, row);
        }
    }
}

/// Scans `raw[start..]`, whose first line is line `first_line`: every
/// non-blank line with `ncols` fields is a row; `columns` are (field index,
/// kind) pairs.
pub fn scan(raw: &[u8], start: usize, first_line: usize, ncols: usize, columns: &[(usize, Kind)]) -> Scan {
    // Room for every line up front: growing the columns of a million rows copies them many times.
    let capacity = memchr::memchr_iter(b'\n', &raw[start.min(raw.len())..]).count() + 1;
    let mut builders: Vec<Builder> = columns
        .iter()
        .map(|&(_, kind)| match kind {
            Kind::Text => Builder::Text {
                codes: Vec::new(),
                values: Vec::new(),
                index: FxMap::default(),
                last: None,
            },
            Kind::JobId => Builder::JobId {
                ids: JobIds {
                    kind: Vec::with_capacity(capacity),
                    base: Vec::with_capacity(capacity),
                    task: Vec::with_capacity(capacity),
                    link: Vec::with_capacity(capacity),
                },
                seen: Seen {
                    ordered: Vec::with_capacity(capacity),
                    others: FxMap::default(),
                },
            },
            Kind::Span => Builder::Span(Vec::with_capacity(capacity)),
            k => Builder::Number {
                kind: k,
                values: Vec::new(),
                bad: Vec::new(),
            },
        })
        .collect();
    // Which column (if any) each field feeds: a field may feed several.
    let mut wanted: Vec<Vec<usize>> = vec![Vec::new(); ncols];
    for (c, &(field, _)) in columns.iter().enumerate() {
        if field < ncols {
            wanted[field].push(c);
        }
    }
    let mut lines = Vec::new();
    let mut bad_lines = Vec::new();
    let mut bounds: Vec<(usize, usize)> = Vec::with_capacity(ncols);
    let mut pos = start.min(raw.len());
    let mut line = first_line;
    while pos < raw.len() {
        let end = memchr::memchr(b'\n', &raw[pos..]).map_or(raw.len(), |k| pos + k);
        let mut stop = end;
        if stop > pos && raw[stop - 1] == b'\r' {
            stop -= 1;
        }
        let text = &raw[pos..stop];
        if !text.iter().all(u8::is_ascii_whitespace) {
            bounds.clear();
            let mut field_start = pos;
            for k in memchr::memchr_iter(b'|', text) {
                bounds.push((field_start, pos + k));
                field_start = pos + k + 1;
            }
            bounds.push((field_start, stop));
            if bounds.len() != ncols {
                bad_lines.push(BadLine {
                    line,
                    fields: bounds.len(),
                    start: pos,
                    end: stop,
                });
            } else {
                let row = lines.len();
                lines.push(line);
                for (field, cols) in wanted.iter().enumerate() {
                    let (a, b) = bounds[field];
                    for &c in cols {
                        push(&mut builders[c], raw, a, b, row);
                    }
                }
            }
        }
        pos = end + 1;
        line += 1;
    }
    let columns = builders
        .into_iter()
        .map(|b| match b {
            Builder::Text { codes, values, .. } => Parsed::Text { codes, values },
            Builder::Number { values, bad, .. } => Parsed::Number { values, bad },
            Builder::JobId { ids, .. } => Parsed::JobId(ids),
            Builder::Span(spans) => Parsed::Span(spans),
        })
        .collect();
    Scan {
        lines,
        bad_lines,
        columns,
    }
}

fn push<'a>(builder: &mut Builder<'a>, raw: &'a [u8], a: usize, b: usize, row: usize) {
    let field = &raw[a..b];
    match builder {
        Builder::Text {
            codes,
            values,
            index,
            last,
        } => {
            // Neighbouring rows often share a value (a partition, a user): no hashing then.
            if let Some((text, code)) = *last {
                if text == field {
                    codes.push(code);
                    return;
                }
            }
            let next = values.len() as u32;
            let code = *index.entry(field).or_insert(next);
            if code == next {
                values.push((a, b));
            }
            codes.push(code);
            *last = Some((field, code));
        }
        Builder::Number { kind, values, bad } => {
            let parsed = match kind {
                Kind::Date => date(field),
                Kind::Duration => duration(field),
                _ => whole_or_blank(field),
            };
            match parsed {
                Some(v) => values.push(v),
                None => {
                    values.push(f64::NAN);
                    bad.push(row);
                }
            }
        }
        Builder::Span(spans) => spans.push((a, b)),
        Builder::JobId { ids, seen } => {
            let (kind, base, task) = job_id(field);
            let link = match kind {
                0 | 1 => match seen.get((base, task)) {
                    Some(first) => first,
                    None => {
                        seen.insert((base, task), row as i64);
                        -1
                    }
                },
                2 => seen.get((base, task)).unwrap_or(-1),
                _ => -1,
            };
            ids.kind.push(kind);
            ids.base.push(base);
            ids.task.push(task);
            ids.link.push(link);
        }
    }
}

/// A run of 1 to 18 ASCII digits as a number.
fn digits(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 18 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0i64, |acc, &d| acc * 10 + i64::from(d - b'0')))
}

fn trim(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(s.len());
    let b = s.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(a, |k| k + 1);
    &s[a..b]
}

fn whole_or_blank(field: &[u8]) -> Option<f64> {
    let s = trim(field);
    if s.is_empty() {
        return Some(f64::NAN);
    }
    digits(s).map(|v| v as f64)
}

/// (kind, base, task) of a JobID (see [`JobIds::kind`]).
fn job_id(field: &[u8]) -> (u8, i64, i64) {
    let s = trim(field);
    let (job, step) = match memchr::memchr(b'.', s) {
        Some(k) => (&s[..k], Some(&s[k + 1..])),
        None => (s, None),
    };
    let (base, task) = match memchr::memchr(b'_', job) {
        Some(k) => (&job[..k], Some(&job[k + 1..])),
        None => (job, None),
    };
    let Some(base) = digits(base) else { return (4, -1, -1) };
    let task = match task {
        None => -1,
        Some(t) if step.is_none() && t.len() >= 2 && t[0] == b'[' && t[t.len() - 1] == b']' => return (3, base, -1),
        Some(t) => match digits(t) {
            Some(v) => v,
            None => return (4, -1, -1),
        },
    };
    match step {
        None => (if task < 0 { 0 } else { 1 }, base, task),
        Some(name) if !name.is_empty() && !name.contains(&b'.') => (2, base, task),
        Some(_) => (4, -1, -1),
    }
}

/// Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn date(field: &[u8]) -> Option<f64> {
    let s = trim(field);
    if s.is_empty() || s == b"Unknown" || s == b"None" {
        return Some(f64::NAN);
    }
    if s.len() != 19 || s[4] != b'-' || s[7] != b'-' || s[10] != b'T' || s[13] != b':' || s[16] != b':' {
        return None;
    }
    let n = |a: usize, b: usize| digits(&s[a..b]);
    let (year, month, day) = (n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let (hour, minute, second) = (n(11, 13)?, n(14, 16)?, n(17, 19)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day < 1 || day > month_days || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some((days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) as f64)
}

/// A Slurm time as `time_str2secs` reads it (see `clustersched.slurm.parse_slurm_time`).
fn duration(field: &[u8]) -> Option<f64> {
    let s = trim(field);
    if s.is_empty() {
        return Some(f64::NAN);
    }
    if s.eq_ignore_ascii_case(b"INFINITE") || s.eq_ignore_ascii_case(b"UNLIMITED") || s == b"-1" {
        return Some(f64::INFINITY);
    }
    if s == b"Partition_Limit" {
        return Some(-1.0);
    }
    let (days, rest) = match memchr::memchr(b'-', s) {
        Some(k) => (Some(digits(&s[..k])?), &s[k + 1..]),
        None => (None, s),
    };
    let mut parts = [0i64; 3];
    let mut count = 0;
    for piece in rest.split(|&c| c == b':') {
        if count == 3 {
            return None;
        }
        parts[count] = digits(piece)?;
        count += 1;
    }
    let seconds = match (days, count) {
        (Some(d), 1) => d * 86_400 + parts[0] * 3600,
        (Some(d), 2) => d * 86_400 + parts[0] * 3600 + parts[1] * 60,
        (Some(d), 3) => d * 86_400 + parts[0] * 3600 + parts[1] * 60 + parts[2],
        (None, 1) => parts[0] * 60,
        (None, 2) => parts[0] * 60 + parts[1],
        (None, 3) => parts[0] * 3600 + parts[1] * 60 + parts[2],
        _ => return None,
    };
    Some(seconds as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_seconds() {
        assert_eq!(date(b"2021-02-11T22:36:19"), Some(1_613_082_979.0));
        assert_eq!(date(b"1970-01-01T00:00:00"), Some(0.0));
        assert!(date(b"Unknown").unwrap().is_nan());
        assert_eq!(date(b"2021-02-29T00:00:00"), None);
        assert_eq!(date(b"2021-02-11 22:36:19"), None);
    }

    #[test]
    fn durations_follow_slurm() {
        assert_eq!(duration(b"00:02:35"), Some(155.0));
        assert_eq!(duration(b"2-00:00:01"), Some(172_801.0));
        assert_eq!(duration(b"30"), Some(1800.0));
        assert_eq!(duration(b"1:30"), Some(90.0));
        assert_eq!(duration(b"0-4"), Some(14_400.0));
        assert_eq!(duration(b"UNLIMITED"), Some(f64::INFINITY));
        assert_eq!(duration(b"-00:01:00"), None);
        assert_eq!(duration(b"1:2:3:4"), None);
    }

    #[test]
    fn job_ids_are_classified() {
        assert_eq!(job_id(b"1234"), (0, 1234, -1));
        assert_eq!(job_id(b"1234_7"), (1, 1234, 7));
        assert_eq!(job_id(b"1234_7.batch"), (2, 1234, 7));
        assert_eq!(job_id(b"1234.0"), (2, 1234, -1));
        assert_eq!(job_id(b"1234_[1-3%2]"), (3, 1234, -1));
        assert_eq!(job_id(b"12a4"), (4, -1, -1));
        assert_eq!(job_id(b"1234."), (4, -1, -1));
    }

    #[test]
    fn scan_splits_rows_and_links_steps() {
        let raw = b"1|a|2021-01-01T00:00:00\n1.batch|b|Unknown\n\n2.0|c|x\n3|a\n1|a|None\r\n";
        let cols = [(0, Kind::JobId), (1, Kind::Text), (2, Kind::Date)];
        let s = scan(raw, 0, 2, 3, &cols);
        assert_eq!(s.lines, vec![2, 3, 5, 7]);
        assert_eq!(
            s.bad_lines,
            vec![BadLine {
                line: 6,
                fields: 2,
                start: 51,
                end: 54
            }]
        );
        let Parsed::JobId(ids) = &s.columns[0] else { panic!() };
        assert_eq!(ids.kind, vec![0, 2, 2, 0]);
        assert_eq!(ids.link, vec![-1, 0, -1, 0]);
        let Parsed::Text { codes, values } = &s.columns[1] else {
            panic!()
        };
        assert_eq!(codes, &vec![0, 1, 2, 0]);
        assert_eq!(values.len(), 3);
        let Parsed::Number { values, bad } = &s.columns[2] else {
            panic!()
        };
        assert_eq!(values[0], 1_609_459_200.0);
        assert_eq!(bad, &vec![2]);
    }

    #[test]
    fn ids_out_of_order_are_linked_as_in_order() {
        // in order, then back (3), a duplicate of each, steps of both, a task after its job
        let raw = b"5\n3\n5\n3.batch\n7\n3\n5.0\n7_1\n7_1.batch\n4\n4.0\n";
        let s = scan(raw, 0, 1, 1, &[(0, Kind::JobId)]);
        let Parsed::JobId(ids) = &s.columns[0] else { panic!() };
        assert_eq!(ids.kind, vec![0, 0, 0, 2, 0, 0, 2, 1, 2, 0, 2]);
        assert_eq!(ids.link, vec![-1, -1, 0, 1, -1, 1, 0, -1, 7, -1, 9]);
    }
}
