//! The SQL planner: sqlparser's AST in, typed plans out, seeing the catalog only through the
//! `Catalog` trait so that it is tested without a runtime.
//!
//! `parse` turns text into statements (syntax errors are SQLSTATE 42601); `plan` binds one
//! statement against the catalog — resolving names, typing expressions with PostgreSQL's rules,
//! inserting casts — and lowers queries to the render `Plan` of `kpg_types`. What kpg does not
//! support yet is refused with SQLSTATE 0A000, never approximated.
//!
//! Files follow SQL constructs: `parse`/`subscribe` (text → statements), `statement` (dispatch),
//! `ddl`, `dml`, `query` (ORDER BY/LIMIT, set operations, VALUES, WITH), `recursive` (WITH
//! RECURSIVE), `select`, `join` (FROM and WHERE), `aggregate` (GROUP BY and aggregates),
//! `expr`/`ops`/`func`/`builtin` (expression binding and typing), `types` (SQL types and
//! coercions), `scope`/`names` (name resolution) and `fold` (constant folding). `optimize`
//! runs the rewrites after binding: `pushdown` (predicates), `demand` (projections),
//! `join_order` and `index_reuse`. `pg_compat`
//! holds what PostgreSQL clients' catalog queries need (regex operators, `reg*` casts,
//! pg_catalog functions) and `empty_from` the rule for SELECTs over empty system catalogs.

mod aggregate;
mod arrays;
mod builtin;
mod catalog;
pub mod connection;
mod constraints;
mod copy;
mod cursor;
mod ddl;
mod defaults;
mod demand;
mod dml;
mod empty_from;
mod error;
mod estimate;
mod explain;
mod explain_text;
mod expr;
pub mod external_source;
mod fold;
mod func;
mod grouping_sets;
mod index;
mod index_reuse;
mod join;
mod join_order;
mod jsonb_ops;
mod names;
mod ops;
mod optimize;
mod params;
mod parse;
mod pg_compat;
mod plan_params;
mod pushdown;
mod query;
mod recursive;
mod rows;
mod scalar_funcs;
mod scope;
mod select;
mod select_srf;
mod session_statement;
mod session_zone;
mod share;
mod show_create;
pub mod sink;
mod source;
mod statement;
mod statement_kind;
mod subquery;
mod subscribe;
mod temporal;
mod types;
mod using;
mod widen;
mod window;
mod words;
mod zoned_casts;
mod zoned_funcs;
mod zoned_ops;

#[cfg(test)]
mod tests;

pub use catalog::{
    read_plan, Catalog, CatalogItem, IndexItem, ItemKind, PgLookup, RecordingCatalog,
};
pub use constraints::UniqueKey;
pub use copy::{CopyFormat, CopyFrom, CopyFromPlan, CopyTo};
pub use cursor::{CursorOptions, Fetch, FetchDirection};
pub use defaults::ColumnDefault;
pub use dml::{Arbiter, ConflictAction, OnConflict, Returning};
pub use error::PlanError;
pub use estimate::Statistics;
pub use explain::{ExplainStage, ExplainTarget};
pub use index_reuse::{index_with_key, use_indexes};
pub use join_order::{new_join_arrangements, order_joins};
pub use names::fold as fold_ident;
pub use optimize::{optimize, physical_plan};
pub use params::{parameter_count, parameter_not_allowed, ParamValue};
pub use pg_compat::{DATABASE, OWNER};
pub use plan_params::{bind_values, plan_bound, plan_prepared, values_now, Prepared};
pub use session_statement::{
    SessionStatement, SetValue, ShowObjects, TransactionMode, TransactionStatement,
};
pub use show_create::ShowCreateObject;
pub use source::{tpch_statistics, CreateSource, PlannedExport, SourceTables};
pub use statement::{
    plan_session_statement, ColumnOrder, ParsedStatement, PlannedStatement, RowSetFinishing,
    SubscribeOptions, SubscribeTarget,
};
pub use statement_kind::{sql_converts_to_text, StatementKind};
pub use temporal::check_maintained as check_temporal;

/// Parses SQL text into statements.
pub fn parse(sql: &str) -> Result<Vec<ParsedStatement>, PlanError> {
    parse::parse(sql)
}

/// Plans one parsed statement against the catalog.
pub fn plan(stmt: &ParsedStatement, catalog: &dyn Catalog) -> Result<PlannedStatement, PlanError> {
    let clock = session_zone::input_clock(stmt, catalog);
    kpg_types::datetime::with_date_input(catalog.input_style(), clock, || {
        session_zone::with_zone(catalog.time_zone(), catalog.clock(), || {
            statement::plan_statement(stmt, catalog)
        })
    })
}
