//! Planning errors, each carrying the PostgreSQL SQLSTATE a client should see.
//!
//! Constructors are named after the PostgreSQL condition they stand for, and their messages
//! follow PostgreSQL's wording, so that clients (and tests comparing with PostgreSQL) see the
//! text they expect.

use kpg_types::EvalError;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PlanError {
    /// Five-character SQLSTATE, e.g. "42P01".
    pub code: &'static str,
    pub message: String,
    /// 1-based character position in the statement text, where known.
    pub position: Option<usize>,
    /// PostgreSQL's DETAIL line, where it sends one.
    pub detail: Option<String>,
    /// An aggregate found inside a subquery that belongs to an enclosing query (its
    /// arguments read only that query's columns): its SQL text, and how many more SELECT
    /// levels the error must pass before it reaches that query (see `select::plan_select`).
    pub outer_aggregate: Option<(String, usize)>,
}

impl PlanError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        PlanError {
            code,
            message: message.into(),
            position: None,
            detail: None,
            outer_aggregate: None,
        }
    }

    pub fn syntax(message: impl Into<String>) -> Self {
        Self::new("42601", message)
    }

    pub fn unsupported(what: impl std::fmt::Display) -> Self {
        Self::new("0A000", format!("{what} not supported"))
    }

    /// A subquery where the expression's context joins no subquery values (`ExprContext::host`
    /// is unset). Callers that can bind again with a host recognise it by `no_subqueries_here`.
    pub fn subqueries_not_allowed(clause: &str) -> Self {
        Self::unsupported(format!("subqueries in {clause}"))
    }

    /// Whether this is `subqueries_not_allowed`.
    pub fn no_subqueries_here(&self) -> bool {
        self.code == "0A000" && self.message.starts_with("subqueries in ")
    }

    pub fn undefined_table(name: &str) -> Self {
        Self::new("42P01", format!("relation \"{name}\" does not exist"))
    }

    pub fn undefined_column(name: &str) -> Self {
        Self::new("42703", format!("column \"{name}\" does not exist"))
    }

    pub fn datatype_mismatch(message: impl Into<String>) -> Self {
        Self::new("42804", message)
    }

    pub fn undefined_function(message: impl Into<String>) -> Self {
        Self::new("42883", message)
    }

    pub fn grouping(message: impl Into<String>) -> Self {
        Self::new("42803", message)
    }

    pub fn wrong_object_type(message: impl Into<String>) -> Self {
        Self::new("42809", message)
    }

    /// A parser error, with the position translated from sqlparser's "Line: l, Column: c" to
    /// a 1-based character offset into `sql`.
    pub(crate) fn from_parser(e: sqlparser::parser::ParserError, sql: &str) -> Self {
        let text = e.to_string();
        let message = text
            .strip_prefix("sql parser error: ")
            .unwrap_or(&text)
            .to_string();
        let position = line_column(&message).and_then(|(l, c)| char_offset(sql, l, c));
        let message = match message.find(" at Line: ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        PlanError {
            position,
            ..Self::syntax(message)
        }
    }
}

fn line_column(message: &str) -> Option<(usize, usize)> {
    let rest = &message[message.rfind("Line: ")? + "Line: ".len()..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let col: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((line.trim().parse().ok()?, col.parse().ok()?))
}

fn char_offset(sql: &str, line: usize, column: usize) -> Option<usize> {
    if line == 0 || column == 0 {
        return None;
    }
    let mut offset = 0;
    for (i, l) in sql.split('\n').enumerate() {
        if i + 1 == line {
            return Some(offset + column);
        }
        offset += l.chars().count() + 1;
    }
    None
}

impl From<EvalError> for PlanError {
    fn from(e: EvalError) -> Self {
        PlanError {
            detail: e.detail(),
            ..PlanError::new(e.sqlstate(), e.to_string())
        }
    }
}
