//! The format picture of `to_char`, `to_number`, `to_date` and `to_timestamp`: the text
//! split into keywords, their modifiers and literal characters, as PostgreSQL's
//! `parse_format` splits it.
//!
//! A keyword is found by the longest entry of the table that the text starts with, matched
//! case-sensitively (the tables list the cases PostgreSQL knows: `MONTH`, `Month`, `month`, but
//! no `mONTH`); text that starts no keyword is a literal character. Inside double quotes every
//! character is literal and a backslash takes the next one as it is; outside them a backslash
//! is special only before a double quote. The datetime pictures also take the prefixes `FM`
//! and `TM` (`fm`, `tm`) and the suffixes `TH`, `th` and `SP`; a prefix not followed by a
//! keyword is dropped.

/// One element of a parsed picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node<K> {
    /// A keyword with its modifiers.
    Key { key: K, mods: Mods },
    /// A literal character; `quoted` when it came from a double-quoted string.
    Char { c: char, quoted: bool },
}

/// The modifiers of a datetime keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    /// `FM`: no padding.
    pub fill: bool,
    /// `TM`: translation mode (the C locale's names, so no change).
    pub tm: bool,
    /// `TH` (upper) or `th` (lower) ordinal suffix.
    pub th: Option<bool>,
    /// `SP` (spell mode: accepted and ignored, as PostgreSQL does).
    pub sp: bool,
}

/// Splits `picture` into nodes with the keyword `table` (each name with its key); `affixes`
/// says whether the datetime prefixes and suffixes are read.
pub fn parse<K: Copy>(picture: &str, table: &[(&str, K)], affixes: bool) -> Vec<Node<K>> {
    let mut out = Vec::new();
    let mut rest = picture;
    while !rest.is_empty() {
        let mut mods = Mods::default();
        if affixes {
            for (p, tm) in [("FM", false), ("fm", false), ("TM", true), ("tm", true)] {
                if let Some(r) = rest.strip_prefix(p) {
                    if tm {
                        mods.tm = true;
                    } else {
                        mods.fill = true;
                    }
                    rest = r;
                    break;
                }
            }
        }
        if let Some((name, key)) = table.iter().find(|(name, _)| rest.starts_with(name)) {
            rest = &rest[name.len()..];
            if affixes {
                for (s, th) in [("TH", Some(true)), ("th", Some(false)), ("SP", None)] {
                    if let Some(r) = rest.strip_prefix(s) {
                        match th {
                            Some(upper) => mods.th = Some(upper),
                            None => mods.sp = true,
                        }
                        rest = r;
                        break;
                    }
                }
            }
            out.push(Node::Key { key: *key, mods });
            continue;
        }
        let mut chars = rest.chars();
        match chars.next() {
            Some('"') => {
                let mut inner = chars;
                loop {
                    match inner.next() {
                        None | Some('"') => break,
                        Some('\\') => {
                            let after = inner.clone().next();
                            match after {
                                Some(c) => {
                                    inner.next();
                                    out.push(Node::Char { c, quoted: true });
                                }
                                None => out.push(Node::Char {
                                    c: '\\',
                                    quoted: true,
                                }),
                            }
                        }
                        Some(c) => out.push(Node::Char { c, quoted: true }),
                    }
                }
                rest = inner.as_str();
            }
            Some('\\') if rest[1..].starts_with('"') => {
                out.push(Node::Char {
                    c: '"',
                    quoted: false,
                });
                rest = &rest[2..];
            }
            Some(c) => {
                out.push(Node::Char { c, quoted: false });
                rest = chars.as_str();
            }
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[(&str, u8)] = &[("MONTH", 1), ("MON", 2), ("MM", 3), ("MI", 4), ("DD", 5)];

    fn keys(p: &str) -> String {
        parse(p, TABLE, true)
            .iter()
            .map(|n| match n {
                Node::Key { key, mods } => format!("[{key}{}]", if mods.fill { "f" } else { "" }),
                Node::Char { c, .. } => c.to_string(),
            })
            .collect()
    }

    #[test]
    fn longest_keyword_quotes_and_escapes() {
        assert_eq!(keys("MONTHMONMM-MI"), "[1][2][3]-[4]");
        assert_eq!(keys("FMDD Mon"), "[5f] Mon");
        assert_eq!(keys("\"MM\\\"x\"MM"), "MM\"x[3]");
        assert_eq!(keys("\\\"MM\\x"), "\"[3]\\x");
        assert_eq!(keys("FMx\"unterminated"), "xunterminated");
    }
}
