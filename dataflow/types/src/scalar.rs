//! SQL scalar types and relation schemas.
//!
//! `ScalarType` is the closed set of column types kpg understands; every value a dataflow moves
//! is a `Datum` of one of them (see `datum.rs`). A `RelationDesc` names and types the columns of a
//! collection. Both are shared by the planner (which types expressions) and the server (which
//! reports PostgreSQL type OIDs to clients), so the PostgreSQL-facing facts live here too.

use crate::interval::IntervalTypmod;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The type of a SQL value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarType {
    Bool,
    /// `smallint` (int2).
    Int16,
    Int32,
    Int64,
    /// `real` (float4).
    Float32,
    Float64,
    /// `numeric(precision, scale)`; `None` means unconstrained. The scale may be negative
    /// (rounding left of the point) or larger than the precision, as in PostgreSQL 15.
    Numeric {
        precision: Option<u16>,
        scale: Option<i16>,
    },
    Text,
    /// `varchar(n)`; `None` means no length limit.
    VarChar {
        max_length: Option<u32>,
    },
    Date,
    /// `char(n)` (`bpchar`): blank-padded to `n` characters; `None` is `bpchar` without a
    /// length, which pads nothing. Trailing blanks are insignificant in comparisons and are
    /// removed when the value becomes text.
    Char {
        length: Option<u32>,
    },
    /// `timestamp without time zone`, microsecond precision.
    Timestamp,
    Interval,
    /// `interval` with a qualifier or a seconds precision (`interval day to second(2)`): the
    /// type of a column or a cast, which cuts the values it takes to the modifier.
    /// Expressions have the plain `Interval` type (the planner drops the modifier where it
    /// reads such a column), so only column types and casts carry it.
    IntervalOf(IntervalTypmod),
    /// `timestamp(p)`: a timestamp column or cast rounding to `p` (0 to 6) fractional digits.
    /// Expressions have the plain `Timestamp` type, as with `IntervalOf`.
    TimestampOf(u8),
    /// `timestamp with time zone`: a UTC instant, microsecond precision, shown in the
    /// session's zone (`datetime/tstz.rs`).
    TimestampTz,
    /// `timestamptz(p)`, carried as `TimestampOf` is.
    TimestampTzOf(u8),
    /// `time without time zone`, microsecond precision, up to 24:00:00.
    Time,
    /// `time(p)`, carried as `TimestampOf` is.
    TimeOf(u8),
    Uuid,
    /// `jsonb`.
    Jsonb,
    Bytea,
    /// A one-dimensional array of the element type (`array.rs`).
    Array(crate::array::ArrayElem),
    /// `int2vector` (`array/int2vector.rs`).
    Int2Vector,
    /// The record `(x elem, n integer)` of `information_schema._pg_expandarray`
    /// (`array/record.rs`).
    ExpandedElement(crate::array::ArrayElem),
}

impl ScalarType {
    /// The unconstrained numeric type.
    pub const NUMERIC: ScalarType = ScalarType::Numeric {
        precision: None,
        scale: None,
    };

    /// The type of arrays of `elem`.
    pub fn array_of(elem: ScalarType) -> ScalarType {
        ScalarType::Array(crate::array::ArrayElem::new(elem))
    }

    /// The element type, when this is an array type (`int2vector` is one of smallints).
    pub fn element(&self) -> Option<ScalarType> {
        match self {
            ScalarType::Array(e) => Some(e.get()),
            ScalarType::Int2Vector => Some(ScalarType::Int16),
            _ => None,
        }
    }

    /// The PostgreSQL type OID clients see for this type.
    pub fn oid(&self) -> u32 {
        match self {
            ScalarType::Bool => 16,
            ScalarType::Int64 => 20,
            ScalarType::Int16 => 21,
            ScalarType::Int32 => 23,
            ScalarType::Text => 25,
            ScalarType::Float32 => 700,
            ScalarType::Float64 => 701,
            ScalarType::VarChar { .. } => 1043,
            ScalarType::Char { .. } => 1042,
            ScalarType::Date => 1082,
            ScalarType::Timestamp => 1114,
            ScalarType::Interval | ScalarType::IntervalOf(_) => 1186,
            ScalarType::Numeric { .. } => 1700,
            ScalarType::TimestampOf(_) => 1114,
            ScalarType::TimestampTz | ScalarType::TimestampTzOf(_) => 1184,
            ScalarType::Time | ScalarType::TimeOf(_) => 1083,
            ScalarType::Uuid => 2950,
            ScalarType::Jsonb => 3802,
            ScalarType::Bytea => 17,
            ScalarType::Array(e) => crate::array::array_oid(e.get().oid()),
            ScalarType::Int2Vector => 22,
            ScalarType::ExpandedElement(_) => 2249,
        }
    }

    /// The PostgreSQL type modifier (`atttypmod`) clients see, or -1.
    pub fn typmod(&self) -> i32 {
        match self {
            ScalarType::Numeric {
                precision: Some(p),
                scale,
            } => ((i32::from(*p) << 16) | (i32::from(scale.unwrap_or(0)) & 0x7ff)) + 4,
            ScalarType::VarChar {
                max_length: Some(n),
            } => *n as i32 + 4,
            ScalarType::Char { length: Some(n) } => *n as i32 + 4,
            ScalarType::IntervalOf(t) => t.typmod(),
            ScalarType::TimestampOf(p) | ScalarType::TimeOf(p) | ScalarType::TimestampTzOf(p) => {
                i32::from(*p)
            }
            _ => -1,
        }
    }

    /// Whether values of the two types are stored with the same `Datum` variant, so that
    /// comparisons between them need no cast.
    pub fn same_family(&self, other: &ScalarType) -> bool {
        self.base() == other.base()
    }

    /// The type with its modifiers (precision, length) removed.
    pub fn base(&self) -> ScalarType {
        match self {
            ScalarType::Numeric { .. } => ScalarType::NUMERIC,
            ScalarType::VarChar { .. } => ScalarType::Text,
            ScalarType::Char { .. } => ScalarType::Char { length: None },
            ScalarType::IntervalOf(_) => ScalarType::Interval,
            ScalarType::TimestampOf(_) => ScalarType::Timestamp,
            ScalarType::TimestampTzOf(_) => ScalarType::TimestampTz,
            ScalarType::TimeOf(_) => ScalarType::Time,
            ScalarType::Array(e) => ScalarType::array_of(e.get().base()),
            other => *other,
        }
    }

    /// The type with no length, precision or scale: what a common type keeps when its inputs'
    /// modifiers differ, and how PostgreSQL names a type in type-matching errors.
    pub fn without_modifiers(&self) -> ScalarType {
        match self {
            ScalarType::Numeric { .. } => ScalarType::NUMERIC,
            ScalarType::VarChar { .. } => ScalarType::VarChar { max_length: None },
            ScalarType::Char { .. } => ScalarType::Char { length: None },
            ScalarType::IntervalOf(_) => ScalarType::Interval,
            ScalarType::TimestampOf(_) => ScalarType::Timestamp,
            ScalarType::TimestampTzOf(_) => ScalarType::TimestampTz,
            ScalarType::TimeOf(_) => ScalarType::Time,
            ScalarType::Array(e) => ScalarType::array_of(e.get().without_modifiers()),
            other => *other,
        }
    }

    /// The type of an expression that reads a column of this type: an interval's modifier,
    /// which only cuts the values the column takes, goes (PostgreSQL's operators and
    /// functions drop it too), so expressions only ever see plain `Interval`; likewise a
    /// timestamp's or time's precision.
    pub fn value_type(&self) -> ScalarType {
        match self {
            ScalarType::IntervalOf(_) => ScalarType::Interval,
            ScalarType::TimestampOf(_) => ScalarType::Timestamp,
            ScalarType::TimestampTzOf(_) => ScalarType::TimestampTz,
            ScalarType::TimeOf(_) => ScalarType::Time,
            ScalarType::Array(e) => ScalarType::array_of(e.get().value_type()),
            other => *other,
        }
    }

    /// Whether SQL-equal values of this type can print differently: `3` and `3.00` in a
    /// numeric without a fixed scale, `'1 day'` and `'24 hours'`, a float's `0` and `-0`. Keys
    /// hold one canonical member of each class (`Datum::canonical`), so a plan that must tell
    /// such values apart keys them by their text as well.
    pub fn equal_values_differ_in_text(&self) -> bool {
        if let ScalarType::Array(e) = self {
            return e.get().equal_values_differ_in_text();
        }
        matches!(
            self,
            ScalarType::Numeric { scale: None, .. }
                | ScalarType::Interval
                | ScalarType::IntervalOf(_)
                | ScalarType::Float32
                | ScalarType::Float64
        )
    }

    pub fn is_numeric_family(&self) -> bool {
        matches!(
            self,
            ScalarType::Int16
                | ScalarType::Int32
                | ScalarType::Int64
                | ScalarType::Float32
                | ScalarType::Float64
                | ScalarType::Numeric { .. }
        )
    }

    pub fn is_string(&self) -> bool {
        matches!(
            self,
            ScalarType::Text | ScalarType::VarChar { .. } | ScalarType::Char { .. }
        )
    }
}

impl fmt::Display for ScalarType {
    /// PostgreSQL's name for the type, as used in error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarType::Bool => write!(f, "boolean"),
            ScalarType::Int16 => write!(f, "smallint"),
            ScalarType::Int32 => write!(f, "integer"),
            ScalarType::Int64 => write!(f, "bigint"),
            ScalarType::Float32 => write!(f, "real"),
            ScalarType::Float64 => write!(f, "double precision"),
            ScalarType::Numeric {
                precision: Some(p),
                scale,
            } => write!(f, "numeric({},{})", p, scale.unwrap_or(0)),
            ScalarType::Numeric { .. } => write!(f, "numeric"),
            ScalarType::Text => write!(f, "text"),
            ScalarType::VarChar {
                max_length: Some(n),
            } => write!(f, "character varying({n})"),
            ScalarType::VarChar { .. } => write!(f, "character varying"),
            ScalarType::Char { length: Some(n) } => write!(f, "character({n})"),
            ScalarType::Char { length: None } => write!(f, "character"),
            ScalarType::Date => write!(f, "date"),
            ScalarType::Timestamp => write!(f, "timestamp without time zone"),
            ScalarType::Interval => write!(f, "interval"),
            ScalarType::IntervalOf(t) => write!(f, "{t}"),
            ScalarType::TimestampOf(p) => write!(f, "timestamp({p}) without time zone"),
            ScalarType::TimestampTz => write!(f, "timestamp with time zone"),
            ScalarType::TimestampTzOf(p) => write!(f, "timestamp({p}) with time zone"),
            ScalarType::Time => write!(f, "time without time zone"),
            ScalarType::TimeOf(p) => write!(f, "time({p}) without time zone"),
            ScalarType::Uuid => write!(f, "uuid"),
            ScalarType::Jsonb => write!(f, "jsonb"),
            ScalarType::Bytea => write!(f, "bytea"),
            ScalarType::Array(e) => write!(f, "{}[]", e.get()),
            ScalarType::Int2Vector => write!(f, "int2vector"),
            ScalarType::ExpandedElement(_) => write!(f, "record"),
        }
    }
}

/// A column's type and whether it may hold NULL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ColumnType {
    pub scalar: ScalarType,
    pub nullable: bool,
}

impl ColumnType {
    pub fn new(scalar: ScalarType, nullable: bool) -> Self {
        ColumnType { scalar, nullable }
    }
}

/// Names and types of the columns of a relation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RelationDesc {
    pub columns: Vec<(String, ColumnType)>,
}

impl RelationDesc {
    pub fn new(columns: Vec<(String, ColumnType)>) -> Self {
        RelationDesc { columns }
    }

    pub fn arity(&self) -> usize {
        self.columns.len()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|(n, _)| n.as_str())
    }

    pub fn types(&self) -> impl Iterator<Item = &ColumnType> {
        self.columns.iter().map(|(_, t)| t)
    }

    /// The columns as expressions reading them see them (`ScalarType::value_type`).
    pub fn value_types(&self) -> RelationDesc {
        let columns = self.columns.iter().map(|(n, t)| {
            let ty = ColumnType::new(t.scalar.value_type(), t.nullable);
            (n.clone(), ty)
        });
        RelationDesc::new(columns.collect())
    }
}
