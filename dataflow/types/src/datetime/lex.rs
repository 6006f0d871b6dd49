//! Splitting date/time text into tokens, the first step of `date` and `timestamp` input.
//!
//! The lexer only decides where a token ends and what shape it has; what a token means (a
//! year, a month, a zone) depends on the tokens around it and is decided in `decode`. It
//! works on lowercased ASCII text: anything else is refused before it runs, so every slice
//! below falls on a character boundary. The shapes follow what PostgreSQL accepts:
//! blanks and punctuation other than `+`, `-` (signs) separate tokens; a run of digits may go
//! on as a clock (`10:15:30.5`), as a date with one kind of separator (`2024-01-05`,
//! `1/2/24`, `2024-jan-05`) or with a fraction (`2024.015`, `101500.25`); a run of letters may
//! go on as a punctuated name (`america/new_york`, `jan-05-2024`, `utc+3`, `est5edt`), except
//! that a keyword followed by digits ends there (`jan5` is `jan` and `5`). The names of
//! months and weekdays are here too, as the lexer needs them for that rule.

use super::decode::DtErr;

/// One token of date/time text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Token<'a> {
    /// Digits with at most one `.` (`2024`, `20240105`, `101500.25`, `.5`).
    Number(&'a str),
    /// Digits and words joined by `-`, `/` or `.` (`2024-01-05`, `05-jan-2024`), or a name
    /// with punctuation or digits in it (`america/new_york`, `utc+3`, `est5edt`).
    Compound(&'a str),
    /// Digits joined by colons, the last part maybe with a fraction (`10:15`, `10:15:30.5`).
    Clock(&'a str),
    /// Letters only (`jan`, `pm`, `epoch`, `pst`).
    Word(&'a str),
    /// What follows a `+` or `-` that starts with a digit: a zone offset (`05:30`, `0800`),
    /// with its sign.
    Offset { negative: bool, body: &'a str },
    /// A `+` or `-` followed by letters (`-infinity`).
    SignedWord { negative: bool, word: &'a str },
}

/// Words that end a token when digits follow them: `jan5` is a month and a day, while
/// `utc5` or `est5edt` is one zone name.
fn stops_before_digits(word: &str) -> bool {
    month_number(word).is_some()
        || is_weekday(word)
        || matches!(
            word,
            "am" | "pm"
                | "ad"
                | "bc"
                | "at"
                | "on"
                | "t"
                | "epoch"
                | "allballs"
                | "today"
                | "tomorrow"
                | "yesterday"
                | "now"
                | "infinity"
                | "j"
                | "jd"
                | "julian"
        )
}

/// The number of a month written as its name or its first three letters (`sept` too).
pub(super) fn month_number(w: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let found = MONTHS.iter().position(|m| {
        w == *m || (w.len() == 3 && m.starts_with(w)) || w == "sept" && *m == "september"
    })?;
    Some(found as i64 + 1)
}

/// A weekday, written out or abbreviated.
pub(super) fn is_weekday(w: &str) -> bool {
    const DAYS: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    const OTHER_SPELLINGS: [&str; 4] = ["tues", "weds", "thur", "thurs"];
    DAYS.iter()
        .any(|d| w == *d || (w.len() == 3 && d.starts_with(w)))
        || OTHER_SPELLINGS.contains(&w)
}

/// A cursor over ASCII text.
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// Advances past every byte `keep` accepts; returns how many there were.
    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(&keep) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn since(&self, start: usize) -> &'a str {
        &self.text[start..self.pos]
    }

    /// A token that starts with a digit or a `.`.
    fn numeric(&mut self) -> Token<'a> {
        let start = self.pos;
        self.skip_while(|c| c.is_ascii_digit());
        match self.peek() {
            Some(b':') => {
                self.skip_while(|c| c.is_ascii_digit() || c == b':' || c == b'.');
                Token::Clock(self.since(start))
            }
            Some(sep @ (b'-' | b'/' | b'.')) => {
                self.pos += 1;
                if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    // A month name inside (`2024-jan-05`).
                    self.skip_while(|c| c.is_ascii_alphanumeric() || c == sep);
                    return Token::Compound(self.since(start));
                }
                self.skip_while(|c| c.is_ascii_digit());
                if self.peek() == Some(sep) {
                    self.skip_while(|c| c.is_ascii_digit() || c == sep);
                    Token::Compound(self.since(start))
                } else if sep == b'.' {
                    Token::Number(self.since(start))
                } else {
                    Token::Compound(self.since(start))
                }
            }
            _ => Token::Number(self.since(start)),
        }
    }

    /// A token that starts with a letter.
    fn alphabetic(&mut self) -> Token<'a> {
        let start = self.pos;
        self.skip_while(|c| c.is_ascii_alphabetic());
        let goes_on = match self.peek() {
            Some(b'-' | b'/' | b'.') => true,
            Some(c) if c == b'+' || c.is_ascii_digit() => !stops_before_digits(self.since(start)),
            _ => false,
        };
        if !goes_on {
            return Token::Word(self.since(start));
        }
        self.pos += 1;
        self.skip_while(|c| c.is_ascii_alphanumeric() || b"+-/_.:".contains(&c));
        Token::Compound(self.since(start))
    }

    /// A token that starts with a sign; blanks may follow the sign.
    fn signed(&mut self) -> Result<Token<'a>, DtErr> {
        let negative = self.peek() == Some(b'-');
        self.pos += 1;
        self.skip_while(|c| c.is_ascii_whitespace());
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                self.skip_while(|c| c.is_ascii_digit() || b":.-".contains(&c));
                Ok(Token::Offset {
                    negative,
                    body: self.since(start),
                })
            }
            Some(c) if c.is_ascii_alphabetic() => {
                self.skip_while(|c| c.is_ascii_alphabetic());
                Ok(Token::SignedWord {
                    negative,
                    word: self.since(start),
                })
            }
            _ => Err(DtErr::Syntax),
        }
    }
}

/// Splits lowercased ASCII text into tokens.
pub(super) fn tokenize(text: &str) -> Result<Vec<Token<'_>>, DtErr> {
    if !text.is_ascii() {
        return Err(DtErr::Syntax);
    }
    let mut s = Scanner { text, pos: 0 };
    let mut tokens = Vec::new();
    while let Some(c) = s.peek() {
        let token = match c {
            b'0'..=b'9' => s.numeric(),
            // A `.` starts a number even without digits after it (`2024-01-05 .` is
            // refused).
            b'.' => {
                let start = s.pos;
                s.pos += 1;
                s.skip_while(|c| c.is_ascii_digit());
                Token::Number(s.since(start))
            }
            b'+' | b'-' => s.signed()?,
            c if c.is_ascii_alphabetic() => s.alphabetic(),
            c if c.is_ascii_whitespace() || c.is_ascii_punctuation() => {
                s.pos += 1;
                continue;
            }
            _ => return Err(DtErr::Syntax),
        };
        tokens.push(token);
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::Token::*;
    use super::*;

    fn lex(s: &str) -> Vec<Token<'_>> {
        tokenize(s).unwrap()
    }

    #[test]
    fn dates_times_and_numbers() {
        assert_eq!(lex("2024-01-05"), [Compound("2024-01-05")]);
        assert_eq!(lex("1/2/24"), [Compound("1/2/24")]);
        assert_eq!(lex("2024-jan-05"), [Compound("2024-jan-05")]);
        assert_eq!(lex("2024.015"), [Number("2024.015")]);
        assert_eq!(lex("1.2.2024"), [Compound("1.2.2024")]);
        assert_eq!(lex("20240105 .5"), [Number("20240105"), Number(".5")]);
        assert_eq!(
            lex("2024-01-05t10:15:30.5"),
            [Compound("2024-01-05"), Word("t"), Clock("10:15:30.5")]
        );
        assert_eq!(
            lex("jan5, 2024"),
            [Word("jan"), Number("5"), Number("2024")]
        );
    }

    #[test]
    fn names_zones_and_signs() {
        assert_eq!(
            lex("america/new_york utc+3 est5edt"),
            [
                Compound("america/new_york"),
                Compound("utc+3"),
                Compound("est5edt")
            ]
        );
        assert_eq!(
            lex("10:00+05:30"),
            [
                Clock("10:00"),
                Offset {
                    negative: false,
                    body: "05:30"
                }
            ]
        );
        assert_eq!(
            lex("- 08"),
            [Offset {
                negative: true,
                body: "08"
            }]
        );
        assert_eq!(
            lex("-infinity"),
            [SignedWord {
                negative: true,
                word: "infinity"
            }]
        );
        assert_eq!(lex("(fri), 5"), [Word("fri"), Number("5")]);
    }

    #[test]
    fn refused_text() {
        for bad in ["2024-01-05 é", "+", "- :", "2024\u{2013}01"] {
            assert_eq!(tokenize(bad), Err(DtErr::Syntax), "{bad}");
        }
    }
}
