//! Errors raised while evaluating expressions, each with its PostgreSQL SQLSTATE.
//!
//! These errors travel inside dataflows (a maintained view whose input makes an expression fail
//! holds the error until the input is retracted), so they are data: `Clone`, `Ord`, serializable.
//! The messages follow PostgreSQL's wording so that clients and tests see familiar text.

use serde::{Deserialize, Serialize};

#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, thiserror::Error,
)]
pub enum EvalError {
    #[error("division by zero")]
    DivisionByZero,
    #[error("{0} out of range")]
    NumericOutOfRange(String),
    #[error("value \"{value}\" is out of range for type {type_name}")]
    OutOfRangeValue { value: String, type_name: String },
    #[error("value overflows numeric format")]
    NumericOverflow,
    #[error("value out of range: overflow")]
    FloatOverflow,
    /// A value whose text a float type cannot hold (PostgreSQL's float input message).
    #[error("\"{value}\" is out of range for type {type_name}")]
    FloatInputOutOfRange { value: String, type_name: String },
    /// A value kpg does not implement (0A000).
    #[error("{0} not supported")]
    Unsupported(String),
    #[error("value out of range: underflow")]
    FloatUnderflow,
    #[error("numeric field overflow")]
    NumericFieldOverflow { precision: u16, scale: i16 },
    #[error("invalid input syntax for type {type_name}: \"{value}\"")]
    InvalidTextRepresentation { type_name: String, value: String },
    #[error("value too long for type character varying({max_length})")]
    StringTooLong { max_length: usize },
    #[error("null value in column \"{0}\" violates not-null constraint")]
    NullValueNotAllowed(String),
    #[error("more than one row returned by a subquery used as an expression")]
    MultipleRowsFromSubquery,
    #[error("value too long for type character({length})")]
    CharTooLong { length: usize },
    #[error("negative substring length not allowed")]
    NegativeSubstringLength,
    #[error("invalid regular expression: {0}")]
    InvalidRegex(String),
    /// sqrt of a negative number, or power() with arguments it has no real value for.
    #[error("{0}")]
    InvalidPowerArgument(String),
    /// ln or log of zero or a negative number.
    #[error("{0}")]
    InvalidLogArgument(String),
    #[error("LIKE pattern must not end with escape character")]
    LikePatternEndsWithEscape,
    /// An ESCAPE of more than one character.
    #[error("invalid escape string")]
    InvalidEscapeString,
    /// A string function asked for a result longer than PostgreSQL allocates (1 GB).
    #[error("requested length too large")]
    LengthTooLarge,
    /// A broken invariant of kpg's own, reported rather than panicking a worker.
    #[error("internal error: {0}")]
    Internal(String),
    /// A read of an index, view or table that was dropped before its data was complete at the
    /// read's time (40001: running the query again plans it without the dropped object).
    #[error("the index or relation this query read was dropped before the query could read it; run the query again")]
    ReadTargetDropped,
    /// A date/time field out of range, such as February 30.
    #[error("date/time field value out of range: \"{0}\"")]
    DateTimeFieldOverflow(String),
    /// A date or timestamp beyond what its type holds.
    #[error("{type_name} out of range: \"{value}\"")]
    DateTimeOutOfRange { type_name: String, value: String },
    /// A time zone offset beyond ±15:59:59.
    #[error("time zone displacement out of range: \"{0}\"")]
    TimeZoneDisplacementOverflow(String),
    /// to_timestamp of NaN.
    #[error("timestamp cannot be NaN")]
    TimestampNaN,
    /// A time zone name that is not known.
    #[error("time zone \"{0}\" not recognized")]
    UnknownTimeZone(String),
    /// A date, timestamp or interval computed beyond what its type holds ("interval out of
    /// range").
    #[error("{0} out of range")]
    DateTimeValueOutOfRange(String),
    /// An interval field out of range, such as 61 minutes in `25:61:61`.
    #[error("interval field value out of range: \"{0}\"")]
    IntervalFieldOverflow(String),
    /// 22023, with PostgreSQL's message.
    #[error("{0}")]
    InvalidParameterValue(String),
    /// 22P02 with PostgreSQL's message, where it names no value (bad bytea escapes).
    #[error("{0}")]
    InvalidTextSyntax(String),
    /// 54000, with PostgreSQL's message.
    #[error("{0}")]
    ProgramLimitExceeded(String),
    /// 22P02: array text that does not parse, with PostgreSQL's DETAIL line.
    #[error("malformed array literal: \"{value}\"")]
    MalformedArrayLiteral { value: String, detail: String },
    #[error("argument of ntile must be greater than zero")]
    NtileArgument,
    #[error("argument of nth_value must be greater than zero")]
    NthValueArgument,
    /// 22004: a window frame's offset is NULL ("starting" or "ending").
    #[error("frame {0} offset must not be null")]
    NullFrameOffset(String),
    /// 22013: a window frame's offset is negative, with PostgreSQL's message.
    #[error("{0}")]
    NegativeFrameOffset(String),
    /// 42P01: a relation name an OID type's input does not find.
    #[error("relation \"{0}\" does not exist")]
    UndefinedTable(String),
    /// 42704 with PostgreSQL's message: another object an OID type's input does not find.
    #[error("{0}")]
    UndefinedObject(String),
    /// 0A000 with PostgreSQL's message (a date/time unit a function has no meaning for).
    #[error("{0}")]
    FeatureNotSupported(String),
    /// An infinite numeric for a `numeric(p,s)` type (22003).
    #[error("numeric field overflow")]
    NumericFieldInfinite { precision: u16, scale: i16 },
    /// A bad `to_char`/`to_number` picture (42601), with PostgreSQL's message.
    #[error("{0}")]
    SyntaxError(String),
    /// A bad picture with PostgreSQL's DETAIL line (42601).
    #[error("{message}")]
    SyntaxErrorDetail { message: String, detail: String },
    /// 22007 with PostgreSQL's message (a datetime picture or text that does not fit it).
    #[error("{0}")]
    InvalidDatetimeFormat(String),
    /// NaN or an infinity cast to an integer type (0A000, as PostgreSQL): `what` is "NaN" or
    /// "infinity".
    #[error("cannot convert {what} to {type_name}")]
    NumericSpecialToInteger { what: String, type_name: String },
}

/// Errors are arranged like rows but rarely many: no sort key (the engine's default).
impl kpg_sortkey::SortKey for EvalError {}
/// Errors are few: a batch stores plain clones (the default).
impl kpg_sortkey::ArenaCopy for EvalError {}

impl EvalError {
    /// The DETAIL line PostgreSQL sends with this error, if any.
    pub fn detail(&self) -> Option<String> {
        match self {
            EvalError::NumericFieldOverflow { precision, scale } => {
                let digits = i32::from(*precision) - i32::from(*scale);
                let bound = match digits {
                    0 => "1".to_string(),
                    d => format!("10^{d}"),
                };
                Some(format!(
                    "A field with precision {precision}, scale {scale} must round to an \
                     absolute value less than {bound}."
                ))
            }
            EvalError::MalformedArrayLiteral { detail, .. } => Some(detail.clone()),
            EvalError::SyntaxErrorDetail { detail, .. } => Some(detail.clone()),
            EvalError::NumericFieldInfinite { precision, scale } => Some(format!(
                "A field with precision {precision}, scale {scale} cannot hold an infinite value."
            )),
            _ => None,
        }
    }

    /// The PostgreSQL SQLSTATE code for this error.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            EvalError::DivisionByZero => "22012",
            EvalError::NumericOutOfRange(_)
            | EvalError::OutOfRangeValue { .. }
            | EvalError::NumericOverflow
            | EvalError::FloatOverflow
            | EvalError::FloatInputOutOfRange { .. }
            | EvalError::FloatUnderflow
            | EvalError::NumericFieldOverflow { .. }
            | EvalError::NumericFieldInfinite { .. } => "22003",
            // PostgreSQL reports bad date/time text as invalid_datetime_format.
            EvalError::InvalidTextRepresentation { type_name, .. }
                if matches!(
                    type_name.as_str(),
                    "date" | "time" | "timestamp" | "timestamp with time zone" | "interval"
                ) =>
            {
                "22007"
            }
            EvalError::SyntaxError(_) | EvalError::SyntaxErrorDetail { .. } => "42601",
            EvalError::InvalidDatetimeFormat(_) => "22007",
            EvalError::InvalidTextRepresentation { .. }
            | EvalError::InvalidTextSyntax(_)
            | EvalError::MalformedArrayLiteral { .. } => "22P02",
            EvalError::StringTooLong { .. } | EvalError::CharTooLong { .. } => "22001",
            EvalError::NullValueNotAllowed(_) => "23502",
            EvalError::MultipleRowsFromSubquery => "21000",
            EvalError::NegativeSubstringLength => "22011",
            EvalError::InvalidRegex(_) => "2201B",
            EvalError::InvalidPowerArgument(_) => "2201F",
            EvalError::InvalidLogArgument(_) => "2201E",
            EvalError::LengthTooLarge => "54000",
            EvalError::LikePatternEndsWithEscape | EvalError::InvalidEscapeString => "22025",
            // PostgreSQL reports NaN and infinities cast to integers as not supported.
            EvalError::Unsupported(_)
            | EvalError::NumericSpecialToInteger { .. }
            | EvalError::FeatureNotSupported(_) => "0A000",
            EvalError::Internal(_) => "XX000",
            EvalError::ReadTargetDropped => "40001",
            EvalError::DateTimeFieldOverflow(_)
            | EvalError::DateTimeOutOfRange { .. }
            | EvalError::DateTimeValueOutOfRange(_)
            | EvalError::TimestampNaN => "22008",
            EvalError::TimeZoneDisplacementOverflow(_) => "22009",
            EvalError::UnknownTimeZone(_) => "22023",
            EvalError::IntervalFieldOverflow(_) => "22015",
            EvalError::InvalidParameterValue(_) => "22023",
            EvalError::ProgramLimitExceeded(_) => "54000",
            EvalError::UndefinedTable(_) => "42P01",
            EvalError::NullFrameOffset(_) => "22004",
            EvalError::NegativeFrameOffset(_) => "22013",
            EvalError::UndefinedObject(_) => "42704",
            EvalError::NtileArgument => "22014",
            EvalError::NthValueArgument => "22016",
        }
    }
}
