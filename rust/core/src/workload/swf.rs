//! The scanner behind `clustersched.read_swf`: the bytes of a Standard
//! Workload Format trace in, its header lines, its 18 numeric columns and a
//! finding for every malformed data line out.
//!
//! It reproduces, rule for rule, the reader it replaced (kept as the slow
//! reference in `tests/reference/swf.py`; a differential test compares the
//! two on every shared trace and on fuzzed files):
//!
//! * The bytes are UTF-8 text (undecodable bytes are kept as they are, like
//!   Python's `surrogateescape`); a leading byte order mark is skipped. Lines
//!   end at LF, CR LF or CR, and are numbered from 1 as an editor shows them.
//! * "Whitespace" is Python's (`str.isspace`): ASCII `\t \v \f` space and
//!   `\x1c..\x1f`, and the Unicode spaces U+0085, U+00A0, U+1680,
//!   U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
//! * A line whose first non-blank character is `;` is a header (comment)
//!   line: its text after the `;` is returned as a byte range. Any other
//!   non-blank line is a data line.
//! * A data line holds whitespace-separated tokens. When *every* data line
//!   has 18 tokens, each a decimal number or an `inf`/`infinity`/`nan`
//!   spelling (numpy's text loader, the old reader's fast path, accepts
//!   those), all rows are numbers and only the value rules apply, so a `nan`
//!   is "not a finite number". Otherwise (the old reader's slow path) a line
//!   with other than 18 tokens has the wrong number of fields, and a line
//!   whose tokens are not all decimal numbers (`[+-]?(D+(.D*)?|.D+)([eE][+-]?D+)?`,
//!   `D` an ASCII digit) is reported at its first token that is not one.
//! * Value rules ([`Rule`]), in order, each for its columns; a row is
//!   reported at its first bad field, for that field's first broken rule.
//! * A job number (other than -1) equal to that of an earlier valid line is
//!   a duplicate; the earlier line is kept.
//!
//! Numbers are parsed correctly rounded (Rust's `f64::from_str`, with exact
//! shortcuts for integers of up to 18 digits and for plain decimals of up to
//! 15 digits, one division by an exact power of ten), as Python and numpy
//! parse them. A long trace is parsed in blocks of lines on several
//! threads. Nothing here panics or grows worse than linearly with the
//! input: a line of a million fields or a number of a million digits is a
//! finding.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

use super::gzip;
use crate::memory::advise_huge_pages;

/// Number of fields of an SWF data line.
pub const NFIELDS: usize = 18;

/// The SWF fields, in file order (the names of `clustersched.workload.jobs.SWF_FIELDS`).
pub const FIELD_NAMES: [&str; NFIELDS] = [
    "job_id",
    "submit",
    "wait",
    "runtime",
    "procs",
    "cpu_time",
    "mem_used",
    "procs_requested",
    "time_requested",
    "mem_requested",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
];

/// Ids and counts must be integers within +-2**53 (beyond it a float64 no
/// longer holds every integer); memory too.
pub const MAX_INT: f64 = 9_007_199_254_740_992.0;
/// Times must lie within +-10**10 s (`clustersched.workload.swf.MAX_TIME`).
pub const MAX_TIME: f64 = 1e10;

const INT: u8 = 1;
const MEMORY: u8 = 2;
const TIME: u8 = 4;
const NONNEGATIVE: u8 = 8;

/// What each field is (`INT | MEMORY | TIME | NONNEGATIVE` bits), in file order.
const KINDS: [u8; NFIELDS] = [
    INT,                  // job_id
    TIME | NONNEGATIVE,   // submit
    TIME | NONNEGATIVE,   // wait
    TIME | NONNEGATIVE,   // runtime
    INT | NONNEGATIVE,    // procs
    TIME,                 // cpu_time
    MEMORY | NONNEGATIVE, // mem_used
    INT | NONNEGATIVE,    // procs_requested
    TIME | NONNEGATIVE,   // time_requested
    MEMORY | NONNEGATIVE, // mem_requested
    INT,                  // status
    INT,                  // user_id
    INT,                  // group_id
    INT,                  // executable
    INT,                  // queue
    INT,                  // partition
    INT,                  // preceding_job
    TIME,                 // think_time
];

/// A rule a parsed value breaks, in the order they are applied (the index is
/// that of `_RULES` in `clustersched.workload.swf`, which words the message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// NaN or infinite (any field).
    NotFinite = 0,
    /// An id or count with a fraction.
    NotInteger = 1,
    /// An id, count or memory beyond +-[`MAX_INT`].
    TooLarge = 2,
    /// A time beyond +-[`MAX_TIME`].
    TimeTooLarge = 3,
    /// Negative other than -1 in a time, processor or memory field that must be >= 0.
    Negative = 4,
}

impl Rule {
    /// The first rule that `value` of field `field` breaks.
    #[must_use]
    pub fn first_broken(field: usize, value: f64) -> Option<Rule> {
        let kind = KINDS[field];
        if !value.is_finite() {
            Some(Rule::NotFinite)
        } else if kind & INT != 0 && !is_whole(value) {
            Some(Rule::NotInteger)
        } else if kind & (INT | MEMORY) != 0 && value.abs() > MAX_INT {
            Some(Rule::TooLarge)
        } else if kind & TIME != 0 && value.abs() > MAX_TIME {
            Some(Rule::TimeTooLarge)
        } else if kind & NONNEGATIVE != 0 && value < 0.0 && value != -1.0 {
            Some(Rule::Negative)
        } else {
            None
        }
    }
}

/// What is wrong with a data line. Token ranges are byte offsets into the
/// scanned bytes (the token's text, for the message).
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// The line has this many fields instead of [`NFIELDS`].
    FieldCount(usize),
    /// Field `field`'s token is not a decimal number.
    NotANumber { field: usize, token: Range<usize> },
    /// Field `field`'s value breaks `rule`.
    Broken {
        field: usize,
        rule: Rule,
        token: Range<usize>,
        value: f64,
    },
    /// The job number `job` is already that of the valid line `first_line`.
    Duplicate { job: i64, first_line: usize },
}

/// A malformed data line.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The 0-based position of the line among the data lines.
    pub row: usize,
    /// Its 1-based line number.
    pub line: usize,
    /// The job number at the start of the line, when it is one (a decimal
    /// integer within +-2**53).
    pub job: Option<i64>,
    pub finding: Finding,
}

/// A header (comment) line: its 1-based number and the byte range of its
/// text after the `;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderLine {
    pub line: usize,
    pub text: Range<usize>,
}

/// The scanned trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    /// Every header line, in file order.
    pub header: Vec<HeaderLine>,
    /// The 1-based line number of each data line.
    pub lines: Vec<usize>,
    /// The columns of the fields that hold times and memory ([`is_int`]
    /// false), one after another in file order (field `k` of them, data line
    /// `i`, at `k * rows + i`); a line with a problem holds zeros.
    pub floats: Vec<f64>,
    /// The columns of the ids and counts ([`is_int`] true), laid out the same
    /// way: their values are integers within +-[`MAX_INT`] on every line
    /// without a problem, so exact as `i64`, and a reader needs no second pass
    /// to convert them.
    pub ints: Vec<i64>,
    /// One per malformed data line, by row.
    pub problems: Vec<Problem>,
}

impl Scan {
    /// Number of data lines.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.lines.len()
    }

    /// Field `field` of data line `row`.
    #[must_use]
    pub fn value(&self, row: usize, field: usize) -> f64 {
        let k = (0..field).filter(|&j| is_int(j) == is_int(field)).count() * self.rows() + row;
        if is_int(field) {
            self.ints[k] as f64
        } else {
            self.floats[k]
        }
    }
}

/// Whether finite `x` is an integer. The same as `x.trunc() == x`, without
/// the call to libm's `trunc` that baseline x86-64 makes of it (a twentieth of a
/// scan's time): from 2**53 on every float is an integer, and below it the
/// cast to `i64` is exact for integers only.
fn is_whole(x: f64) -> bool {
    x.abs() >= MAX_INT || (x as i64) as f64 == x
}

/// Whether field `field` is an id or count (an integer column), not a time or memory.
#[must_use]
pub fn is_int(field: usize) -> bool {
    KINDS[field] & INT != 0
}

/// A block's rows of one field.
enum Column<'a> {
    Float(&'a mut [f64]),
    Int(&'a mut [i64]),
}

/// Byte classes: an ordinary byte, a one-byte space, or the lead byte of a
/// multi-byte character that may be a space.
const ORDINARY: u8 = 0;
const SPACE: u8 = 1;
const MAYBE: u8 = 2;

const CLASS: [u8; 256] = {
    let mut class = [ORDINARY; 256];
    let mut b = 9;
    while b <= 13 {
        class[b] = SPACE;
        b += 1;
    }
    let mut b = 28;
    while b <= 32 {
        class[b] = SPACE;
        b += 1;
    }
    class[0xC2] = MAYBE;
    class[0xE1] = MAYBE;
    class[0xE2] = MAYBE;
    class[0xE3] = MAYBE;
    class
};

/// The length of the whitespace character at the start of `s` (0 when it
/// does not start with one). Only lead bytes of UTF-8 begin a match, so a
/// match is a character of the decoded text, whatever bytes precede it.
#[inline]
fn space_len(s: &[u8]) -> usize {
    match s.first().map(|&b| CLASS[usize::from(b)]) {
        Some(SPACE) => 1,
        Some(MAYBE) => match s {
            [0xC2, 0x85 | 0xA0, ..] => 2,
            [0xE1, 0x9A, 0x80, ..]
            | [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..]
            | [0xE2, 0x81, 0x9F, ..]
            | [0xE3, 0x80, 0x80, ..] => 3,
            _ => 0,
        },
        _ => 0,
    }
}

/// The length of the run of whitespace at the start of `s`.
#[inline]
fn spaces(s: &[u8]) -> usize {
    let mut p = 0;
    loop {
        match space_len(&s[p..]) {
            0 => return p,
            n => p += n,
        }
    }
}

/// The general tokenizer: the whitespace-separated tokens of a line (any
/// line, whatever its spaces and bytes), as ranges into it. Lines of plain
/// decimals, nearly all, are read by [`plain_decimals`] instead.
struct Tokens<'a> {
    line: &'a [u8],
    at: usize,
}

impl Iterator for Tokens<'_> {
    type Item = Range<usize>;

    #[inline]
    fn next(&mut self) -> Option<Range<usize>> {
        let line = self.line;
        self.at += spaces(&line[self.at..]);
        if self.at == line.len() {
            return None;
        }
        let start = self.at;
        // A space's first byte is never a UTF-8 continuation byte, so stepping
        // one byte at a time cannot miss one.
        while self.at < line.len() && space_len(&line[self.at..]) == 0 {
            self.at += 1;
        }
        Some(start..self.at)
    }
}

fn tokens(line: &[u8]) -> Tokens<'_> {
    Tokens { line, at: 0 }
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// A decimal number (the old reader's `_NUMBER`).
    Decimal,
    /// `inf`, `infinity` or `nan` in any case, with an optional sign.
    InfNan,
    Other,
}

fn digits(s: &[u8]) -> usize {
    s.iter().take_while(|b| b.is_ascii_digit()).count()
}

fn classify(t: &[u8]) -> Token {
    let body = match t {
        [b'+' | b'-', rest @ ..] => rest,
        _ => t,
    };
    let whole = digits(body);
    let mut at = whole;
    let mut mantissa = whole;
    if body.get(at) == Some(&b'.') {
        let fraction = digits(&body[at + 1..]);
        at += 1 + fraction;
        mantissa += fraction;
    }
    if mantissa == 0 {
        return if [&b"inf"[..], b"infinity", b"nan"]
            .iter()
            .any(|w| body.eq_ignore_ascii_case(w))
        {
            Token::InfNan
        } else {
            Token::Other
        };
    }
    if matches!(body.get(at), Some(b'e' | b'E')) {
        let mut e = at + 1;
        if matches!(body.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let n = digits(&body[e.min(body.len())..]);
        if n == 0 {
            return Token::Other;
        }
        at = e + n;
    }
    if at == body.len() {
        Token::Decimal
    } else {
        Token::Other
    }
}

/// What `t` is and, unless [`Token::Other`], its value (correctly rounded).
fn parse(t: &[u8]) -> (Token, Option<f64>) {
    match classify(t) {
        Token::Other => (Token::Other, None),
        kind => match value_of(t) {
            Some(x) => (kind, Some(x)),
            None => (Token::Other, None),
        },
    }
}

/// The value of a [`Token::Decimal`] or [`Token::InfNan`] token, correctly rounded.
fn value_of(t: &[u8]) -> Option<f64> {
    let (negative, body) = match t {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, t),
    };
    if !body.is_empty() && body.len() <= 18 && body.iter().all(u8::is_ascii_digit) {
        // Below 10**18 < 2**63: exact as an integer, rounded once by the cast (to nearest, as strtod).
        let n = body.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
        let x = n as f64;
        return Some(if negative { -x } else { x });
    }
    std::str::from_utf8(t).ok()?.parse::<f64>().ok()
}

/// What the tokens of one data line say, before the file-wide decision.
enum Line {
    /// Not 18 tokens.
    Count(usize),
    /// 18 tokens; `first` is the first that is not a decimal number, `other`
    /// whether one of them is not even `inf`/`nan`.
    NotDecimal { first: usize, other: bool },
}

/// What the data lines of a block say before the file-wide decision: lines
/// not of 18 decimal numbers, and lines of 18 numbers breaking a value rule
/// as (row, field, rule, value); rows are positions among all data lines.
#[derive(Default)]
struct Block {
    odd: Vec<(usize, Line)>,
    broken: Vec<(usize, usize, Rule, f64)>,
}

/// Below this many data lines a trace is parsed on one thread: a thread
/// costs tens of microseconds, a line well under one.
const ROWS_PER_THREAD: usize = 20_000;

/// Blocks of lines per thread (see [`scan`]).
const BLOCKS_PER_THREAD: usize = 4;

/// Parses the data lines `data` (rows `first..first + data.len()`) into
/// `columns`, one slice per field holding exactly those rows.
fn parse_block(raw: &[u8], data: &[(Range<usize>, usize)], first: usize, mut columns: Vec<Column<'_>>) -> Block {
    let mut block = Block::default();
    let mut values = [0.0; NFIELDS];
    for (k, (range, _)) in data.iter().enumerate() {
        let i = first + k;
        let line = &raw[range.clone()];
        let (count, first_not_decimal, other) = if plain_decimals(line, &mut values) {
            (NFIELDS, None, false)
        } else {
            any_tokens(line, &mut values)
        };
        if count != NFIELDS {
            block.odd.push((i, Line::Count(count)));
            continue;
        }
        for (column, &x) in columns.iter_mut().zip(&values) {
            // A value that is no integer, or too large, breaks a rule, and its line is zeroed.
            match column {
                Column::Float(c) => c[k] = x,
                Column::Int(c) => c[k] = x as i64,
            }
        }
        if let Some(first) = first_not_decimal {
            block.odd.push((i, Line::NotDecimal { first, other }));
            if other {
                continue;
            }
        }
        if plainly_valid(&values) {
            continue;
        }
        if let Some((j, rule)) = values
            .iter()
            .enumerate()
            .find_map(|(j, &x)| Rule::first_broken(j, x).map(|r| (j, r)))
        {
            block.broken.push((i, j, rule, values[j]));
        }
    }
    block
}

/// Reads a line made only of 18 short plain decimals (an optional sign, at
/// most 15 digits with at most one `.` among them, no exponent) separated by
/// ASCII spaces and tabs, as nearly every line of an archive trace is, into
/// `values`; false, with `values` to be overwritten, for any other line,
/// which [`any_tokens`] then reads. Each byte is compared with a few
/// constants, where the general reader looks every byte up for Unicode spaces.
#[inline]
fn plain_decimals(line: &[u8], values: &mut [f64; NFIELDS]) -> bool {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let is_blank = |b: u8| b == b' ' || b == b'\t';
    let mut p = 0;
    for slot in values.iter_mut() {
        while p < line.len() && is_blank(line[p]) {
            p += 1;
        }
        let negative = p < line.len() && line[p] == b'-';
        if p < line.len() && (negative || line[p] == b'+') {
            p += 1;
        }
        let (mut n, mut digits, mut fraction, mut point) = (0u64, 0, 0, false);
        while p < line.len() && digits <= 15 {
            match line[p] {
                d @ b'0'..=b'9' => {
                    n = n * 10 + u64::from(d - b'0');
                    digits += 1;
                    fraction += usize::from(point);
                }
                b'.' if !point => point = true,
                _ => break,
            }
            p += 1;
        }
        if digits == 0 || digits > 15 || (p < line.len() && !is_blank(line[p])) {
            return false;
        }
        // n < 10**15 < 2**53 and 10**fraction are exact, so the one division
        // rounds correctly (to nearest, as strtod); an integer needs none.
        // (Through i64, which holds n: one instruction, where u64 takes several.)
        let m = n as i64 as f64;
        let x = if fraction == 0 { m } else { m / POW10[fraction] };
        *slot = if negative { -x } else { x };
    }
    line[p..].iter().all(|&b| is_blank(b))
}

/// Reads the tokens of any line: (how many, the first that is not a decimal
/// number, whether one is not even `inf`/`nan`), the first 18 values into
/// `values`.
fn any_tokens(line: &[u8], values: &mut [f64; NFIELDS]) -> (usize, Option<usize>, bool) {
    let (mut count, mut first_not_decimal, mut other) = (0, None, false);
    for token in tokens(line) {
        if count < NFIELDS {
            let (kind, value) = parse(&line[token]);
            if kind != Token::Decimal {
                first_not_decimal.get_or_insert(count);
            }
            match value {
                Some(x) => values[count] = x,
                None => other = true,
            }
        }
        count += 1;
    }
    (count, first_not_decimal, other)
}

/// True when no value of a line can break a rule: each is -1 or lies in
/// `0..=MAX_TIME` (so it is finite, within every bound and not negative),
/// and the ids and counts are whole. Nearly every line passes this quick
/// test, branch-free over the 18 values; a line that fails it gets the rules
/// one by one, which then decide.
fn plainly_valid(values: &[f64; NFIELDS]) -> bool {
    let mut ok = true;
    for (j, &x) in values.iter().enumerate() {
        ok &= ((0.0..=MAX_TIME).contains(&x) | (x == -1.0)) & (!is_int(j) | ((x as i64) as f64 == x));
    }
    ok
}

/// Split `raw` into header and data lines, parse every data line and find
/// every malformed one (module docs). A long trace's lines are parsed in
/// blocks on several threads; each line's outcome depends on that line
/// only, and the blocks are joined in row order, so the result is the same.
#[must_use]
pub fn scan(raw: &[u8]) -> Scan {
    let (header, data) = split_lines(raw);
    let rows = data.len();
    let nints = (0..NFIELDS).filter(|&j| is_int(j)).count();
    let mut floats = vec![0.0; (NFIELDS - nints) * rows];
    let mut ints = vec![0i64; nints * rows];
    advise_huge_pages(floats.as_ptr(), floats.len());
    advise_huge_pages(ints.as_ptr(), ints.len());
    let lines: Vec<usize> = data.iter().map(|&(_, number)| number).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(rows / ROWS_PER_THREAD)
        .max(1);
    // Several blocks a thread, taken in turn from a shared list: a thread that
    // other work on its core slows down takes fewer, and none waits for it long.
    let block_rows = rows.div_ceil(threads * BLOCKS_PER_THREAD).max(1);
    // Each block's rows of each field, in file order: block b's rows of
    // the k-th float field are floats[k * rows + b * block_rows ..][..block_rows].
    let blocks = rows.div_ceil(block_rows);
    let mut slices: Vec<Vec<Column<'_>>> = (0..blocks).map(|_| Vec::with_capacity(NFIELDS)).collect();
    let (mut float_fields, mut int_fields) = (floats.chunks_mut(rows.max(1)), ints.chunks_mut(rows.max(1)));
    for j in 0..NFIELDS {
        let field = if is_int(j) {
            int_fields
                .next()
                .map(|c| c.chunks_mut(block_rows).map(Column::Int).collect::<Vec<_>>())
        } else {
            float_fields
                .next()
                .map(|c| c.chunks_mut(block_rows).map(Column::Float).collect::<Vec<_>>())
        };
        for (b, part) in field.into_iter().flatten().enumerate() {
            slices[b].push(part);
        }
    }
    let todo = std::sync::Mutex::new(slices.into_iter().enumerate().map(|(b, fields)| {
        let first = b * block_rows;
        (b, first, &data[first..(first + block_rows).min(rows)], fields)
    }));
    let work = || {
        let mut done = Vec::new();
        loop {
            let next = todo.lock().expect("no thread panics holding the list").next();
            let Some((b, first, data, fields)) = next else {
                return done;
            };
            done.push((b, parse_block(raw, data, first, fields)));
        }
    };
    let mut parsed: Vec<(usize, Block)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut parsed = work();
        for helper in helpers {
            parsed.extend(helper.join().expect("parsing a block of lines does not panic"));
        }
        parsed
    });
    parsed.sort_unstable_by_key(|&(b, _)| b);
    let blocks = parsed.into_iter().map(|(_, block)| block);
    let (mut odd, mut broken) = (Vec::new(), Vec::new());
    for block in blocks {
        odd.extend(block.odd);
        broken.extend(block.broken);
    }
    // The old reader parsed the whole file at once with numpy's loader, which
    // takes inf and nan, and only when that failed matched each line against
    // the decimal grammar.
    let all_numbers = odd
        .iter()
        .all(|(_, l)| matches!(l, Line::NotDecimal { other: false, .. }));
    let mut bad = vec![false; rows];
    let mut problems = Vec::new();
    if !all_numbers {
        for (i, l) in odd {
            let finding = match l {
                Line::Count(n) => Finding::FieldCount(n),
                Line::NotDecimal { first, .. } => {
                    let t = token_range(raw, &data[i].0, first);
                    Finding::NotANumber { field: first, token: t }
                }
            };
            bad[i] = true;
            problems.push(Problem {
                row: i,
                line: data[i].1,
                job: job_number(&raw[data[i].0.clone()]),
                finding,
            });
        }
    }
    for (i, j, rule, value) in broken {
        if bad[i] {
            continue;
        }
        bad[i] = true;
        let token = token_range(raw, &data[i].0, j);
        let finding = Finding::Broken {
            field: j,
            rule,
            token,
            value,
        };
        problems.push(Problem {
            row: i,
            line: data[i].1,
            job: job_number(&raw[data[i].0.clone()]),
            finding,
        });
    }
    // Job numbers of valid lines: integers within +-2**53, so exact as i64.
    // While they rise (as in every archive trace) none can repeat an earlier
    // one, so the table of numbers seen is built only from the first line
    // that does not rise.
    let mut owner: Option<HashMap<i64, usize, BuildHasherDefault<JobHasher>>> = None;
    let mut highest = i64::MIN;
    for i in 0..rows {
        let job = ints[i]; // job_id, the first integer field
        if bad[i] || job == -1 {
            continue;
        }
        if owner.is_none() {
            if job > highest {
                highest = job;
                continue;
            }
            let mut seen = HashMap::with_capacity_and_hasher(rows, BuildHasherDefault::default());
            for k in (0..i).filter(|&k| !bad[k] && ints[k] != -1) {
                seen.insert(ints[k], k);
            }
            owner = Some(seen);
        }
        let seen = owner.as_mut().expect("built above");
        if let Some(&first) = seen.get(&job) {
            let finding = Finding::Duplicate {
                job,
                first_line: data[first].1,
            };
            problems.push(Problem {
                row: i,
                line: data[i].1,
                job: Some(job),
                finding,
            });
        } else {
            seen.insert(job, i);
        }
    }
    // Findings of the three kinds interleave: by row, as the reader reports them.
    problems.sort_by_key(|p| p.row);
    for p in &problems {
        for k in 0..NFIELDS - nints {
            floats[k * rows + p.row] = 0.0;
        }
        for k in 0..nints {
            ints[k * rows + p.row] = 0;
        }
    }
    Scan {
        header,
        lines,
        floats,
        ints,
        problems,
    }
}

/// [`scan`] of the text a gzip file holds, with that text, when the file is
/// exactly one gzip member that inflates cleanly ([`gzip::inflate`], the
/// usual trace file); `None` for anything else, which the caller inflates its
/// own way (`read_swf`: Python's zlib, which words every gzip error) and
/// hands to [`scan`].
#[must_use]
pub fn scan_gz(raw: &[u8]) -> Option<(Vec<u8>, Scan)> {
    let text = gzip::inflate(raw)?;
    let scan = scan(&text);
    Some((text, scan))
}

/// A fast hash of job numbers (Fx's multiply-rotate; the keys come from one
/// file and the table lives for one scan, so no defence against chosen keys
/// is needed beyond what a duplicate-heavy trace costs anyway).
#[derive(Default)]
struct JobHasher(u64);

impl Hasher for JobHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// The absolute byte range of token `k` of the data line at `line` (which has it).
fn token_range(raw: &[u8], line: &Range<usize>, k: usize) -> Range<usize> {
    let t = tokens(&raw[line.clone()]).nth(k).unwrap_or(0..0);
    line.start + t.start..line.start + t.end
}

/// The job number a (non-blank) data line starts with, when it is a decimal
/// integer within +-2**53.
fn job_number(line: &[u8]) -> Option<i64> {
    let t = tokens(line).next()?;
    let token = &line[t];
    if classify(token) != Token::Decimal {
        return None;
    }
    let x = value_of(token)?;
    (x.is_finite() && is_whole(x) && x.abs() <= MAX_INT).then_some(x as i64)
}

/// Header lines, and data lines as (byte range, line number).
fn split_lines(raw: &[u8]) -> (Vec<HeaderLine>, Vec<(Range<usize>, usize)>) {
    let mut header = Vec::new();
    // A data line of 18 fields takes 36 bytes at least: reserving for that
    // many (address space, touched only as it fills) spares regrowing copies.
    let mut data = Vec::with_capacity(raw.len() / 36 + 1);
    let mut at = if raw.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let mut number = 1;
    loop {
        let end = memchr::memchr2(b'\n', b'\r', &raw[at..]).map_or(raw.len(), |k| at + k);
        let p = at + spaces(&raw[at..end]);
        if p < end {
            if raw[p] == b';' {
                header.push(HeaderLine {
                    line: number,
                    text: p + 1..end,
                });
            } else {
                data.push((at..end, number));
            }
        }
        if end == raw.len() {
            break;
        }
        at = end
            + if raw[end] == b'\r' && raw.get(end + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
        number += 1;
    }
    (header, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1";

    #[test]
    fn header_and_data_lines_with_every_line_end() {
        let text = format!(
            "\u{feff}; MaxProcs: 8\r\n\r{GOOD}\n \u{3000}; note\r2 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1"
        );
        let s = scan(text.as_bytes());
        assert_eq!(s.header.iter().map(|h| h.line).collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(&text.as_bytes()[s.header[0].text.clone()], b" MaxProcs: 8");
        assert_eq!(&text.as_bytes()[s.header[1].text.clone()], b" note");
        assert_eq!(s.lines, vec![3, 5]);
        assert!(s.problems.is_empty());
        assert_eq!(s.value(1, 0), 2.0);
        assert_eq!(s.value(0, 8), 200.0);
    }

    proptest::proptest! {
        /// Where the plain-decimal reader takes a line, the general one reads
        /// the same 18 values bit for bit and finds nothing odd.
        #[test]
        fn plain_lines_read_as_the_general_reader_reads_them(
            tokens in proptest::collection::vec(proptest::prop_oneof![
                9 => proptest::string::string_regex("[+-]?[0-9]{0,17}(\\.[0-9]{0,4})?|[+-]?\\.[0-9]{1,3}").unwrap(),
                1 => proptest::string::string_regex("1e5|nan|-?[0-9]{1,3}\\.?|[0-9]\\.[0-9]\\.").unwrap(),
            ], 17..20),
            separators in proptest::collection::vec(proptest::prop_oneof![
                30 => proptest::sample::select(vec![" ", "  ", "\t", " \t"]),
                1 => proptest::sample::select(vec!["\u{a0}", "\u{3000}", "\u{b}"]),
            ], 20),
        ) {
            let line: String = tokens.iter().zip(&separators).map(|(t, s)| format!("{s}{t}")).collect();
            let (mut plain, mut general) = ([0.0; NFIELDS], [0.0; NFIELDS]);
            if plain_decimals(line.as_bytes(), &mut plain) {
                proptest::prop_assert_eq!(any_tokens(line.as_bytes(), &mut general), (NFIELDS, None, false));
                proptest::prop_assert_eq!(plain.map(f64::to_bits), general.map(f64::to_bits));
            }
        }
    }

    #[test]
    fn plain_decimals_leave_the_rest_to_the_general_reader() {
        let mut v = [0.0; NFIELDS];
        let line = |t: &str| GOOD.replacen(" 100 ", &format!(" {t} "), 1);
        for t in ["-0", "+.5", "5.", "0.1", "123456789012345", "-2.50", "00012"] {
            assert!(plain_decimals(line(t).as_bytes(), &mut v), "{t}");
        }
        for t in ["1234567890123456", "1.2.3", ".", "-", "1e5", "nan", "12a", "1\u{a0}"] {
            assert!(!plain_decimals(line(t).as_bytes(), &mut v), "{t}");
        }
        assert!(!plain_decimals(b"1 2 3", &mut v) && !plain_decimals(format!("{GOOD} 7").as_bytes(), &mut v));
    }

    #[test]
    fn whole_numbers_as_trunc_finds_them() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.5,
            1e-300,
            4503599627370495.5,
            4503599627370496.0,
            9007199254740991.0,
            9007199254740992.0,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            123456789.000001,
        ] {
            assert_eq!(is_whole(x), x.trunc() == x, "{x}");
        }
    }

    #[test]
    fn tokens_classify_as_python_does() {
        for t in [
            "1",
            "+3",
            "-0",
            "1.5",
            "2.",
            ".5",
            "1e5",
            "1.E-5",
            "9".repeat(40).as_str(),
        ] {
            assert_eq!(classify(t.as_bytes()), Token::Decimal, "{t}");
        }
        for t in ["nan", "-NaN", "+inf", "Infinity", "-INFINITY"] {
            assert_eq!(classify(t.as_bytes()), Token::InfNan, "{t}");
        }
        for t in [
            "", ".", "+", "e5", ".e5", "1e", "1e+", "0x10", "1_000", "--1", "infinit", "nan(1)", "١", "1d5",
        ] {
            assert_eq!(classify(t.as_bytes()), Token::Other, "{t}");
        }
        assert_eq!(value_of(b"-0").map(f64::to_bits), Some((-0.0f64).to_bits()));
        assert_eq!(value_of(b"1e400"), Some(f64::INFINITY));
        assert_eq!(value_of(b"0.1"), Some(0.1));
        assert_eq!(value_of(b"999999999999999999"), Some(999_999_999_999_999_999.0));
    }

    #[test]
    fn inf_and_nan_are_numbers_only_when_every_line_is() {
        let nan = GOOD.replacen("100", "nan", 1);
        let s = scan(format!("{nan}\n{GOOD}\n").as_bytes());
        assert!(matches!(
            s.problems[0].finding,
            Finding::Broken {
                field: 3,
                rule: Rule::NotFinite,
                ..
            }
        ));
        // the line with the nan is not valid, so job 1 is not a duplicate
        assert_eq!(s.problems.len(), 1);
        let s = scan(format!("{nan}\n1 2\n").as_bytes());
        assert!(matches!(s.problems[0].finding, Finding::NotANumber { field: 3, .. }));
        assert_eq!(s.problems[1].finding, Finding::FieldCount(2));
    }

    #[test]
    fn rules_and_duplicates() {
        let s = scan(
            format!(
                "{GOOD}\n{}\n{GOOD}\n{}\n",
                GOOD.replacen("100", "-7", 1),
                GOOD.replacen("4", "4.5", 1)
            )
            .as_bytes(),
        );
        let found: Vec<_> = s.problems.iter().map(|p| (p.row, p.finding.clone())).collect();
        assert!(matches!(
            found[0],
            (
                1,
                Finding::Broken {
                    field: 3,
                    rule: Rule::Negative,
                    ..
                }
            )
        ));
        assert_eq!(found[1], (2, Finding::Duplicate { job: 1, first_line: 1 }));
        assert!(matches!(
            found[2],
            (
                3,
                Finding::Broken {
                    field: 4,
                    rule: Rule::NotInteger,
                    ..
                }
            )
        ));
    }

    #[test]
    fn problems_are_in_line_order_whatever_their_kind() {
        let s = scan(format!("{}\n{GOOD} 1\n", GOOD.replacen("1", "1.5", 1)).as_bytes());
        assert_eq!(s.problems.iter().map(|p| p.row).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn huge_inputs_are_findings() {
        let wide = vec!["1"; 1_000_000].join(" ");
        let s = scan(wide.as_bytes());
        assert_eq!(s.problems[0].finding, Finding::FieldCount(1_000_000));
        let long = GOOD.replacen("100", &"9".repeat(1_000_000), 1);
        let s = scan(long.as_bytes());
        assert!(matches!(
            s.problems[0].finding,
            Finding::Broken {
                field: 3,
                rule: Rule::NotFinite,
                ..
            }
        ));
        let s = scan(b"\xff\xfe 1 2\n\xe2\x80");
        assert_eq!(s.problems.len(), 2);
        assert!(scan(b"").lines.is_empty() && scan(b"; only\n").lines.is_empty());
    }
}
