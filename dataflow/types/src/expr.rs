//! Scalar expressions over a row, and their evaluation with SQL semantics.
//!
//! The planner produces `ScalarExpr`s whose operands already have matching types (it inserts
//! casts), so evaluation dispatches on the `Datum` variants it meets. NULL propagates through
//! every function except the logical connectives (three-valued AND/OR), IS [NOT] NULL and
//! COALESCE. Errors are values of `EvalError`, never panics, because bad data must not crash a
//! dataflow.

use crate::builtins;
use crate::cast::cast;
use crate::datetime::DateUnit;
use crate::datum::{float32, Datum};
use crate::error::EvalError;
use crate::scalar::ScalarType;
use crate::subquery::BoundSubquery;
use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

mod arith;
mod date_funcs;
mod tz_funcs;

pub use crate::text_funcs::check_pattern as check_regex_pattern;
use arith::arith;
pub use tz_funcs::ZonedFunc;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarExpr {
    /// The value of a column of the input row.
    Column(usize),
    Literal(Datum),
    Unary {
        func: UnaryFunc,
        expr: Box<ScalarExpr>,
    },
    Binary {
        func: BinaryFunc,
        left: Box<ScalarExpr>,
        right: Box<ScalarExpr>,
    },
    Variadic {
        func: VariadicFunc,
        exprs: Vec<ScalarExpr>,
    },
    If {
        cond: Box<ScalarExpr>,
        then: Box<ScalarExpr>,
        els: Box<ScalarExpr>,
    },
    /// A subquery before decorrelation (`EXPLAIN RAW` plans only; see `subquery.rs`).
    Subquery(Box<BoundSubquery>),
    /// Parameter `$n` (1-based) of a prepared statement: planned once, replaced by the bound
    /// value before the plan runs (`sql-planner/src/params.rs`).
    Param(usize),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnaryFunc {
    /// jsonb_typeof(jsonb)
    JsonbTypeof,
    /// to_jsonb(x) of a value of a type `jsonb_build::convertible` accepts.
    ToJsonb,
    /// jsonb_object_agg's object from its aggregated `[key, value]` pairs
    /// (`jsonb_build::object_of_pairs`).
    JsonbObjectOfPairs,
    /// cardinality(array): its number of elements.
    Cardinality,
    Not,
    IsNull,
    IsNotNull,
    Neg,
    Abs,
    Upper,
    Lower,
    /// Length in characters.
    CharLength,
    /// char(n) to text: trailing blanks removed.
    BpcharToText,
    /// Cast to the given type (with its modifiers).
    Cast(ScalarType),
    /// Fails with 21000 whatever its input: the value of a scalar subquery that returned more
    /// than one row (the planner guards it with a count).
    MultipleRowsError,
    /// A window frame's offset (ROWS or RANGE `n PRECEDING`/`FOLLOWING`) given by a parameter,
    /// checked as PostgreSQL checks it when the query runs: NULL is 22004 (naming the frame's
    /// start or end), a negative size 22013, an infinite one 0A000; else the offset itself.
    FrameOffset {
        start: bool,
        rows: bool,
    },
    /// EXTRACT(unit FROM date | timestamp | interval), numeric.
    Extract(DateUnit),
    /// date_part(unit, date | timestamp | interval), double precision.
    DatePart(DateUnit),
    /// date_trunc(unit, timestamp | interval).
    DateTrunc(DateUnit),
    /// to_timestamp(double precision): a timestamptz, seconds since the Unix epoch.
    ToTimestamp,
    /// round(numeric | double precision) to an integral value.
    Round,
    Floor,
    Ceil,
    /// trunc(numeric | double precision) toward zero.
    Trunc,
    /// sign(numeric | double precision): -1, 0 or 1 of the argument's type.
    Sign,
    /// sqrt(numeric | double precision).
    Sqrt,
    /// cbrt, exp, ln and log10 of double precision.
    Cbrt,
    Exp,
    Ln,
    Log10,
    /// octet_length(text): bytes in UTF-8.
    OctetLength,
    /// quote_ident(text): double-quoted when PostgreSQL would need quotes.
    QuoteIdent,
    /// pg_encoding_to_char(encoding id): the encoding's name, '' for an unknown id.
    EncodingToChar,
    /// The cast of a timestamp, timestamptz, date, integer or numeric to `mz_now()`'s time
    /// (bigint milliseconds since the Unix epoch, `temporal.rs`).
    ToMzTimestamp,
    /// The millisecond after an `mz_timestamp` (a strict bound's inclusive form: `mz_now() > x`
    /// is `mz_now() >= x + 1`), saturating at bigint's maximum: the time 2^63 - 1 ms is some
    /// 292 million years away, so `mz_now() <= 9223372036854775807` holds at every time that can
    /// occur rather than failing with "bigint out of range" (`temporal.rs`).
    MzTimestampNext,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinaryFunc {
    And,
    Or,
    Eq,
    NotEq,
    Lt,
    Lte,
    Gt,
    Gte,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Concat,
    Like,
    ILike,
    /// `pattern ESCAPE escape` (PostgreSQL's like_escape): the pattern with its escape
    /// character (one, or none for '') written as LIKE's backslash escapes; 22025 for a longer
    /// escape.
    LikeEscape,
    /// date + integer days
    AddDateDays,
    /// date - integer days
    SubDateDays,
    /// date - date, in days
    SubDates,
    AddTimestampInterval,
    SubTimestampInterval,
    /// timestamp - timestamp, an interval
    SubTimestamps,
    /// time ± interval (the interval's time part, wrapped into a day)
    AddTimeInterval,
    SubTimeInterval,
    /// time - time, an interval
    SubTimes,
    /// date + time, a timestamp
    AddDateTime,
    AddIntervals,
    SubIntervals,
    /// interval * double precision
    MulInterval,
    /// interval / double precision
    DivInterval,
    /// round(numeric, integer places)
    RoundScale,
    /// trunc(numeric, integer places)
    TruncScale,
    /// strpos(string, substring)
    Position,
    /// btrim(string, characters)
    Trim,
    LTrim,
    RTrim,
    /// text ~ pattern (POSIX regular expression match).
    RegexMatch,
    /// text ~* pattern (case-insensitive).
    RegexIMatch,
    /// format_type(type oid, typmod): a built-in type's SQL name.
    FormatType,
    /// array_to_string(array in PostgreSQL's text form, separator).
    ArrayToString,
    /// power(double precision, double precision).
    Power,
    /// left(text, n) and right(text, n): the first or last n characters (all but the last or
    /// first -n when n is negative).
    Left,
    Right,
    /// jsonb -> text (a field) or jsonb -> integer (an element); `->>` with `as_text`.
    JsonbGet {
        as_text: bool,
    },
    /// jsonb #> text[] (a path, as its text); `#>>` with `as_text`.
    JsonbPath {
        as_text: bool,
    },
    /// jsonb @> jsonb
    JsonbContains,
    /// jsonb ? text
    JsonbExists,
    /// jsonb || jsonb: objects merged (the right's keys win), arrays concatenated, a scalar
    /// taken as a one-element array.
    JsonbConcat,
    /// jsonb - text (a key of an object, or the equal strings of an array) and jsonb - int
    /// (an array's element, negative from the end).
    JsonbDelete,
    /// The array functions of `array/funcs.rs`: `a[i]`, array_length/lower/upper(a, dim),
    /// array_position(a, x), array_append(a, x), array_prepend(x, a), array_cat(a, b) (also
    /// `||`), `a @> b`, `a && b`, and `x op ANY|ALL (a)`. Not all strict (see `is_strict`).
    ArrayIndex,
    ArrayDim(crate::array::funcs::Dimension),
    ArrayPosition,
    ArrayAppend,
    ArrayPrepend,
    ArrayCat,
    ArrayContains,
    ArrayOverlap,
    /// array_remove(a, x): `a` without the elements not distinct from `x`.
    ArrayRemove,
    ArrayAny {
        op: crate::array::funcs::CmpOp,
        all: bool,
    },
    /// Bitwise `&` and `|` of two integers of one type.
    BitAnd,
    BitOr,
}

impl BinaryFunc {
    /// The array functions that take NULL arguments as values rather than yield NULL.
    fn array_lenient(&self) -> bool {
        matches!(
            self,
            BinaryFunc::ArrayPosition
                | BinaryFunc::ArrayRemove
                | BinaryFunc::ArrayAppend
                | BinaryFunc::ArrayPrepend
                | BinaryFunc::ArrayCat
                | BinaryFunc::ArrayAny { .. }
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VariadicFunc {
    Coalesce,
    /// The largest and the smallest non-NULL argument (NULL if all are); the first of
    /// SQL-equal ones.
    Greatest,
    Least,
    /// concat(...): the arguments' texts, NULLs skipped.
    Concat,
    /// jsonb_build_array(...) and jsonb_build_object(k, v, ...) (`jsonb_build.rs`); NULL
    /// arguments are `null` values.
    JsonbBuildArray,
    JsonbBuildObject,
    /// replace(string, from, to).
    Replace,
    /// lpad(string, length [, fill]) and rpad.
    Lpad,
    Rpad,
    /// substring(string, start [, count]); NULL if any argument is.
    Substring,
    /// The string functions of `text_funcs.rs` beyond the above, strict (NULL if any argument
    /// is): repeat(text, int), split_part(text, text, int), initcap, md5, reverse,
    /// starts_with(text, text), translate(text, text, text), ascii(text) and chr(int).
    Repeat,
    SplitPart,
    /// to_char(value, picture), to_number(text, picture) and to_date(text, picture)
    /// (`to_char.rs`), strict; to_char of a datetime with an empty picture is NULL.
    ToChar,
    ToNumber,
    ToDate,
    Initcap,
    Md5,
    Reverse,
    StartsWith,
    Translate,
    Ascii,
    Chr,
    /// regexp_replace(source, pattern, replacement [, flags]) or (source, pattern,
    /// replacement, start [, n [, flags]]), regexp_like(string, pattern [, flags]) and
    /// regexp_count(string, pattern [, start [, flags]]), regexp_substr(string, pattern
    /// [, start [, n [, flags [, subexpr]]]]) and regexp_instr(string, pattern [, start [, n
    /// [, endoption [, flags [, subexpr]]]]]) (`text_funcs/regex.rs`).
    RegexpReplace,
    RegexpLike,
    RegexpCount,
    RegexpSubstr,
    RegexpInstr,
    /// regexp_match(string, pattern [, flags]): the first match's groups as a text array.
    RegexpMatch,
    /// regexp_split_to_array(string, pattern [, flags]).
    RegexpSplitToArray,
    /// random(): a double precision drawn uniformly from [0, 1) at each evaluation. Volatile:
    /// never folded, and refused where a dataflow maintains its result (`is_volatile`).
    Random,
    /// gen_random_uuid(): a version 4 (random) UUID at each evaluation; volatile as random().
    GenRandomUuid,
    /// current_date, localtimestamp and localtime: the statement's time, which the coordinator
    /// writes into the plan before running it (`Plan::bind_statement_time`); evaluated unbound
    /// they are an internal error. Like random(), refused where a dataflow maintains its
    /// result, which would freeze the time it was created at.
    CurrentDate,
    LocalTimestamp,
    LocalTime,
    /// now(), transaction_timestamp(), current_timestamp: the transaction's start, and
    /// statement_timestamp(): the statement's; bound as `CurrentDate` is (timestamptz).
    TransactionTimestamp,
    StatementTimestamp,
    /// clock_timestamp(): the wall clock at each evaluation (volatile like random()).
    ClockTimestamp,
    /// A function of timestamptz that reads a zone, its last argument (`expr/tz_funcs.rs`).
    Zoned(ZonedFunc),
    /// date_part(text, x) and date_trunc(text, x) of a value of the kind, strict, with a unit
    /// that is not a constant (a prepared statement's parameter, a column): read as they run,
    /// with PostgreSQL's errors for a unit the kind has not.
    DatePartBy(crate::DateKind),
    TruncBy(crate::DateKind),
    /// An OID type's input from a text that is not a constant (`oid_names.rs`), strict:
    /// (text, names, OIDs) → the OID; NULL where nothing has the name if `or_null`
    /// (`to_regclass`), else PostgreSQL's error.
    OidByName {
        noun: crate::oid_names::OidNoun,
        or_null: bool,
    },
    /// The date functions of `expr/date_funcs.rs`, strict: make_date(int, int, int),
    /// justify_days, justify_hours and justify_interval of an interval, and
    /// age(timestamp, timestamp).
    MakeDate,
    JustifyDays,
    JustifyHours,
    JustifyInterval,
    Age,
    /// The argument of string_agg: `[value, delimiter, keys...]` packed into one array, NULL
    /// when the value is (`agg/string_agg.rs`).
    StringAggInput,
    /// The argument of array_agg: `[value, keys...]` packed into one array, never NULL (NULL
    /// values are elements too; `agg/array_agg.rs`).
    ArrayAggInput,
    /// `ARRAY[a, b, ...]`: an array of the arguments, NULLs among them.
    ArrayBuild,
    /// The record `(x, n)` of `_pg_expandarray` (`array/record.rs`).
    RecordBuild,
    /// `a[lo:hi]`, the planner supplying omitted bounds; strict.
    ArraySlice,
    /// array_replace(a, x, y): each element not distinct from `x` replaced by `y`.
    ArrayReplace,
    /// array_to_string(a, delimiter [, null_string]) and string_to_array(s, delimiter [,
    /// null_string]), with their own NULL rules (`array/funcs.rs`).
    ArrayJoin,
    StringToArray,
    /// mz_now(): the logical time (milliseconds) at which the query is evaluated. A WHERE
    /// conjunct comparing it with the row becomes a `Plan::TemporalFilter`; an ad hoc read
    /// binds the rest to its timestamp (`temporal.rs`); evaluated unbound it is an internal
    /// error. Volatile, so it is never folded.
    MzNow,
}

impl VariadicFunc {
    /// Whether each call draws a new value (`random()`, `gen_random_uuid()`,
    /// `clock_timestamp()`), unlike the statement's time, which is one value per statement:
    /// such a call is evaluated where the query puts it, once per row there.
    pub fn draws_per_call(&self) -> bool {
        matches!(
            self,
            VariadicFunc::Random | VariadicFunc::GenRandomUuid | VariadicFunc::ClockTimestamp
        )
    }

    /// Whether the function's value is not a function of its arguments alone (`random()`, the
    /// statement's time): it is never folded, and a maintained dataflow cannot compute it.
    pub fn is_volatile(&self) -> bool {
        matches!(
            self,
            VariadicFunc::Random
                | VariadicFunc::GenRandomUuid
                | VariadicFunc::CurrentDate
                | VariadicFunc::LocalTimestamp
                | VariadicFunc::LocalTime
                | VariadicFunc::TransactionTimestamp
                | VariadicFunc::StatementTimestamp
                | VariadicFunc::ClockTimestamp
                | VariadicFunc::MzNow
        )
    }
}

/// A double precision drawn uniformly from [0, 1): `random()`.
fn random_float() -> ordered_float::OrderedFloat<f64> {
    ordered_float::OrderedFloat(rand::random::<f64>())
}

/// Random bytes with RFC 4122's version (4) and variant bits, as PostgreSQL's
/// gen_random_uuid() makes them.
fn random_uuid() -> [u8; 16] {
    let mut u: [u8; 16] = rand::random();
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    u
}

impl ScalarExpr {
    pub fn column(c: usize) -> Self {
        ScalarExpr::Column(c)
    }

    pub fn literal_true() -> Self {
        ScalarExpr::Literal(Datum::Bool(true))
    }

    pub fn call_unary(self, func: UnaryFunc) -> Self {
        ScalarExpr::Unary {
            func,
            expr: Box::new(self),
        }
    }

    pub fn call_binary(self, func: BinaryFunc, other: ScalarExpr) -> Self {
        ScalarExpr::Binary {
            func,
            left: Box::new(self),
            right: Box::new(other),
        }
    }

    /// Whether the expression reads no column.
    pub fn is_constant(&self) -> bool {
        let mut constant = true;
        self.visit(&mut |e| {
            if matches!(
                e,
                ScalarExpr::Column(_) | ScalarExpr::Subquery(_) | ScalarExpr::Param(_)
            ) {
                constant = false;
            }
        });
        constant && !self.is_volatile()
    }

    /// Whether the expression calls a function that draws a new value at each call
    /// (`VariadicFunc::draws_per_call`).
    pub fn draws_per_call(&self) -> bool {
        let mut draws = false;
        self.visit(&mut |e| {
            if let ScalarExpr::Variadic { func, .. } = e {
                draws |= func.draws_per_call();
            }
        });
        draws
    }

    pub fn is_volatile(&self) -> bool {
        let mut volatile = false;
        self.visit(&mut |e| {
            if let ScalarExpr::Variadic { func, .. } = e {
                if func.is_volatile() {
                    volatile = true;
                }
            }
        });
        volatile
    }

    /// Visits every node mutably, parents before children (the children of what `f` leaves
    /// in a node's place).
    pub fn visit_mut(&mut self, f: &mut impl FnMut(&mut ScalarExpr)) {
        f(self);
        match self {
            ScalarExpr::Column(_) | ScalarExpr::Literal(_) | ScalarExpr::Param(_) => {}
            ScalarExpr::Unary { expr, .. } => expr.visit_mut(f),
            ScalarExpr::Binary { left, right, .. } => {
                left.visit_mut(f);
                right.visit_mut(f);
            }
            ScalarExpr::Variadic { exprs, .. } => exprs.iter_mut().for_each(|e| e.visit_mut(f)),
            ScalarExpr::If { cond, then, els } => {
                cond.visit_mut(f);
                then.visit_mut(f);
                els.visit_mut(f);
            }
            ScalarExpr::Subquery(s) => s.operands_mut().for_each(|e| e.visit_mut(f)),
        }
    }

    /// Visits every node, parents before children.
    pub fn visit(&self, f: &mut impl FnMut(&ScalarExpr)) {
        f(self);
        match self {
            ScalarExpr::Column(_) | ScalarExpr::Literal(_) | ScalarExpr::Param(_) => {}
            ScalarExpr::Unary { expr, .. } => expr.visit(f),
            ScalarExpr::Binary { left, right, .. } => {
                left.visit(f);
                right.visit(f);
            }
            ScalarExpr::Variadic { exprs, .. } => exprs.iter().for_each(|e| e.visit(f)),
            ScalarExpr::If { cond, then, els } => {
                cond.visit(f);
                then.visit(f);
                els.visit(f);
            }
            ScalarExpr::Subquery(s) => s.operands().for_each(|e| e.visit(f)),
        }
    }

    /// Evaluates an expression that runs once, now (a VALUES row, a column default): the
    /// statement-time functions read the wall clock (UTC).
    pub fn eval_now(&self, row: &[Datum]) -> Result<Datum, EvalError> {
        if !self.is_volatile() {
            return self.eval(row);
        }
        let mut bound = self.clone();
        bound.bind_statement_time(chrono::Utc::now().naive_utc());
        bound.eval(row)
    }

    /// Writes the statement's time `now` into the statement-time functions (`current_date`,
    /// `localtimestamp`, `localtime`, `now()`...), as the start of both the transaction and
    /// the statement.
    pub fn bind_statement_time(&mut self, now: chrono::NaiveDateTime) {
        self.bind_clock(now, now)
    }

    /// Writes the transaction's start (`now()`, `current_date`...) and the statement's
    /// (`statement_timestamp()`) into the statement-time functions.
    pub fn bind_clock(
        &mut self,
        transaction: chrono::NaiveDateTime,
        statement: chrono::NaiveDateTime,
    ) {
        let now = transaction;
        match self {
            ScalarExpr::Variadic { func, exprs } => {
                let value = match func {
                    VariadicFunc::CurrentDate => Some(Datum::Date(now.date())),
                    VariadicFunc::LocalTimestamp => Some(Datum::Timestamp(now)),
                    VariadicFunc::LocalTime => {
                        let t = now.time();
                        let micros = i64::from(chrono::Timelike::num_seconds_from_midnight(&t))
                            * 1_000_000
                            + i64::from(chrono::Timelike::nanosecond(&t) / 1000);
                        Some(Datum::Time(micros))
                    }
                    VariadicFunc::TransactionTimestamp => Some(Datum::TimestampTz(now)),
                    VariadicFunc::StatementTimestamp => Some(Datum::TimestampTz(statement)),
                    _ => None,
                };
                match value {
                    Some(d) => *self = ScalarExpr::Literal(d),
                    None => exprs
                        .iter_mut()
                        .for_each(|e| e.bind_clock(transaction, statement)),
                }
            }
            ScalarExpr::Column(_) | ScalarExpr::Literal(_) | ScalarExpr::Param(_) => {}
            ScalarExpr::Unary { expr, .. } => expr.bind_clock(transaction, statement),
            ScalarExpr::Binary { left, right, .. } => {
                left.bind_clock(transaction, statement);
                right.bind_clock(transaction, statement);
            }
            ScalarExpr::If { cond, then, els } => {
                cond.bind_clock(transaction, statement);
                then.bind_clock(transaction, statement);
                els.bind_clock(transaction, statement);
            }
            ScalarExpr::Subquery(s) => s
                .operands_mut()
                .for_each(|e| e.bind_clock(transaction, statement)),
        }
    }

    /// Rewrites every column reference with `f`.
    pub fn map_columns(&mut self, f: &impl Fn(usize) -> usize) {
        self.visit_mut(&mut |e| {
            if let ScalarExpr::Column(c) = e {
                *c = f(*c);
            }
        });
    }

    /// The columns the expression reads.
    pub fn support(&self) -> Vec<usize> {
        let mut cols = Vec::new();
        self.visit(&mut |e| {
            if let ScalarExpr::Column(c) = e {
                cols.push(*c);
            }
        });
        cols.sort_unstable();
        cols.dedup();
        cols
    }

    /// A column's or a literal's value borrowed, any other expression's computed.
    fn eval_borrowed<'a>(&'a self, row: &'a [Datum]) -> Result<Cow<'a, Datum>, EvalError> {
        match self {
            ScalarExpr::Column(c) => Ok(Cow::Borrowed(&row[*c])),
            ScalarExpr::Literal(d) => Ok(Cow::Borrowed(d)),
            e => e.eval(row).map(Cow::Owned),
        }
    }

    /// Evaluates the expression against a row.
    pub fn eval(&self, row: &[Datum]) -> Result<Datum, EvalError> {
        match self {
            ScalarExpr::Column(c) => Ok(row[*c].clone()),
            ScalarExpr::Literal(d) => Ok(d.clone()),
            ScalarExpr::Unary { func, expr } => eval_unary(func, expr.eval(row)?),
            ScalarExpr::Binary { func, left, right } => match func {
                BinaryFunc::And => {
                    let l = left.eval(row)?;
                    if l == Datum::Bool(false) {
                        return Ok(l);
                    }
                    let r = right.eval(row)?;
                    Ok(match (l, r) {
                        (_, Datum::Bool(false)) => Datum::Bool(false),
                        (Datum::Null, _) | (_, Datum::Null) => Datum::Null,
                        _ => Datum::Bool(true),
                    })
                }
                BinaryFunc::Or => {
                    let l = left.eval(row)?;
                    if l == Datum::Bool(true) {
                        return Ok(l);
                    }
                    let r = right.eval(row)?;
                    Ok(match (l, r) {
                        (_, Datum::Bool(true)) => Datum::Bool(true),
                        (Datum::Null, _) | (_, Datum::Null) => Datum::Null,
                        _ => Datum::Bool(false),
                    })
                }
                f if f.array_lenient() => {
                    crate::array::funcs::eval_binary(*f, left.eval(row)?, right.eval(row)?)
                }
                BinaryFunc::Add
                | BinaryFunc::Sub
                | BinaryFunc::Mul
                | BinaryFunc::Eq
                | BinaryFunc::NotEq
                | BinaryFunc::Lt
                | BinaryFunc::Lte
                | BinaryFunc::Gt
                | BinaryFunc::Gte => {
                    let (l, r) = (left.eval_borrowed(row)?, right.eval_borrowed(row)?);
                    match borrowed_binary(*func, &l, &r) {
                        Some(d) => d,
                        None => eval_binary(*func, l.into_owned(), r.into_owned()),
                    }
                }
                _ => eval_binary(*func, left.eval(row)?, right.eval(row)?),
            },
            ScalarExpr::Variadic {
                func: VariadicFunc::Coalesce,
                exprs,
            } => {
                for e in exprs {
                    let d = e.eval(row)?;
                    if !d.is_null() {
                        return Ok(d);
                    }
                }
                Ok(Datum::Null)
            }
            ScalarExpr::Variadic { func, exprs } => {
                let args: Vec<Datum> = exprs
                    .iter()
                    .map(|e| e.eval(row))
                    .collect::<Result<_, _>>()?;
                match func {
                    VariadicFunc::Greatest | VariadicFunc::Least | VariadicFunc::Concat => {
                        Ok(crate::text_funcs::variadic_lenient(*func, args))
                    }
                    VariadicFunc::StringAggInput => Ok(crate::agg::pack_string_agg(&args)),
                    VariadicFunc::ArrayAggInput | VariadicFunc::ArrayBuild => {
                        Ok(Datum::Array(args))
                    }
                    VariadicFunc::RecordBuild => Ok(Datum::Record(args)),
                    VariadicFunc::JsonbBuildArray => crate::jsonb_build::build_array(&args),
                    VariadicFunc::JsonbBuildObject => crate::jsonb_build::build_object(&args),
                    VariadicFunc::ArrayJoin => crate::array::funcs::to_string(args),
                    VariadicFunc::ArrayReplace => crate::array::funcs::replace(args),
                    VariadicFunc::StringToArray => crate::array::funcs::from_string(args),
                    VariadicFunc::Random => Ok(Datum::Float64(random_float())),
                    VariadicFunc::GenRandomUuid => Ok(Datum::Uuid(random_uuid())),
                    // Bound by the reads that have a logical time; anywhere else (VALUES, an
                    // UPDATE's SET) there is none.
                    VariadicFunc::MzNow => Err(EvalError::Unsupported(
                        "mz_now() outside a query (VALUES, SET, DEFAULT)".into(),
                    )),
                    VariadicFunc::ClockTimestamp => {
                        Ok(Datum::TimestampTz(chrono::Utc::now().naive_utc()))
                    }
                    VariadicFunc::CurrentDate
                    | VariadicFunc::LocalTimestamp
                    | VariadicFunc::LocalTime
                    | VariadicFunc::TransactionTimestamp
                    | VariadicFunc::StatementTimestamp => Err(EvalError::Internal(format!(
                        "{func:?} evaluated before the statement's time was bound"
                    ))),
                    // The others are strict.
                    _ if args.iter().any(Datum::is_null) => Ok(Datum::Null),
                    VariadicFunc::Substring => match args.as_slice() {
                        [Datum::String(s), Datum::Int32(start)] => {
                            builtins::substring(s, *start, None)
                        }
                        [Datum::String(s), Datum::Int32(start), Datum::Int32(n)] => {
                            builtins::substring(s, *start, Some(*n))
                        }
                        a => unreachable!("substring over {a:?}"),
                    },
                    VariadicFunc::ArraySlice => {
                        let [a, lo, hi] = <[Datum; 3]>::try_from(args).map_err(|a| {
                            EvalError::Internal(format!("array slice of {} arguments", a.len()))
                        })?;
                        crate::array::funcs::slice(a, lo, hi)
                    }
                    VariadicFunc::MakeDate
                    | VariadicFunc::JustifyDays
                    | VariadicFunc::JustifyHours
                    | VariadicFunc::JustifyInterval
                    | VariadicFunc::Age => date_funcs::eval(*func, &args),
                    VariadicFunc::Zoned(f) => tz_funcs::eval(*f, &args),
                    VariadicFunc::OidByName { noun, or_null } => {
                        crate::oid_names::eval(*noun, *or_null, &args)
                    }
                    VariadicFunc::DatePartBy(kind) | VariadicFunc::TruncBy(kind) => {
                        let [Datum::String(unit), x] = args.as_slice() else {
                            return Err(EvalError::Internal(format!("{func:?} over {args:?}")));
                        };
                        let func = match func {
                            VariadicFunc::TruncBy(_) => {
                                UnaryFunc::DateTrunc(crate::DateUnit::for_trunc(unit, *kind)?)
                            }
                            _ => UnaryFunc::DatePart(crate::DateUnit::for_extract(unit, *kind)?),
                        };
                        builtins::unary(&func, x.clone())
                    }
                    VariadicFunc::ToChar | VariadicFunc::ToNumber | VariadicFunc::ToDate => {
                        crate::to_char::eval(*func, &args)
                    }
                    _ => crate::text_funcs::variadic_strict(*func, args),
                }
            }
            ScalarExpr::If { cond, then, els } => {
                if cond.eval(row)? == Datum::Bool(true) {
                    then.eval(row)
                } else {
                    els.eval(row)
                }
            }
            ScalarExpr::Subquery(_) => Err(EvalError::Internal(
                "a subquery reached evaluation without being decorrelated".into(),
            )),
            ScalarExpr::Param(n) => Err(EvalError::Internal(format!(
                "parameter ${n} reached evaluation unbound"
            ))),
        }
    }

    /// Evaluates a predicate: only TRUE passes (NULL and FALSE filter the row out).
    pub fn eval_predicate(&self, row: &[Datum]) -> Result<bool, EvalError> {
        Ok(self.eval(row)? == Datum::Bool(true))
    }
}

fn eval_unary(func: &UnaryFunc, d: Datum) -> Result<Datum, EvalError> {
    match func {
        UnaryFunc::IsNull => return Ok(Datum::Bool(d.is_null())),
        UnaryFunc::IsNotNull => return Ok(Datum::Bool(!d.is_null())),
        UnaryFunc::MultipleRowsError => return Err(EvalError::MultipleRowsFromSubquery),
        UnaryFunc::FrameOffset { start, rows } => {
            return crate::window::check_offset(d, *start, *rows)
        }
        _ if d.is_null() => return Ok(Datum::Null),
        UnaryFunc::ToMzTimestamp => return crate::temporal::to_mz_timestamp(d),
        UnaryFunc::MzTimestampNext => return crate::temporal::mz_timestamp_next(d),
        _ => {}
    }
    Ok(match (func, d) {
        (UnaryFunc::JsonbTypeof, Datum::Jsonb(j)) => Datum::String(j.type_name().into()),
        (UnaryFunc::ToJsonb, d) => Datum::Jsonb(Box::new(crate::jsonb_build::to_json(&d)?)),
        (UnaryFunc::JsonbObjectOfPairs, d) => crate::jsonb_build::object_of_pairs(&d)?,
        (UnaryFunc::Cardinality, a) => crate::array::funcs::cardinality(a)?,
        (UnaryFunc::Not, Datum::Bool(b)) => Datum::Bool(!b),
        (UnaryFunc::Neg, Datum::Int16(i)) => Datum::Int16(
            i.checked_neg()
                .ok_or_else(|| EvalError::NumericOutOfRange("smallint".into()))?,
        ),
        (UnaryFunc::Neg, Datum::Int32(i)) => Datum::Int32(
            i.checked_neg()
                .ok_or_else(|| EvalError::NumericOutOfRange("integer".into()))?,
        ),
        (UnaryFunc::Neg, Datum::Int64(i)) => Datum::Int64(
            i.checked_neg()
                .ok_or_else(|| EvalError::NumericOutOfRange("bigint".into()))?,
        ),
        (UnaryFunc::Neg, Datum::Float32(f)) => Datum::Float32(-f),
        (UnaryFunc::Neg, Datum::Float64(f)) => Datum::Float64(-f),
        (UnaryFunc::Neg, Datum::Numeric(n)) => Datum::Numeric(n.neg()),
        (UnaryFunc::Neg, Datum::Interval(iv)) => Datum::Interval(iv.checked_neg()?),
        (UnaryFunc::Abs, Datum::Int16(i)) => Datum::Int16(
            i.checked_abs()
                .ok_or_else(|| EvalError::NumericOutOfRange("smallint".into()))?,
        ),
        (UnaryFunc::Abs, Datum::Int32(i)) => Datum::Int32(
            i.checked_abs()
                .ok_or_else(|| EvalError::NumericOutOfRange("integer".into()))?,
        ),
        (UnaryFunc::Abs, Datum::Int64(i)) => Datum::Int64(
            i.checked_abs()
                .ok_or_else(|| EvalError::NumericOutOfRange("bigint".into()))?,
        ),
        (UnaryFunc::Abs, Datum::Float32(f)) => Datum::Float32(OrderedFloat(f.0.abs())),
        (UnaryFunc::Abs, Datum::Float64(f)) => Datum::Float64(OrderedFloat(f.0.abs())),
        (UnaryFunc::Abs, Datum::Numeric(n)) => Datum::Numeric(n.abs()),
        (UnaryFunc::Upper, Datum::String(s)) => Datum::String(s.to_uppercase()),
        (UnaryFunc::Lower, Datum::String(s)) => Datum::String(s.to_lowercase()),
        (UnaryFunc::CharLength, Datum::String(s)) => Datum::Int32(s.chars().count() as i32),
        // length(bytea) and octet_length(bytea) both count bytes.
        (UnaryFunc::CharLength | UnaryFunc::OctetLength, Datum::Bytes(b)) => {
            Datum::Int32(b.len() as i32)
        }
        (UnaryFunc::BpcharToText, Datum::String(s)) => {
            Datum::String(s.trim_end_matches(' ').to_string())
        }
        (UnaryFunc::Cast(ty), d) => cast(d, ty)?,
        (func, d) => builtins::unary(func, d)?,
    })
}

/// Comparisons of any two values and numeric `+ - *`, computed over borrowed values (a
/// column's or a literal's, not cloned to be read): `eval_binary`'s result for them, and
/// `None` for the other operand types.
fn borrowed_binary(func: BinaryFunc, l: &Datum, r: &Datum) -> Option<Result<Datum, EvalError>> {
    use BinaryFunc::*;
    if l.is_null() || r.is_null() {
        return Some(Ok(Datum::Null));
    }
    let compared = |f: fn(std::cmp::Ordering) -> bool| Some(Ok(Datum::Bool(f(l.sql_cmp(r)))));
    match func {
        Eq => compared(std::cmp::Ordering::is_eq),
        NotEq => compared(std::cmp::Ordering::is_ne),
        Lt => compared(std::cmp::Ordering::is_lt),
        Lte => compared(std::cmp::Ordering::is_le),
        Gt => compared(std::cmp::Ordering::is_gt),
        Gte => compared(std::cmp::Ordering::is_ge),
        Add | Sub | Mul => {
            let (Datum::Numeric(a), Datum::Numeric(b)) = (l, r) else {
                return None;
            };
            Some(
                match func {
                    Add => a.checked_add(b),
                    Sub => a.checked_sub(b),
                    _ => a.checked_mul(b),
                }
                .map(Datum::Numeric),
            )
        }
        _ => None,
    }
}

fn eval_binary(func: BinaryFunc, l: Datum, r: Datum) -> Result<Datum, EvalError> {
    if l.is_null() || r.is_null() {
        return Ok(Datum::Null);
    }
    use BinaryFunc::*;
    Ok(match func {
        JsonbGet { .. }
        | JsonbPath { .. }
        | JsonbContains
        | JsonbExists
        | JsonbConcat
        | JsonbDelete => return crate::jsonb::eval_binary(func, l, r),
        ArrayIndex | ArrayDim(_) | ArrayContains | ArrayOverlap => {
            return crate::array::funcs::eval_binary(func, l, r)
        }
        Eq => Datum::Bool(l.sql_cmp(&r).is_eq()),
        NotEq => Datum::Bool(l.sql_cmp(&r).is_ne()),
        Lt => Datum::Bool(l.sql_cmp(&r).is_lt()),
        Lte => Datum::Bool(l.sql_cmp(&r).is_le()),
        Gt => Datum::Bool(l.sql_cmp(&r).is_gt()),
        Gte => Datum::Bool(l.sql_cmp(&r).is_ge()),
        Add | Sub | Mul | Div | Mod => arith(func, l, r)?,
        BitAnd | BitOr => {
            let and = func == BitAnd;
            match (l, r) {
                (Datum::Int16(a), Datum::Int16(b)) => Datum::Int16(if and { a & b } else { a | b }),
                (Datum::Int32(a), Datum::Int32(b)) => Datum::Int32(if and { a & b } else { a | b }),
                (Datum::Int64(a), Datum::Int64(b)) => Datum::Int64(if and { a & b } else { a | b }),
                (l, r) => return Err(EvalError::Internal(format!("{func:?} of {l:?} and {r:?}"))),
            }
        }
        Concat => {
            if let (Datum::Bytes(mut a), Datum::Bytes(b)) = (l.clone(), &r) {
                a.extend_from_slice(b);
                return Ok(Datum::Bytes(a));
            }
            let mut s = l.to_text().expect("not null");
            r.write_text(&mut s);
            Datum::String(s)
        }
        LikeEscape => match (l, r) {
            (Datum::String(p), Datum::String(e)) => Datum::String(like_escape(&p, &e)?),
            (l, r) => unreachable!("LIKE ... ESCAPE over {l:?}, {r:?}"),
        },
        Like | ILike => match (l, r) {
            (Datum::String(s), Datum::String(p)) => {
                let (s, p) = if func == ILike {
                    (s.to_lowercase(), p.to_lowercase())
                } else {
                    (s, p)
                };
                let s: Vec<char> = s.chars().collect();
                let p: Vec<char> = p.chars().collect();
                Datum::Bool(like(&s, &p)?)
            }
            (l, r) => unreachable!("LIKE over {l:?}, {r:?}"),
        },
        AddDateDays | SubDateDays => match (l, r) {
            (Datum::Date(d), Datum::Int32(n)) => {
                let n = i64::from(n);
                let n = if func == AddDateDays { n } else { -n };
                let days = chrono::Days::new(n.unsigned_abs());
                let moved = if n >= 0 {
                    d.checked_add_days(days)
                } else {
                    d.checked_sub_days(days)
                };
                Datum::Date(moved.ok_or_else(|| EvalError::DateTimeValueOutOfRange("date".into()))?)
            }
            (l, r) => unreachable!("date arithmetic over {l:?}, {r:?}"),
        },
        SubDates => match (l, r) {
            (Datum::Date(a), Datum::Date(b)) => Datum::Int32((a - b).num_days() as i32),
            (l, r) => unreachable!("date difference over {l:?}, {r:?}"),
        },
        And | Or => unreachable!("connectives are evaluated lazily"),
        _ => builtins::binary(func, l, r)?,
    })
}

/// SQL LIKE with `%`, `_` and the default escape character `\`.
/// Whether `s` matches the LIKE pattern `p` (`%`, `_`, `\\` escaping the next character). A
/// pattern ending with its escape is an error once matching reaches it with text left, as in
/// PostgreSQL (which stops without error when the text runs out first).
/// `pattern` with the escape character `escape` (one character, or none for "") written as
/// LIKE's backslash escapes (a backslash not escaped by it is then a plain backslash).
/// PostgreSQL's like_escape.
pub fn like_escape(pattern: &str, escape: &str) -> Result<String, EvalError> {
    let mut esc = escape.chars();
    let esc = match (esc.next(), esc.next()) {
        (e, None) => e,
        _ => return Err(EvalError::InvalidEscapeString),
    };
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if Some(c) == esc {
            // At the end: a trailing backslash, which fails only if matching reaches it with
            // text left, as in PostgreSQL.
            out.push('\\');
            out.extend(chars.next());
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

pub(crate) fn like(s: &[char], p: &[char]) -> Result<bool, EvalError> {
    Ok(match p.first() {
        None => s.is_empty(),
        Some('%') => {
            for i in 0..=s.len() {
                if like(&s[i..], &p[1..])? {
                    return Ok(true);
                }
            }
            false
        }
        Some('_') => !s.is_empty() && like(&s[1..], &p[1..])?,
        Some('\\') if p.len() == 1 => {
            if s.is_empty() {
                return Ok(false);
            }
            return Err(EvalError::LikePatternEndsWithEscape);
        }
        Some('\\') => s.first() == Some(&p[1]) && like(&s[1..], &p[2..])?,
        Some(c) => s.first() == Some(c) && like(&s[1..], &p[1..])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(d: Datum) -> ScalarExpr {
        ScalarExpr::Literal(d)
    }

    fn num(s: &str) -> Datum {
        Datum::Numeric(s.parse().unwrap())
    }

    /// Comparisons and numeric `+ - *` over columns and literals (read borrowed) give what
    /// the owned path gives, errors included, for values of many kinds.
    #[test]
    fn borrowed_operands_evaluate_as_owned_ones() {
        let values = [
            Datum::Null,
            num("0"),
            num("1.50"),
            num("-2.5"),
            num("99999999999999999999999999999"),
            num("NaN"),
            num("Infinity"),
            Datum::Int32(7),
            Datum::Int32(i32::MAX),
            Datum::Int64(-3),
            Datum::String("abc".into()),
            Datum::String("abd".into()),
            Datum::Bool(true),
        ];
        use BinaryFunc::*;
        for func in [Add, Sub, Mul, Eq, NotEq, Lt, Lte, Gt, Gte] {
            for l in &values {
                for r in &values {
                    let comparable = l.is_null()
                        || r.is_null()
                        || std::mem::discriminant(l) == std::mem::discriminant(r);
                    let arithmetic = matches!(func, Add | Sub | Mul);
                    if !comparable || (arithmetic && matches!(l, Datum::String(_) | Datum::Bool(_)))
                    {
                        continue;
                    }
                    let row = [l.clone(), r.clone()];
                    let expr = ScalarExpr::Column(0).call_binary(func, lit(r.clone()));
                    let owned = eval_binary(func, l.clone(), r.clone());
                    assert_eq!(
                        expr.eval(&row).ok(),
                        owned.clone().ok(),
                        "{func:?} {l:?} {r:?}"
                    );
                    assert_eq!(
                        expr.eval(&row).is_err(),
                        owned.is_err(),
                        "{func:?} {l:?} {r:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn three_valued_logic() {
        let t = lit(Datum::Bool(true));
        let f = lit(Datum::Bool(false));
        let n = lit(Datum::Null);
        let and = |a: &ScalarExpr, b: &ScalarExpr| {
            a.clone()
                .call_binary(BinaryFunc::And, b.clone())
                .eval(&[])
                .unwrap()
        };
        let or = |a: &ScalarExpr, b: &ScalarExpr| {
            a.clone()
                .call_binary(BinaryFunc::Or, b.clone())
                .eval(&[])
                .unwrap()
        };
        assert_eq!(and(&n, &f), Datum::Bool(false));
        assert_eq!(and(&n, &t), Datum::Null);
        assert_eq!(or(&n, &t), Datum::Bool(true));
        assert_eq!(or(&n, &f), Datum::Null);
        assert_eq!(
            n.clone().call_unary(UnaryFunc::Not).eval(&[]).unwrap(),
            Datum::Null
        );
    }

    #[test]
    fn integer_overflow_and_division() {
        let e = lit(Datum::Int32(i32::MAX))
            .call_binary(BinaryFunc::Add, lit(Datum::Int32(1)))
            .eval(&[])
            .unwrap_err();
        assert_eq!(e.sqlstate(), "22003");
        assert_eq!(e.to_string(), "integer out of range");
        let e = lit(Datum::Int64(1))
            .call_binary(BinaryFunc::Div, lit(Datum::Int64(0)))
            .eval(&[])
            .unwrap_err();
        assert_eq!(e.sqlstate(), "22012");
        let q = lit(Datum::Int32(-7)).call_binary(BinaryFunc::Div, lit(Datum::Int32(2)));
        assert_eq!(q.eval(&[]).unwrap(), Datum::Int32(-3));
    }

    #[test]
    fn numeric_division_scale_matches_postgres() {
        let div = |a: &str, b: &str| {
            lit(num(a))
                .call_binary(BinaryFunc::Div, lit(num(b)))
                .eval(&[])
                .unwrap()
                .to_text()
                .unwrap()
        };
        // Values checked against PostgreSQL 15.
        assert_eq!(div("1", "3"), "0.33333333333333333333");
        assert_eq!(div("10.00", "4"), "2.5000000000000000");
        assert_eq!(div("100", "7"), "14.2857142857142857");
        let mul = lit(num("0.00"))
            .call_binary(BinaryFunc::Mul, lit(num("0")))
            .eval(&[])
            .unwrap();
        assert_eq!(mul.to_text().unwrap(), "0.00");
        let sub = lit(num("1.50"))
            .call_binary(BinaryFunc::Sub, lit(num("1.5")))
            .eval(&[])
            .unwrap();
        assert_eq!(sub.to_text().unwrap(), "0.00");
    }

    #[test]
    fn like_patterns() {
        let m = |s: &str, p: &str| {
            lit(Datum::String(s.into()))
                .call_binary(BinaryFunc::Like, lit(Datum::String(p.into())))
                .eval(&[])
                .unwrap()
        };
        assert_eq!(m("hello", "h%o"), Datum::Bool(true));
        assert_eq!(m("hello", "h_llo"), Datum::Bool(true));
        assert_eq!(m("hello", "h_lo"), Datum::Bool(false));
        assert_eq!(m("50%", "50\\%"), Datum::Bool(true));
    }

    #[test]
    fn casts() {
        assert_eq!(
            cast(Datum::Float64(OrderedFloat(2.5)), &ScalarType::Int32).unwrap(),
            Datum::Int32(2)
        );
        assert_eq!(
            cast(num("2.5"), &ScalarType::Int32).unwrap(),
            Datum::Int32(3)
        );
        assert_eq!(
            cast(Datum::Bool(true), &ScalarType::Text).unwrap(),
            Datum::String("true".into())
        );
        assert_eq!(
            cast(Datum::Int64(1 << 40), &ScalarType::Int32)
                .unwrap_err()
                .sqlstate(),
            "22003"
        );
    }
}
