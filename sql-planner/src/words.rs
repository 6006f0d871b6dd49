//! Reading the words of kpg's own statements (sources, sinks, connections, cursors,
//! SUBSCRIBE, EXPLAIN, SHOW CREATE), which sqlparser does not know: an unquoted word matched
//! case-insensitively, and the `DROP <noun> [IF EXISTS] name, ... [CASCADE | RESTRICT]` they
//! share.

use sqlparser::ast::ObjectName;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Whether `t` is the unquoted word `w` (any case).
pub(crate) fn word_is(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

/// Consumes the word `word` if it is next.
pub(crate) fn parse_word(parser: &mut Parser<'_>, word: &str) -> bool {
    if word_is(&parser.peek_token_ref().token, word) {
        parser.next_token();
        true
    } else {
        false
    }
}

/// Consumes the word `word`, or fails saying it was expected.
pub(crate) fn expect_word(parser: &mut Parser<'_>, word: &str) -> Result<(), ParserError> {
    if parse_word(parser, word) {
        Ok(())
    } else {
        parser.expected(&word.to_uppercase(), parser.peek_token())
    }
}

/// Whether the parser stands at `CREATE <noun>` or `DROP <noun>`.
pub(crate) fn at_create_or_drop(parser: &Parser<'_>, noun: &str) -> bool {
    let t = |i| &parser.peek_nth_token_ref(i).token;
    (word_is(t(0), "create") || word_is(t(0), "drop")) && word_is(t(1), noun)
}

/// What `DROP <noun>` names: after the noun, `[IF EXISTS] name, ... [CASCADE | RESTRICT]`.
pub(crate) struct DropList {
    pub names: Vec<ObjectName>,
    pub if_exists: bool,
    pub cascade: bool,
}

/// Parses `DROP <noun> [IF EXISTS] name, ... [CASCADE | RESTRICT]` (the parser at DROP).
pub(crate) fn parse_drop(parser: &mut Parser<'_>) -> Result<DropList, ParserError> {
    parser.expect_keyword(Keyword::DROP)?;
    parser.next_token(); // the noun
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let names = parser.parse_comma_separated(|p| p.parse_object_name(false))?;
    let cascade = parser.parse_keyword(Keyword::CASCADE);
    if !cascade {
        let _ = parser.parse_keyword(Keyword::RESTRICT);
    }
    Ok(DropList {
        names,
        if_exists,
        cascade,
    })
}
