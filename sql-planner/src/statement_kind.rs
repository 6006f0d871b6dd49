//! What the server needs to know of a statement before it is planned — which family it belongs
//! to, whether it returns rows, whether a transaction block can run it — answered from the
//! syntax here, so that the server routes statements without reading sqlparser's tree.

use sqlparser::ast::{SetExpr, Statement, TableFactor};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::names::fold;
use crate::{ParsedStatement, SubscribeTarget};

/// The family of a standard SQL statement (`ParsedStatement::Sql`); `Other` for the rest and
/// for kpg's own statements, which are told apart by their `ParsedStatement` variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatementKind {
    /// A query that reads: SELECT, VALUES, WITH ... (not SELECT INTO).
    Query,
    /// `SELECT ... INTO t`: creates and fills a table.
    SelectInto,
    Insert {
        returning: bool,
        on_conflict: bool,
    },
    Update {
        returning: bool,
    },
    Delete {
        returning: bool,
    },
    CreateTable {
        or_replace: bool,
    },
    /// `CREATE TABLE ... AS query`: creates a table and fills it.
    CreateTableAs,
    CreateView {
        or_replace: bool,
        materialized: bool,
    },
    CreateIndex,
    Drop,
    Alter,
    Truncate,
    Other,
}

impl StatementKind {
    /// INSERT, UPDATE or DELETE.
    pub fn is_write(self) -> bool {
        matches!(
            self,
            StatementKind::Insert { .. }
                | StatementKind::Update { .. }
                | StatementKind::Delete { .. }
        )
    }

    /// A write with RETURNING.
    pub fn returns_rows(self) -> bool {
        matches!(
            self,
            StatementKind::Insert {
                returning: true,
                ..
            } | StatementKind::Update { returning: true }
                | StatementKind::Delete { returning: true }
        )
    }

    /// CREATE TABLE (AS), VIEW, MATERIALIZED VIEW or INDEX.
    pub fn is_create(self) -> bool {
        matches!(
            self,
            StatementKind::CreateTable { .. }
                | StatementKind::CreateTableAs
                | StatementKind::CreateView { .. }
                | StatementKind::CreateIndex
        )
    }
}

impl ParsedStatement {
    /// The family of the statement (see `StatementKind`).
    pub fn kind(&self) -> StatementKind {
        let ParsedStatement::Sql(stmt) = self else {
            return StatementKind::Other;
        };
        match stmt {
            Statement::Query(q) => match q.body.as_ref() {
                SetExpr::Select(s) if s.into.is_some() => StatementKind::SelectInto,
                _ => StatementKind::Query,
            },
            Statement::Insert(i) => StatementKind::Insert {
                returning: i.returning.is_some(),
                on_conflict: i.on.is_some(),
            },
            Statement::Update(u) => StatementKind::Update {
                returning: u.returning.is_some(),
            },
            Statement::Delete(d) => StatementKind::Delete {
                returning: d.returning.is_some(),
            },
            Statement::CreateTable(t) if t.query.is_some() => StatementKind::CreateTableAs,
            Statement::CreateTable(t) => StatementKind::CreateTable {
                or_replace: t.or_replace,
            },
            Statement::CreateView(v) => StatementKind::CreateView {
                or_replace: v.or_replace,
                materialized: v.materialized,
            },
            Statement::CreateIndex(_) => StatementKind::CreateIndex,
            Statement::Drop { .. } => StatementKind::Drop,
            Statement::AlterTable(_)
            | Statement::AlterIndex { .. }
            | Statement::AlterView { .. }
            | Statement::AlterSchema(_)
            | Statement::AlterRole { .. } => StatementKind::Alter,
            Statement::Truncate(_) => StatementKind::Truncate,
            _ => StatementKind::Other,
        }
    }

    /// The statement's text for a scan of the names it mentions: a standard statement's SQL
    /// (short), the debug form of kpg's own.
    pub fn scan_text(&self) -> String {
        match self {
            ParsedStatement::Sql(sql) => sql.to_string(),
            other => format!("{other:?}"),
        }
    }

    /// The SQL text of the part of the statement that computes values a client sees or a
    /// table stores: a query's, a write's, a COPY TO's query, a SUBSCRIBE's or a cursor's
    /// query. `None` for definitions (a materialized view's values are fixed when it is built)
    /// and statements that compute nothing.
    pub fn computing_sql(&self) -> Option<String> {
        match self {
            ParsedStatement::Sql(
                s @ (Statement::Query(_)
                | Statement::Insert(_)
                | Statement::Update { .. }
                | Statement::Delete(_)),
            ) => Some(s.to_string()),
            ParsedStatement::CopyTo(copy) => copy.query.computing_sql(),
            ParsedStatement::Subscribe {
                target: SubscribeTarget::Query(q),
                ..
            } => Some(q.to_string()),
            ParsedStatement::Declare { target, .. } => target.computing_sql(),
            _ => None,
        }
    }

    /// The SQL of a CREATE VIEW's defining query.
    pub fn view_query_sql(&self) -> Option<String> {
        match self {
            ParsedStatement::Sql(Statement::CreateView(cv)) => Some(cv.query.to_string()),
            _ => None,
        }
    }

    /// The table a query reads alone, if it is `SELECT ... FROM name` (one table, no join,
    /// no function call, no set operation): the name, folded.
    pub fn single_table_read(&self) -> Option<String> {
        let ParsedStatement::Sql(Statement::Query(query)) = self else {
            return None;
        };
        let SetExpr::Select(select) = query.body.as_ref() else {
            return None;
        };
        let [from] = select.from.as_slice() else {
            return None;
        };
        if !from.joins.is_empty() {
            return None;
        }
        let TableFactor::Table {
            name, args: None, ..
        } = &from.relation
        else {
            return None;
        };
        name.0.last().and_then(|part| part.as_ident()).map(fold)
    }
}

/// Type names that make a cast a conversion to text.
const STRING_TYPES: &[&str] = &["text", "varchar", "char", "character", "bpchar", "name"];

/// Functions that convert their arguments to text.
const TO_TEXT_FUNCTIONS: &[&str] = &["concat", "concat_ws", "format"];

/// Whether the SQL `text` may convert a value to text: a cast to a string type, `||`, or a
/// call of a function that turns its arguments into text. Types are not known here, so
/// text-to-text conversions count too.
pub fn sql_converts_to_text(text: &str) -> bool {
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
