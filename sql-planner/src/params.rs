//! Statement parameters (`$1`, `$2`, ...) of the extended query protocol: how many a statement
//! text has, and binding values to them.
//!
//! kpg binds parameters by rewriting the statement's text: each `$n` token is replaced by a
//! literal and the text is parsed and planned again, so a bound statement goes through exactly
//! the planning a statement with literals gets. A parameter whose type the client declared
//! becomes `CAST('value' AS type)`, as in PostgreSQL, where such a parameter has that type. A
//! parameter whose type kpg inferred (see `param_types.rs`) becomes an untyped string literal,
//! which the planner types from its context by the same rules PostgreSQL uses for unknown
//! parameters, so an inference that is less precise than PostgreSQL's still plans like it.
//! Tokens are found with sqlparser's tokenizer, so `$1` inside a string or a comment is left
//! alone.

use crate::error::PlanError;
use crate::types::internal_name;
use kpg_types::ScalarType;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

/// A value bound to one parameter: its text (PostgreSQL's text input form; `None` is NULL) and
/// the type the client declared for it, if it did.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamValue {
    pub text: Option<String>,
    pub declared: Option<ScalarType>,
}

/// One `$n` token: its number and where it is in the text (byte range).
struct Placeholder {
    number: usize,
    start: usize,
    end: usize,
}

fn placeholders(sql: &str) -> Result<Vec<Placeholder>, PlanError> {
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| PlanError::syntax(e.message))?;
    // Byte offset of the start of each line, to turn (line, column) locations into offsets.
    let mut line_starts = vec![0];
    line_starts.extend(sql.match_indices('\n').map(|(i, _)| i + 1));
    let offset = |line: u64, column: u64| -> usize {
        let start = line_starts
            .get(line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(sql.len());
        sql[start..]
            .char_indices()
            .nth(column.saturating_sub(1) as usize)
            .map_or(sql.len(), |(i, _)| start + i)
    };
    let mut out = Vec::new();
    for t in tokens {
        let Token::Placeholder(p) = &t.token else {
            continue;
        };
        let number = p
            .strip_prefix('$')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| no_parameter(p))?;
        let start = offset(t.span.start.line, t.span.start.column);
        out.push(Placeholder {
            number,
            start,
            end: start + p.len(),
        });
    }
    Ok(out)
}

fn no_parameter(p: &str) -> PlanError {
    PlanError::new("42P02", format!("there is no parameter {p}"))
}

/// The number of parameters the statement text refers to (the highest `$n`); `$0` and other
/// malformed placeholders are 42P02.
pub fn parameter_count(sql: &str) -> Result<usize, PlanError> {
    Ok(placeholders(sql)?
        .iter()
        .map(|p| p.number)
        .max()
        .unwrap_or(0))
}

/// The error PostgreSQL gives for a parameter in a statement that cannot have any (DDL, a
/// view's defining query, a statement sent without values).
pub fn parameter_not_allowed(sql: &str) -> Result<(), PlanError> {
    match placeholders(sql)?.first() {
        Some(p) => Err(no_parameter(&format!("${}", p.number))),
        None => Ok(()),
    }
}

/// The statement text with every `$n` replaced by the literal for `values[n - 1]`.
pub fn bind_parameters(sql: &str, values: &[ParamValue]) -> Result<String, PlanError> {
    let mut out = String::with_capacity(sql.len() + 16 * values.len());
    let mut at = 0;
    for p in placeholders(sql)? {
        let value = values
            .get(p.number - 1)
            .ok_or_else(|| no_parameter(&format!("${}", p.number)))?;
        out.push_str(&sql[at..p.start]);
        out.push_str(&literal(value));
        at = p.end;
    }
    out.push_str(&sql[at..]);
    Ok(out)
}

/// The SQL literal for a bound value, parenthesized so that it binds like one operand.
fn literal(value: &ParamValue) -> String {
    let text = match &value.text {
        None => "NULL".to_string(),
        Some(t) => format!("'{}'", t.replace('\'', "''")),
    };
    match &value.declared {
        None => text,
        Some(ty @ ScalarType::Array(_)) => format!("(CAST({text} AS {}[]))", internal_name(ty)),
        Some(ty) => format!("(CAST({text} AS {}))", internal_name(ty)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: Option<&str>, declared: Option<ScalarType>) -> ParamValue {
        ParamValue {
            text: text.map(str::to_string),
            declared,
        }
    }

    #[test]
    fn counts_placeholders_outside_strings() {
        assert_eq!(parameter_count("SELECT 1").unwrap(), 0);
        assert_eq!(
            parameter_count("SELECT $2, '$5' -- $7\n FROM t WHERE a = $1").unwrap(),
            2
        );
        assert_eq!(parameter_count("SELECT $0").unwrap_err().code, "42P02");
        assert_eq!(
            parameter_not_allowed("CREATE VIEW v AS SELECT $1")
                .unwrap_err()
                .message,
            "there is no parameter $1"
        );
    }

    #[test]
    fn binds_literals_in_place() {
        let sql = "SELECT 'é$1', $1 FROM t\nWHERE b = $2 AND c = $1 LIMIT $3";
        let out = bind_parameters(
            sql,
            &[
                v(Some("it's"), None),
                v(None, Some(ScalarType::Int64)),
                v(Some("5"), Some(ScalarType::Int32)),
            ],
        )
        .unwrap();
        assert_eq!(
            out,
            "SELECT 'é$1', 'it''s' FROM t\nWHERE b = (CAST(NULL AS int8)) AND c = 'it''s' \
             LIMIT (CAST('5' AS int4))"
        );
        assert_eq!(
            bind_parameters("SELECT $2", &[v(None, None)])
                .unwrap_err()
                .code,
            "42P02"
        );
    }
}
