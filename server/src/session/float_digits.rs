//! What kpg refuses while `extra_float_digits` is 0 or below: converting values to text inside
//! a query.
//!
//! PostgreSQL prints a float with `%.*g` at these settings wherever it turns it into text: in
//! results, in COPY, and inside expressions (`d::text`, `d || 'x'`, `concat(d)`). kpg follows
//! the setting in results and COPY (`encode.rs`), but an expression's text of a float is
//! computed by the dataflow (or folded by the planner) with the default digits, and a
//! materialized view keeps the text it computed. So that an ad hoc query never differs
//! silently, a statement that may convert a value to text is refused with 0A000 at these
//! settings: one whose SQL casts to a string type, uses `||` or calls `concat`, `concat_ws` or
//! `format`, or whose plan converts to text (conversions the planner inserts, and those inside
//! plain views, which are planned in place). Types are not known here, so text-to-text
//! conversions are refused too. Materialized views are read as stored (README).

use kpg_sql::{sql_converts_to_text, ParsedStatement, PlannedStatement};

use crate::error::ExecError;

/// Whether a plan (its debug text) converts a value to text.
fn plan_converts_to_text(plan: &PlannedStatement) -> bool {
    let text = format!("{plan:?}");
    [
        "Cast(Text)",
        "Cast(VarChar",
        "Cast(Char",
        "Concat",
        "Zoned(ToText)",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Why converting values to text inside a query is refused under `style`, if it is: floats
/// with `extra_float_digits` at 0 or below, dates, timestamps and intervals in a DateStyle or
/// IntervalStyle other than the defaults (expressions print them as ISO and postgres do),
/// bytea under `bytea_output = 'escape'` (expressions print hex).
pub fn refusal(style: &kpg_types::OutputStyle) -> Option<&'static str> {
    if style.extra_float_digits <= 0 {
        Some("while extra_float_digits is 0 or below (kpg writes the text of a float in an expression with the default digits)")
    } else if !style.dates.is_default_style() {
        Some("while DateStyle is not ISO or IntervalStyle is not postgres (kpg writes the text of a date, timestamp or interval in an expression in the default styles)")
    } else if style.bytea_escape {
        Some(
            "while bytea_output is escape (kpg writes the text of a bytea in an expression in hex)",
        )
    } else {
        None
    }
}

/// Refuses `stmt` (planned as `planned`) if it may convert a value to text inside an
/// expression, saying `why` (`refusal`): by its SQL, or by its plan (a COPY's and a cursor's
/// plan hold their query's).
pub fn check(
    stmt: &ParsedStatement,
    planned: &PlannedStatement,
    why: &str,
) -> Result<(), ExecError> {
    let Some(sql) = stmt.computing_sql() else {
        return Ok(());
    };
    if sql_converts_to_text(&sql) || plan_converts_to_text(planned) {
        return Err(ExecError::unsupported(format!(
            "converting values to text inside a query {why}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_conversions_to_text_in_sql() {
        for sql in [
            "SELECT d::text FROM f",
            "SELECT d :: varchar(10) FROM f",
            "SELECT CAST(d AS text) FROM f",
            "SELECT cast(d + 1 AS character varying) FROM f",
            "SELECT d || 'x' FROM f",
            "SELECT concat(d, 'x') FROM f",
            "SELECT format('%s', d) FROM f",
        ] {
            assert!(sql_converts_to_text(sql), "{sql}");
        }
        for sql in [
            "SELECT d AS text FROM f",
            "SELECT CAST(d AS float4) AS text FROM f",
            "SELECT \"concat\" FROM f",
            "SELECT d::float4, 'a::text' FROM f",
        ] {
            assert!(!sql_converts_to_text(sql), "{sql}");
        }
    }
}
