//! SUBSCRIBE: kpg's statement for streaming a relation's changes, which sqlparser does not know.
//!
//! Parsing looks at tokens: `SUBSCRIBE [TO] name | (query)`, optionally wrapped as
//! `COPY (SUBSCRIBE ...) TO STDOUT`. Planning produces the relation's plan and columns; the
//! server prepends `mz_timestamp` and `mz_diff` to every row it streams.

use crate::catalog::{read_plan, Catalog};
use crate::error::PlanError;
use crate::names::object_name;
use crate::query::{plan_subquery, QueryContext};
use crate::statement::{ParsedStatement, PlannedStatement, SubscribeTarget};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

fn is_subscribe(t: &Token) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("subscribe"))
}

/// Whether the parser stands at `SUBSCRIBE` or `COPY (SUBSCRIBE`.
pub fn at_subscribe(parser: &Parser<'_>) -> bool {
    if is_subscribe(&parser.peek_token_ref().token) {
        return true;
    }
    matches!(&parser.peek_nth_token_ref(0).token, Token::Word(w) if w.keyword == Keyword::COPY)
        && parser.peek_nth_token_ref(1).token == Token::LParen
        && is_subscribe(&parser.peek_nth_token_ref(2).token)
}

/// Parses `SUBSCRIBE ...` or `COPY (SUBSCRIBE ...) TO STDOUT`; the parser is `at_subscribe`.
pub fn parse_subscribe(parser: &mut Parser<'_>) -> Result<ParsedStatement, ParserError> {
    let copy_to_stdout = parser.parse_keyword(Keyword::COPY);
    if copy_to_stdout {
        parser.expect_token(&Token::LParen)?;
    }
    parser.next_token(); // SUBSCRIBE
    let _optional_to = parser.parse_keyword(Keyword::TO);
    let target = if parser.consume_token(&Token::LParen) {
        let q = parser.parse_query()?;
        parser.expect_token(&Token::RParen)?;
        SubscribeTarget::Query(q)
    } else {
        let name = parser.parse_object_name(false)?;
        // Folded as PostgreSQL folds names; a name in another schema stays as written and
        // fails to resolve when planned.
        SubscribeTarget::Name(object_name(&name).unwrap_or_else(|_| name.to_string()))
    };
    if copy_to_stdout {
        parser.expect_token(&Token::RParen)?;
        parser.expect_keyword_is(Keyword::TO)?;
        parser.expect_keyword_is(Keyword::STDOUT)?;
    }
    Ok(ParsedStatement::Subscribe {
        target,
        copy_to_stdout,
    })
}

pub fn plan_subscribe(
    target: &SubscribeTarget,
    catalog: &dyn Catalog,
) -> Result<PlannedStatement, PlanError> {
    match target {
        SubscribeTarget::Name(name) => {
            let item = catalog
                .resolve(name)
                .ok_or_else(|| PlanError::undefined_table(name))?;
            Ok(PlannedStatement::Subscribe {
                plan: read_plan(catalog, &item)?,
                desc: item.desc,
            })
        }
        SubscribeTarget::Query(q) => {
            let (plan, scope) = plan_subquery(&QueryContext::new(catalog), q)?;
            Ok(PlannedStatement::Subscribe {
                plan,
                desc: scope.desc(),
            })
        }
    }
}
