//! Cursors: `DECLARE name CURSOR [WITHOUT HOLD] FOR <SUBSCRIBE ... | query>`,
//! `FETCH [FORWARD] [n | ALL] [FROM | IN] name [WITH (TIMEOUT [=] 'interval')]` and
//! `CLOSE name | ALL`, parsed here because sqlparser knows neither `FOR SUBSCRIBE` nor FETCH's
//! timeout. The session runs them (a cursor is session state); the planner only plans the
//! declared statement.

use std::time::Duration;

use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use crate::names::fold;
use crate::statement::ParsedStatement;

fn word_is(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

/// Whether the parser stands at DECLARE, FETCH or CLOSE.
pub fn at_cursor_statement(parser: &Parser<'_>) -> bool {
    let t = &parser.peek_token_ref().token;
    word_is(t, "declare") || word_is(t, "fetch") || word_is(t, "close")
}

pub fn parse_cursor_statement(
    parser: &mut Parser<'_>,
    parse_inner: impl FnOnce(&mut Parser<'_>) -> Result<ParsedStatement, ParserError>,
) -> Result<ParsedStatement, ParserError> {
    let first = parser.next_token();
    if word_is(&first.token, "close") {
        if parser.parse_keyword(Keyword::ALL) {
            return Ok(ParsedStatement::Close { name: None });
        }
        let name = fold(&parser.parse_identifier()?);
        return Ok(ParsedStatement::Close { name: Some(name) });
    }
    if word_is(&first.token, "declare") {
        let name = fold(&parser.parse_identifier()?);
        parser.expect_keyword_is(Keyword::CURSOR)?;
        if parser.parse_keyword(Keyword::WITH) {
            return Err(ParserError::ParserError(
                "DECLARE ... WITH HOLD is not supported".into(),
            ));
        }
        let _ = parser.parse_keywords(&[Keyword::WITHOUT, Keyword::HOLD]);
        parser.expect_keyword_is(Keyword::FOR)?;
        let target = parse_inner(parser)?;
        return Ok(ParsedStatement::Declare {
            name,
            target: Box::new(target),
        });
    }
    // FETCH
    let _ = parser.parse_keyword(Keyword::FORWARD);
    let count = if parser.parse_keyword(Keyword::ALL) {
        None
    } else if let Token::Number(n, _) = &parser.peek_token_ref().token {
        let n = n
            .parse::<u64>()
            .map_err(|_| ParserError::ParserError(format!("invalid FETCH count {n}")))?;
        parser.next_token();
        Some(n)
    } else {
        Some(1)
    };
    let _ = parser.parse_keyword(Keyword::FROM) || parser.parse_keyword(Keyword::IN);
    let name = fold(&parser.parse_identifier()?);
    let mut timeout = None;
    if parser.parse_keyword(Keyword::WITH) {
        parser.expect_token(&Token::LParen)?;
        let option = parser.next_token();
        if !word_is(&option.token, "timeout") {
            return parser.expected("TIMEOUT", option);
        }
        let _ = parser.consume_token(&Token::Eq);
        let value = parser.next_token();
        timeout = Some(match &value.token {
            Token::SingleQuotedString(s) => parse_duration(s)
                .ok_or_else(|| ParserError::ParserError(format!("invalid TIMEOUT value '{s}'")))?,
            _ => return parser.expected("a duration like '1s'", value),
        });
        parser.expect_token(&Token::RParen)?;
    }
    Ok(ParsedStatement::Fetch {
        name,
        count,
        timeout,
    })
}

/// `'250ms'`, `'1s'`, `'1.5 seconds'`, `'2 min'`, or a bare number of seconds.
fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let number: f64 = number.parse().ok()?;
    let seconds = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "s" | "sec" | "secs" | "second" | "seconds" => number,
        "ms" | "millisecond" | "milliseconds" => number / 1000.0,
        "min" | "mins" | "minute" | "minutes" => number * 60.0,
        _ => return None,
    };
    (seconds >= 0.0 && seconds.is_finite()).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn cursor_statements_parse() {
        let stmts = parse(
            "DECLARE c CURSOR FOR SUBSCRIBE t WITH (SNAPSHOT = false); \
             FETCH 10 c WITH (TIMEOUT = '250ms'); FETCH ALL FROM c; FETCH c; CLOSE c; CLOSE ALL; \
             DECLARE d CURSOR FOR SELECT 1",
        )
        .unwrap();
        assert!(
            matches!(&stmts[0], ParsedStatement::Declare { name, target }
            if name == "c" && matches!(**target, ParsedStatement::Subscribe { .. }))
        );
        assert_eq!(
            stmts[1],
            ParsedStatement::Fetch {
                name: "c".into(),
                count: Some(10),
                timeout: Some(Duration::from_millis(250))
            }
        );
        assert!(matches!(
            &stmts[2],
            ParsedStatement::Fetch {
                count: None,
                timeout: None,
                ..
            }
        ));
        assert!(matches!(
            &stmts[3],
            ParsedStatement::Fetch { count: Some(1), .. }
        ));
        assert_eq!(
            stmts[4],
            ParsedStatement::Close {
                name: Some("c".into())
            }
        );
        assert_eq!(stmts[5], ParsedStatement::Close { name: None });
        assert!(matches!(&stmts[6], ParsedStatement::Declare { target, .. }
            if matches!(**target, ParsedStatement::Sql(_))));
        assert!(parse("FETCH 1 c WITH (TIMEOUT = 'soon')").is_err());
        assert_eq!(
            parse_duration("1.5 seconds"),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
    }
}
