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

use kpg_sql::sqlparser::ast::Statement;
use kpg_sql::sqlparser::dialect::PostgreSqlDialect;
use kpg_sql::sqlparser::tokenizer::{Token, Tokenizer};
use kpg_sql::{ParsedStatement, PlannedStatement, SubscribeTarget};

use crate::coord::Coordinator;
use crate::copy_out;
use crate::error::ExecError;

/// Type names that make a cast a conversion to text.
const STRING_TYPES: &[&str] = &["text", "varchar", "char", "character", "bpchar", "name"];

/// Functions that convert their arguments to text.
const TO_TEXT_FUNCTIONS: &[&str] = &["concat", "concat_ws", "format"];

/// The SQL text of the part of `stmt` that computes values, if it computes any a client sees
/// or a table stores (not definitions: a materialized view's text is fixed when it is built).
fn computing_sql(stmt: &ParsedStatement) -> Option<String> {
    match stmt {
        ParsedStatement::Sql(
            s @ (Statement::Query(_)
            | Statement::Insert(_)
            | Statement::Update { .. }
            | Statement::Delete(_)
            | Statement::Copy { .. }),
        ) => Some(s.to_string()),
        ParsedStatement::Subscribe {
            target: SubscribeTarget::Query(q),
            ..
        } => Some(q.to_string()),
        ParsedStatement::Declare { target, .. } => computing_sql(target),
        _ => None,
    }
}

/// Whether the SQL `text` converts a value to text: a cast to a string type, `||`, or a call
/// of a function that turns its arguments into text.
fn sql_converts_to_text(text: &str) -> bool {
    let Ok(tokens) = Tokenizer::new(&PostgreSqlDialect {}, text).tokenize() else {
        return false;
    };
    let tokens: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let word = |i: usize| match tokens.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_lowercase()),
        _ => None,
    };
    let string_type = |i: usize| word(i).is_some_and(|w| STRING_TYPES.contains(&w.as_str()));
    // Depths at which an open CAST( waits for its AS.
    let mut casts: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::StringConcat => return true,
            Token::DoubleColon if string_type(i + 1) => return true,
            Token::LParen => depth += 1,
            Token::RParen => {
                casts.retain(|d| *d != depth);
                depth = depth.saturating_sub(1);
            }
            Token::Word(_) => {
                let w = word(i).unwrap_or_default();
                let call = matches!(tokens.get(i + 1), Some(Token::LParen));
                if call && (w == "cast" || w == "try_cast") {
                    casts.push(depth + 1);
                } else if (call && TO_TEXT_FUNCTIONS.contains(&w.as_str()))
                    || (w == "as" && casts.last() == Some(&depth) && string_type(i + 1))
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

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

/// Refuses `stmt` if it may convert a value to text inside an expression, saying `why`
/// (`refusal`). The statement (a COPY's query) is planned to see its plan's
/// conversions; an error there is left for running it to report.
pub fn check(stmt: &ParsedStatement, coord: &Coordinator, why: &str) -> Result<(), ExecError> {
    let Some(sql) = computing_sql(stmt) else {
        return Ok(());
    };
    let planned = match stmt {
        ParsedStatement::Declare { target, .. } => coord.plan(target),
        s => match copy_out::plan(s) {
            Some(Ok(copy)) => coord.plan(&copy.query),
            _ => coord.plan(s),
        },
    };
    if sql_converts_to_text(&sql) || planned.is_ok_and(|p| plan_converts_to_text(&p)) {
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
