//! Statements about the session rather than the data — SET, RESET, SHOW of a parameter,
//! SET TRANSACTION, transaction control, DEALLOCATE and the catalog listings (SHOW TABLES,
//! SHOW INDEXES ...) — read out of sqlparser's syntax into kpg's own types when a statement is
//! parsed, so that the server routes every statement by these types and never reads the
//! syntax tree itself.
//!
//! What a statement means stays the server's: a SET's value is checked against the parameter
//! when it runs, a SHOW of an unknown name fails then. A form kpg cannot run becomes
//! `ParsedStatement::Refused`, reported when the statement runs (as PostgreSQL reports it,
//! after the statements before it in a query string).

use sqlparser::ast::{
    ContextModifier, Expr, Ident, Reset, Set, ShowStatementIn, Statement, TransactionAccessMode,
    TransactionIsolationLevel, Value,
};

use crate::names::fold;
use crate::{ParsedStatement, PlanError};

/// SET, RESET and SHOW of session parameters, and SET TRANSACTION.
#[derive(Clone, Debug, PartialEq)]
pub enum SessionStatement {
    /// `SET [LOCAL | SESSION] name = value, ...`, `SET TIME ZONE value`, `SET NAMES value`.
    /// `name` is lowercase.
    Set {
        name: String,
        value: SetValue,
        local: bool,
    },
    /// `SET TRANSACTION ...` (`session`: `SET SESSION CHARACTERISTICS AS TRANSACTION ...`).
    SetTransaction {
        modes: Vec<TransactionMode>,
        snapshot: bool,
        session: bool,
    },
    /// `RESET name` (lowercase), or `RESET ALL` (`None`).
    Reset { name: Option<String> },
    /// `SHOW name` (lowercase words joined by a space; `SHOW TIME ZONE` is `timezone`).
    Show { name: String },
}

/// The value a SET gives.
#[derive(Clone, Debug, PartialEq)]
pub enum SetValue {
    /// `DEFAULT` (and `SET TIME ZONE LOCAL | DEFAULT`): the value the session started with.
    Default,
    /// The value as text: strings without their quotes, identifiers and numbers as written,
    /// a list joined by `, ` (a search path keeps its quoted names quoted).
    Text(String),
}

/// One mode of SET TRANSACTION.
#[derive(Clone, Debug, PartialEq)]
pub enum TransactionMode {
    ReadWrite,
    ReadOnly,
    /// An isolation level, lowercase as PostgreSQL shows it (`read committed`).
    Isolation(String),
    /// `ISOLATION LEVEL SNAPSHOT`, which PostgreSQL does not have.
    IsolationSnapshot,
}

/// BEGIN, COMMIT, ROLLBACK and the savepoint statements (names folded).
#[derive(Clone, Debug, PartialEq)]
pub enum TransactionStatement {
    Begin,
    Commit,
    Rollback,
    Savepoint(String),
    Release(String),
    RollbackTo(String),
}

/// The listings of the catalog the server answers (`SHOW TABLES`, ...).
#[derive(Clone, Debug, PartialEq)]
pub enum ShowObjects {
    Tables,
    Views,
    MaterializedViews,
    /// `SHOW COLUMNS FROM name` (folded).
    Columns(String),
    Sources,
    Sinks,
    Connections,
    /// `SHOW INDEXES [ON | FROM name]` (folded).
    Indexes(Option<String>),
}

/// The typed statement for `stmt` if it is one of this file's, else `stmt` itself.
pub(crate) fn typed(stmt: Statement) -> ParsedStatement {
    match read(&stmt) {
        Some(Ok(typed)) => typed,
        Some(Err(e)) => ParsedStatement::Refused(e),
        None => match crate::copy::typed(&stmt) {
            Some(Ok(typed)) => typed,
            Some(Err(e)) => ParsedStatement::Refused(e),
            None => ParsedStatement::Sql(stmt),
        },
    }
}

fn read(stmt: &Statement) -> Option<Result<ParsedStatement, PlanError>> {
    use ParsedStatement as P;
    use SessionStatement as S;
    use TransactionStatement as T;
    Some(Ok(match stmt {
        Statement::StartTransaction { .. } => P::Transaction(T::Begin),
        Statement::Commit { .. } => P::Transaction(T::Commit),
        Statement::Rollback {
            savepoint: None, ..
        } => P::Transaction(T::Rollback),
        Statement::Rollback {
            savepoint: Some(name),
            chain: false,
        } => P::Transaction(T::RollbackTo(fold(name))),
        Statement::Rollback { .. } => {
            return Some(Err(PlanError::unsupported(
                "ROLLBACK AND CHAIN TO SAVEPOINT",
            )))
        }
        Statement::Savepoint { name } => P::Transaction(T::Savepoint(fold(name))),
        Statement::ReleaseSavepoint { name } => P::Transaction(T::Release(fold(name))),
        Statement::Deallocate { name, .. } => P::Deallocate {
            name: (name.quote_style.is_some() || !name.value.eq_ignore_ascii_case("all"))
                .then(|| fold(name)),
        },
        Statement::Set(set) => match set_statement(set) {
            Ok(s) => P::Session(s),
            Err(e) => return Some(Err(e)),
        },
        Statement::Reset(reset) => match &reset.reset {
            Reset::ALL => P::Session(S::Reset { name: None }),
            Reset::ConfigurationParameter(name) => P::Session(S::Reset {
                name: Some(name.to_string().to_lowercase()),
            }),
            Reset::SessionAuthorization => return None,
        },
        Statement::ShowTables { .. } => P::ShowObjects(ShowObjects::Tables),
        Statement::ShowViews { materialized, .. } => P::ShowObjects(match materialized {
            true => ShowObjects::MaterializedViews,
            false => ShowObjects::Views,
        }),
        Statement::ShowColumns { show_options, .. } => match &show_options.show_in {
            Some(ShowStatementIn {
                parent_name: Some(name),
                ..
            }) => P::ShowObjects(ShowObjects::Columns(fold_text(&name.to_string()))),
            _ => return Some(Err(PlanError::syntax("SHOW COLUMNS needs FROM <relation>"))),
        },
        Statement::ShowVariable { variable } => return show_variable(stmt, variable),
        _ => return None,
    }))
}

/// `SHOW words...` (`stmt`): a listing of the catalog, or a parameter.
fn show_variable(stmt: &Statement, words: &[Ident]) -> Option<Result<ParsedStatement, PlanError>> {
    let first = |w: &str| {
        words
            .first()
            .is_some_and(|i| i.value.eq_ignore_ascii_case(w))
    };
    let listing = match words.len() {
        1 if first("sources") => Some(ShowObjects::Sources),
        1 if first("sinks") => Some(ShowObjects::Sinks),
        1 if first("connections") => Some(ShowObjects::Connections),
        _ => None,
    };
    if let Some(listing) = listing {
        return Some(Ok(ParsedStatement::ShowObjects(listing)));
    }
    if first("indexes") {
        return Some(match words {
            [_] => Ok(ParsedStatement::ShowObjects(ShowObjects::Indexes(None))),
            [_, on, name]
                if on.value.eq_ignore_ascii_case("on") || on.value.eq_ignore_ascii_case("from") =>
            {
                Ok(ParsedStatement::ShowObjects(ShowObjects::Indexes(Some(
                    fold_text(&name.to_string()),
                ))))
            }
            _ => Err(PlanError::syntax("expected SHOW INDEXES [ON <relation>]")),
        });
    }
    if first("sources") || first("sinks") || first("connections") || first("create") {
        // Not a parameter's name, nor a listing kpg has.
        return Some(Err(PlanError::unsupported(
            crate::statement::statement_name(stmt),
        )));
    }
    let name = words
        .iter()
        .map(|i| i.value.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    // SHOW TIME ZONE is SHOW TimeZone, as SET TIME ZONE sets it.
    let name = match name.as_str() {
        "time zone" => "timezone".to_string(),
        _ => name,
    };
    Some(Ok(ParsedStatement::Session(SessionStatement::Show {
        name,
    })))
}

fn set_statement(set: &Set) -> Result<SessionStatement, PlanError> {
    Ok(match set {
        Set::SingleAssignment {
            scope,
            variable,
            values,
            ..
        } => {
            let name = variable.to_string().to_lowercase();
            let value = match values.as_slice() {
                [v] if is_default(v) => SetValue::Default,
                // A search path keeps its quoted names quoted, as PostgreSQL shows it.
                vs if name == "search_path" => SetValue::Text(
                    vs.iter()
                        .map(|v| match v {
                            Expr::Identifier(i) if i.quote_style.is_some() => {
                                format!("\"{}\"", i.value)
                            }
                            v => value_text(v),
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                vs => SetValue::Text(vs.iter().map(value_text).collect::<Vec<_>>().join(", ")),
            };
            SessionStatement::Set {
                name,
                value,
                local: matches!(scope, Some(ContextModifier::Local)),
            }
        }
        Set::SetTimeZone { local, value } => {
            // SET TIME ZONE LOCAL | DEFAULT is RESET TimeZone.
            let default = matches!(value, Expr::Identifier(i) if i.quote_style.is_none()
                && ["local", "default"].contains(&i.value.to_lowercase().as_str()));
            SessionStatement::Set {
                name: "timezone".into(),
                value: match default {
                    true => SetValue::Default,
                    false => SetValue::Text(value_text(value)),
                },
                local: *local,
            }
        }
        Set::SetNames { charset_name, .. } => SessionStatement::Set {
            name: "client_encoding".into(),
            value: SetValue::Text(charset_name.to_string().trim_matches(['\'', '"']).into()),
            local: false,
        },
        Set::SetTransaction {
            modes,
            snapshot,
            session,
        } => SessionStatement::SetTransaction {
            modes: modes.iter().map(transaction_mode).collect(),
            snapshot: snapshot.is_some(),
            session: *session,
        },
        _ => return Err(PlanError::unsupported("this form of SET")),
    })
}

fn transaction_mode(mode: &sqlparser::ast::TransactionMode) -> TransactionMode {
    use sqlparser::ast::TransactionMode as M;
    match mode {
        M::AccessMode(TransactionAccessMode::ReadWrite) => TransactionMode::ReadWrite,
        M::AccessMode(TransactionAccessMode::ReadOnly) => TransactionMode::ReadOnly,
        M::IsolationLevel(TransactionIsolationLevel::Snapshot) => {
            TransactionMode::IsolationSnapshot
        }
        M::IsolationLevel(level) => TransactionMode::Isolation(level.to_string().to_lowercase()),
    }
}

fn is_default(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default"))
}

/// A SET value as text: strings without their quotes, identifiers and numbers as written.
fn value_text(e: &Expr) -> String {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        Expr::Identifier(i) => i.value.clone(),
        other => other.to_string(),
    }
}

/// PostgreSQL's folding of a name written as text: a quoted name keeps its case.
pub(crate) fn fold_text(name: &str) -> String {
    match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
        Some(quoted) => quoted.to_string(),
        None => name.to_lowercase(),
    }
}
