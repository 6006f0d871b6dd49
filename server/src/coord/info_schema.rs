//! The rows of `information_schema.schemata`, `tables`, `columns` and `views`, from the same
//! snapshot as pg_catalog's (see `pg_rows.rs`), following PostgreSQL's definitions: indexes
//! are not listed, nor are materialized views (PostgreSQL's information_schema omits them).

use kpg_types::{format_type, Datum, ScalarType};

use super::pg_catalog::system_row;
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

system_row! {
    /// A row of `information_schema.schemata`.
    InfoSchemata {
        catalog_name: 't',
        schema_name: 't',
        schema_owner: 't',
        default_character_set_catalog: 't',
        default_character_set_schema: 't',
        default_character_set_name: 't',
        sql_path: 't',
    }
}

pub fn schemata(s: &Snapshot) -> Vec<Vec<Datum>> {
    super::pg_rows::namespaces(s)
        .iter()
        .map(|n| {
            let name = super::pg_rows::nspname(*n);
            InfoSchemata {
                catalog_name: t(kpg_sql::DATABASE),
                schema_name: t(name),
                schema_owner: t(ROLE.1),
                default_character_set_catalog: N,
                default_character_set_schema: N,
                default_character_set_name: N,
                sql_path: N,
            }
            .into_row()
        })
        .collect()
}

system_row! {
    /// A row of `information_schema.tables`.
    InfoTables {
        table_catalog: 't',
        table_schema: 't',
        table_name: 't',
        table_type: 't',
        self_referencing_column_name: 't',
        reference_generation: 't',
        user_defined_type_catalog: 't',
        user_defined_type_schema: 't',
        user_defined_type_name: 't',
        is_insertable_into: 't',
        is_typed: 't',
        commit_action: 't',
    }
}

pub fn tables(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
        .iter()
        .filter(|r| listed(r))
        .map(|r| {
            let table = users_table(r);
            let kind = match (r.kind, r.namespace) {
                ('r', NS_PG_TEMP) => "LOCAL TEMPORARY",
                ('r', _) => "BASE TABLE",
                _ => "VIEW",
            };
            InfoTables {
                table_catalog: t(kpg_sql::DATABASE),
                table_schema: t(schema(r)),
                table_name: t(&r.name),
                table_type: t(kind),
                self_referencing_column_name: N,
                reference_generation: N,
                user_defined_type_catalog: N,
                user_defined_type_schema: N,
                user_defined_type_name: N,
                is_insertable_into: yes_no(table),
                is_typed: t("NO"),
                commit_action: N,
            }
            .into_row()
        })
        .collect()
}

system_row! {
    /// A row of `information_schema.columns`.
    InfoColumns {
        table_catalog: 't',
        table_schema: 't',
        table_name: 't',
        column_name: 't',
        ordinal_position: 'i',
        column_default: 't',
        is_nullable: 't',
        data_type: 't',
        character_maximum_length: 'i',
        character_octet_length: 'i',
        numeric_precision: 'i',
        numeric_precision_radix: 'i',
        numeric_scale: 'i',
        datetime_precision: 'i',
        udt_catalog: 't',
        udt_schema: 't',
        udt_name: 't',
        is_identity: 't',
        is_generated: 't',
        is_updatable: 't',
    }
}

pub fn columns(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
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
                    InfoColumns {
                        table_catalog: t(kpg_sql::DATABASE),
                        table_schema: t(schema(r)),
                        table_name: t(&r.name),
                        column_name: t(col),
                        ordinal_position: i(n as i32 + 1),
                        column_default: r.defaults.get(n).cloned().flatten().map_or(N, t),
                        // NOT NULL is a constraint: only tables have one.
                        is_nullable: yes_no(ty.nullable || r.kind != 'r'),
                        data_type: t(data_type(sc)),
                        character_maximum_length: chars.map_or(N, i),
                        character_octet_length: chars.map_or(N, |c| i(c * 4)),
                        numeric_precision: precision.map_or(N, i),
                        numeric_precision_radix: radix.map_or(N, i),
                        numeric_scale: scale.map_or(N, i),
                        datetime_precision: dt_precision.map_or(N, i),
                        udt_catalog: t(kpg_sql::DATABASE),
                        udt_schema: t("pg_catalog"),
                        udt_name: t(udt_name(sc)),
                        is_identity: t("NO"),
                        is_generated: t("NEVER"),
                        is_updatable: yes_no(users_table(r)),
                    }
                    .into_row()
                })
        })
        .collect()
}

system_row! {
    /// A row of `information_schema.views`.
    InfoViews {
        table_catalog: 't',
        table_schema: 't',
        table_name: 't',
        view_definition: 't',
        check_option: 't',
        is_updatable: 't',
        is_insertable_into: 't',
        is_trigger_updatable: 't',
        is_trigger_deletable: 't',
        is_trigger_insertable_into: 't',
    }
}

pub fn views(s: &Snapshot) -> Vec<Vec<Datum>> {
    s.relations
        .iter()
        .filter(|r| r.kind == 'v')
        .map(|r| {
            InfoViews {
                table_catalog: t(kpg_sql::DATABASE),
                table_schema: t(schema(r)),
                table_name: t(&r.name),
                view_definition: r.sql.as_ref().map_or(N, t),
                check_option: t("NONE"),
                is_updatable: t("NO"),
                is_insertable_into: t("NO"),
                is_trigger_updatable: t("NO"),
                is_trigger_deletable: t("NO"),
                is_trigger_insertable_into: t("NO"),
            }
            .into_row()
        })
        .collect()
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
