//! Statement parameters (`$1`, `$2`, ...) of the extended query protocol, as the statement's
//! text has them: how many it refers to, whether it may have any, and the values a Bind
//! gives them (`ParamValue`). Planning with parameters is `plan_params.rs`. Tokens are found
//! with sqlparser's tokenizer, so `$1` inside a string or a comment is not counted.

use crate::error::PlanError;
use kpg_types::ScalarType;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

/// A value bound to one parameter: its text (PostgreSQL's text input form; `None` is NULL) and
/// the type it is read as, if it has one (the client declared it, or planning fixed it).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamValue {
    pub text: Option<String>,
    pub declared: Option<ScalarType>,
}

/// The number of each `$n` token of `sql`, in order.
fn placeholders(sql: &str) -> Result<Vec<usize>, PlanError> {
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize()
        .map_err(|e| PlanError::syntax(e.message))?;
    let mut out = Vec::new();
    for t in tokens {
        let Token::Placeholder(p) = &t else {
            continue;
        };
        let number = p
            .strip_prefix('$')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| no_parameter(p))?;
        out.push(number);
    }
    Ok(out)
}

fn no_parameter(p: &str) -> PlanError {
    PlanError::new("42P02", format!("there is no parameter {p}"))
}

/// The number of parameters the statement text refers to (the highest `$n`); `$0` and other
/// malformed placeholders are 42P02.
pub fn parameter_count(sql: &str) -> Result<usize, PlanError> {
    Ok(placeholders(sql)?.into_iter().max().unwrap_or(0))
}

/// The error PostgreSQL gives for a parameter in a statement that cannot have any (DDL, a
/// view's defining query, a statement sent without values).
pub fn parameter_not_allowed(sql: &str) -> Result<(), PlanError> {
    match placeholders(sql)?.first() {
        Some(n) => Err(no_parameter(&format!("${n}"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
