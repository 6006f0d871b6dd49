//! `SHOW CREATE TABLE | VIEW | MATERIALIZED VIEW | INDEX | SOURCE name`, parsed here because
//! sqlparser knows neither the materialized view, the index nor the source form. The server answers it from its
//! catalog (`name`, `create_sql`).

use crate::words::word_is;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};

use crate::names::object_name;
use crate::statement::ParsedStatement;

/// What `SHOW CREATE` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShowCreateObject {
    Table,
    View,
    MaterializedView,
    Index,
    Source,
}

/// Whether the parser stands at `SHOW CREATE`.
pub fn at_show_create(parser: &Parser<'_>) -> bool {
    word_is(&parser.peek_nth_token_ref(0).token, "show")
        && word_is(&parser.peek_nth_token_ref(1).token, "create")
}

pub fn parse_show_create(parser: &mut Parser<'_>) -> Result<ParsedStatement, ParserError> {
    parser.next_token(); // SHOW
    parser.next_token(); // CREATE
    let object = if parser.parse_keyword(Keyword::TABLE) {
        ShowCreateObject::Table
    } else if parser.parse_keyword(Keyword::VIEW) {
        ShowCreateObject::View
    } else if parser.parse_keywords(&[Keyword::MATERIALIZED, Keyword::VIEW]) {
        ShowCreateObject::MaterializedView
    } else if parser.parse_keyword(Keyword::INDEX) {
        ShowCreateObject::Index
    } else if word_is(&parser.peek_token_ref().token, "source") {
        parser.next_token();
        ShowCreateObject::Source
    } else {
        return parser.expected(
            "TABLE, VIEW, MATERIALIZED VIEW, INDEX or SOURCE",
            parser.peek_token(),
        );
    };
    let name = parser.parse_object_name(false)?;
    let name = object_name(&name).unwrap_or_else(|_| name.to_string());
    Ok(ParsedStatement::ShowCreate { object, name })
}
