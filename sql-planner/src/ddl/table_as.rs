//! `CREATE TABLE t AS query [WITH [NO] DATA]` and `SELECT ... INTO [TABLE] t FROM ...`: a new
//! table with the query's columns, filled once with its rows (it is not a view: later writes to
//! the query's inputs do not change it).
//!
//! The query is planned as a top-level read, so its rows are written in the order it returns
//! them (its ORDER BY, or the scan order of a plain scan), as PostgreSQL inserts them. The
//! columns take the query's names and types, all nullable, without constraints or defaults, as
//! in PostgreSQL; an untyped literal column becomes text. `CREATE TABLE t (a, b) AS ...`, which
//! sqlparser does not read, is read here (`parse_create_table_as_names`): the names rename the
//! first columns, kept in the statement as columns without a type.

use crate::catalog::Catalog;
use crate::error::PlanError;
use crate::names::{fold, object_name};
use crate::query::{plan_read, QueryContext};
use crate::statement::{ParsedStatement, PlannedStatement};
use sqlparser::ast::{
    ColumnDef, CreateTable, DataType, Expr, Ident, ObjectName, Query, SetExpr, Statement, WithData,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Whether the parser is at `CREATE TABLE [IF NOT EXISTS] name (col, ...) AS`: a column list of
/// bare names, which only CREATE TABLE AS has.
pub(crate) fn at_create_table_as_names(parser: &Parser) -> bool {
    let token = |i: usize| &parser.peek_nth_token_ref(i).token;
    let keyword = |i: usize, k: Keyword| matches!(token(i), Token::Word(w) if w.keyword == k);
    if !(keyword(0, Keyword::CREATE) && keyword(1, Keyword::TABLE)) {
        return false;
    }
    let mut i = 2;
    if keyword(2, Keyword::IF) && keyword(3, Keyword::NOT) && keyword(4, Keyword::EXISTS) {
        i = 5;
    }
    // The name: words separated by dots.
    loop {
        if !matches!(token(i), Token::Word(_)) {
            return false;
        }
        i += 1;
        if *token(i) != Token::Period {
            break;
        }
        i += 1;
    }
    if *token(i) != Token::LParen {
        return false;
    }
    i += 1;
    loop {
        if !matches!(token(i), Token::Word(_)) {
            return false;
        }
        i += 1;
        match token(i) {
            Token::Comma => i += 1,
            Token::RParen => break,
            _ => return false,
        }
    }
    keyword(i + 1, Keyword::AS)
}

/// Parses `CREATE TABLE [IF NOT EXISTS] name (col, ...) AS query [WITH [NO] DATA]`.
pub(crate) fn parse_create_table_as_names(
    parser: &mut Parser,
) -> Result<ParsedStatement, ParserError> {
    parser.expect_keyword_is(Keyword::CREATE)?;
    parser.expect_keyword_is(Keyword::TABLE)?;
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    parser.expect_token(&Token::LParen)?;
    let mut names = vec![parser.parse_identifier()?];
    while parser.consume_token(&Token::Comma) {
        names.push(parser.parse_identifier()?);
    }
    parser.expect_token(&Token::RParen)?;
    parser.expect_keyword_is(Keyword::AS)?;
    let query = parser.parse_query()?;
    let with_data = if parser.parse_keywords(&[Keyword::WITH, Keyword::NO, Keyword::DATA]) {
        Some(false)
    } else if parser.parse_keywords(&[Keyword::WITH, Keyword::DATA]) {
        Some(true)
    } else {
        None
    };
    // The rest of the statement from a template, so that every other field is as sqlparser
    // leaves it.
    let template = Parser::parse_sql(&PostgreSqlDialect {}, "CREATE TABLE t AS SELECT 1")?;
    let Some(Statement::CreateTable(mut ct)) = template.into_iter().next() else {
        return Err(ParserError::ParserError("CREATE TABLE AS template".into()));
    };
    ct.name = name;
    ct.if_not_exists = if_not_exists;
    ct.query = Some(query);
    ct.with_data = with_data.map(|data| WithData {
        data,
        statistics: None,
    });
    ct.columns = names
        .into_iter()
        .map(|name| ColumnDef {
            name,
            data_type: DataType::Unspecified,
            options: Vec::new(),
        })
        .collect();
    Ok(ParsedStatement::Sql(Statement::CreateTable(ct)))
}

pub fn plan_create_table_as(
    ct: &CreateTable,
    query: &Query,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let typed = |c: &ColumnDef| c.data_type != DataType::Unspecified || !c.options.is_empty();
    if ct.columns.iter().any(typed) || !ct.constraints.is_empty() {
        return Err(PlanError::syntax(
            "syntax error: CREATE TABLE ... AS takes column names without types or constraints",
        ));
    }
    let names: Vec<&Ident> = ct.columns.iter().map(|c| &c.name).collect();
    let with_data = ct.with_data.as_ref().is_none_or(|w| w.data);
    plan_table_as(
        &ct.name,
        ct.if_not_exists,
        ct.temporary,
        &names,
        query,
        with_data,
        catalog,
    )
}

/// `SELECT ... INTO t ...`, or `None` if `q` has no INTO.
pub fn plan_select_into(
    q: &Query,
    catalog: &dyn Catalog,
) -> Option<Result<PlannedStatement, PlanError>> {
    let SetExpr::Select(select) = q.body.as_ref() else {
        return None;
    };
    let into = select.into.as_ref()?;
    if into.unlogged {
        return Some(Err(PlanError::unsupported("SELECT INTO UNLOGGED tables")));
    }
    let name = match into.targets.as_slice() {
        [Expr::Identifier(i)] => ObjectName::from(vec![i.clone()]),
        [Expr::CompoundIdentifier(parts)] => ObjectName::from(parts.clone()),
        _ => {
            return Some(Err(PlanError::unsupported(format!(
                "SELECT INTO {}",
                into.targets
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))))
        }
    };
    let mut query = q.clone();
    if let SetExpr::Select(s) = query.body.as_mut() {
        s.into = None;
    }
    Some(plan_table_as(
        &name,
        false,
        into.temporary,
        &[],
        &query,
        true,
        catalog,
    ))
}

fn plan_table_as(
    name: &ObjectName,
    if_not_exists: bool,
    temporary: bool,
    names: &[&Ident],
    query: &Query,
    with_data: bool,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    let name = object_name(name)?;
    if !temporary && catalog.resolve(&name).is_some() && !if_not_exists {
        return Err(PlanError::new(
            "42P07",
            format!("relation \"{name}\" already exists"),
        ));
    }
    let planned = plan_read(&QueryContext::new(catalog), query)?;
    let mut desc = planned.scope.desc();
    if names.len() > desc.arity() {
        return Err(PlanError::syntax("too many column names were specified"));
    }
    for ((n, _), new) in desc.columns.iter_mut().zip(names) {
        *n = fold(new);
    }
    let columns = desc.columns.clone();
    for (i, (n, ty)) in desc.columns.iter_mut().enumerate() {
        ty.nullable = true;
        if columns[..i].iter().any(|(m, _)| m == n) {
            return Err(PlanError::new(
                "42701",
                format!("column \"{n}\" specified more than once"),
            ));
        }
    }
    Ok(PlannedStatement::CreateTableAs {
        name,
        desc,
        plan: planned.plan,
        finishing: planned.finishing,
        with_data,
        if_not_exists,
        temporary,
    })
}
