//! The rows of `information_schema.schemata`, `tables`, `columns` and `views`, from the same
//! snapshot as pg_catalog's (see `pg_rows.rs`), following PostgreSQL's definitions: indexes
//! are not listed, nor are materialized views (PostgreSQL's information_schema omits them).

use kpg_types::{format_type, Datum, ScalarType};

use super::pg_rows::{Relation, Snapshot, NS_PG_TEMP, NS_PUBLIC, ROLE};

fn t(s: impl Into<String>) -> Datum {
    Datum::String(s.into())
}

fn i(v: i32) -> Datum {
    Datum::Int32(v)
}

const N: Datum = Datum::Null;

fn schema(r: &Relation) -> String {
    super::pg_rows::nspname(r.namespace)
}

/// Whether `r` is a table users write (shared or temporary).
fn users_table(r: &Relation) -> bool {
    r.kind == 'r' && matches!(r.namespace, NS_PUBLIC | NS_PG_TEMP)
}

fn listed(r: &Relation) -> bool {
    matches!(r.kind, 'r' | 'v')
}

fn yes_no(v: bool) -> Datum {
    t(if v { "YES" } else { "NO" })
}

pub fn rows(name: &str, s: &Snapshot) -> Vec<Vec<Datum>> {
    let db = kpg_sql::DATABASE;
    match name {
        "schemata" => super::pg_rows::namespaces(s)
            .iter()
            .map(|n| {
                let name = super::pg_rows::nspname(*n);
                vec![t(db), t(name), t(ROLE.1), N, N, N, N]
            })
            .collect(),
        "tables" => s
            .relations
            .iter()
            .filter(|r| listed(r))
            .map(|r| {
                let table = users_table(r);
                let kind = match (r.kind, r.namespace) {
                    ('r', NS_PG_TEMP) => "LOCAL TEMPORARY",
                    ('r', _) => "BASE TABLE",
                    _ => "VIEW",
                };
                vec![
                    t(db),
                    t(schema(r)),
                    t(&r.name),
                    t(kind),
                    N,
                    N,
                    N,
                    N,
                    N,
                    yes_no(table),
                    t("NO"),
                    N,
                ]
            })
            .collect(),
        "columns" => s
            .relations
            .iter()
            .filter(|r| listed(r))
            .flat_map(|r| {
                r.desc
                    .columns
                    .iter()
                    .enumerate()
                    .map(move |(n, (col, ty))| {
                        let sc = &ty.scalar;
                        let (chars, precision, radix, scale, dt_precision) = measures(sc);
                        vec![
                            t(db),
                            t(schema(r)),
                            t(&r.name),
                            t(col),
                            i(n as i32 + 1),
                            r.defaults.get(n).cloned().flatten().map_or(N, t),
                            // NOT NULL is a constraint: only tables have one.
                            yes_no(ty.nullable || r.kind != 'r'),
                            t(data_type(sc)),
                            chars.map_or(N, i),
                            chars.map_or(N, |c| i(c * 4)),
                            precision.map_or(N, i),
                            radix.map_or(N, i),
                            scale.map_or(N, i),
                            dt_precision.map_or(N, i),
                            t(db),
                            t("pg_catalog"),
                            t(udt_name(sc)),
                            t("NO"),
                            t("NEVER"),
                            yes_no(users_table(r)),
                        ]
                    })
            })
            .collect(),
        "views" => s
            .relations
            .iter()
            .filter(|r| r.kind == 'v')
            .map(|r| {
                vec![
                    t(db),
                    t(schema(r)),
                    t(&r.name),
                    r.sql.as_ref().map_or(N, t),
                    t("NONE"),
                    t("NO"),
                    t("NO"),
                    t("NO"),
                    t("NO"),
                    t("NO"),
                ]
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The type's name in information_schema: format_type without modifiers, `ARRAY` for arrays.
fn data_type(ty: &ScalarType) -> String {
    match ty {
        ScalarType::Array(_) => "ARRAY".to_string(),
        _ => format_type(ty.oid().into(), None),
    }
}

/// The type's `typname`: an array's is its element's with `_` in front.
fn udt_name(ty: &ScalarType) -> String {
    match ty.element() {
        Some(elem) if ty.oid() != 22 => {
            format!("_{}", super::pg_rows::type_name(elem.oid().into()))
        }
        _ => super::pg_rows::type_name(ty.oid().into()).to_string(),
    }
}

/// (character_maximum_length, numeric_precision, numeric_precision_radix, numeric_scale,
/// datetime_precision) as PostgreSQL reports them.
#[allow(clippy::type_complexity)]
fn measures(
    ty: &ScalarType,
) -> (
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
) {
    match ty {
        ScalarType::VarChar { max_length } => {
            (max_length.map(|n| n as i32), None, None, None, None)
        }
        ScalarType::Char { length } => (length.map(|n| n as i32), None, None, None, None),
        ScalarType::Int16 => (None, Some(16), Some(2), Some(0), None),
        ScalarType::Int32 => (None, Some(32), Some(2), Some(0), None),
        ScalarType::Int64 => (None, Some(64), Some(2), Some(0), None),
        ScalarType::Float32 => (None, Some(24), Some(2), None, None),
        ScalarType::Float64 => (None, Some(53), Some(2), None, None),
        ScalarType::Numeric { precision, scale } => (
            None,
            precision.map(i32::from),
            Some(10),
            scale.map(i32::from),
            None,
        ),
        ScalarType::Date => (None, None, None, None, Some(0)),
        ScalarType::Timestamp
        | ScalarType::TimestampTz
        | ScalarType::Time
        | ScalarType::Interval => (None, None, None, None, Some(6)),
        ScalarType::TimestampOf(p) | ScalarType::TimeOf(p) | ScalarType::TimestampTzOf(p) => {
            (None, None, None, None, Some(i32::from(*p)))
        }
        ScalarType::IntervalOf(t) => {
            let digits = t.precision.map_or(6, i32::from);
            (None, None, None, None, Some(digits))
        }
        _ => (None, None, None, None, None),
    }
}
