//! Functions that PostgreSQL clients' catalog queries use, evaluated as PostgreSQL 15 does:
//! regular expression match (`~`, `~*`), `quote_ident`, `format_type`, `pg_encoding_to_char`
//! and `array_to_string` (kpg has no array type: the system catalogs' array columns hold
//! PostgreSQL's text form of a one-dimensional array, `{a,"b c"}`, which it reads).
//!
//! All of them are pure functions of their arguments: `format_type` knows only built-in types
//! because kpg has no user-defined ones. Regular expressions use the `regex` crate, whose syntax
//! covers the patterns clients send (anchors, classes, alternation, repetition) but not
//! PostgreSQL's back references or lookaround: such a pattern is error 2201B, never a guess.
//! Compiled patterns are cached per thread, since a pattern is usually a constant applied to
//! every row.

use std::cell::RefCell;
use std::collections::HashMap;

use regex::{Regex, RegexBuilder};

use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::{BinaryFunc, UnaryFunc};

/// At most this many compiled patterns are kept per thread.
const REGEX_CACHE: usize = 64;

thread_local! {
    static PATTERNS: RefCell<HashMap<(String, bool), Regex>> = RefCell::new(HashMap::new());
}

/// Whether `s` matches the POSIX regular expression `pattern` anywhere (PostgreSQL's `~`).
pub fn regex_match(s: &str, pattern: &str, case_insensitive: bool) -> Result<bool, EvalError> {
    PATTERNS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let key = (pattern.to_string(), case_insensitive);
        if let Some(re) = cache.get(&key) {
            return Ok(re.is_match(s));
        }
        let re = RegexBuilder::new(pattern)
            .case_insensitive(case_insensitive)
            .build()
            .map_err(|e| EvalError::InvalidRegex(first_line(&e.to_string())))?;
        let matched = re.is_match(s);
        if cache.len() >= REGEX_CACHE {
            cache.clear();
        }
        cache.insert(key, re);
        Ok(matched)
    })
}

fn first_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| s.lines().next().unwrap_or(""))
        .trim_start_matches("error: ")
        .to_string()
}

pub(crate) fn unary(func: &UnaryFunc, d: Datum) -> Datum {
    match (func, d) {
        (UnaryFunc::QuoteIdent, Datum::String(s)) => Datum::String(quote_ident(&s)),
        (UnaryFunc::EncodingToChar, Datum::Int32(id)) => Datum::String(
            usize::try_from(id)
                .ok()
                .and_then(|i| ENCODINGS.get(i))
                .copied()
                .unwrap_or("")
                .to_string(),
        ),
        (f, d) => unreachable!("{f:?} over {d:?}"),
    }
}

pub(crate) fn binary(func: BinaryFunc, l: Datum, r: Datum) -> Result<Datum, EvalError> {
    Ok(match (func, l, r) {
        (BinaryFunc::RegexMatch, Datum::String(s), Datum::String(p)) => {
            Datum::Bool(regex_match(&s, &p, false)?)
        }
        (BinaryFunc::RegexIMatch, Datum::String(s), Datum::String(p)) => {
            Datum::Bool(regex_match(&s, &p, true)?)
        }
        (BinaryFunc::FormatType, Datum::Int64(oid), Datum::Int32(typmod)) => {
            Datum::String(format_type(oid, Some(typmod)))
        }
        (BinaryFunc::ArrayToString, Datum::String(a), Datum::String(sep)) => {
            Datum::String(array_elements(&a)?.join(&sep))
        }
        (f, l, r) => unreachable!("{f:?} over {l:?}, {r:?}"),
    })
}

/// The non-NULL elements of a one-dimensional array in PostgreSQL's text form.
pub fn array_elements(a: &str) -> Result<Vec<String>, EvalError> {
    let bad = || EvalError::InvalidTextRepresentation {
        type_name: "text[]".into(),
        value: a.to_string(),
    };
    let inner = a
        .trim()
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .ok_or_else(bad)?;
    let mut out = Vec::new();
    let mut chars = inner.chars().peekable();
    while chars.peek().is_some() {
        let mut item = String::new();
        let quoted = chars.peek() == Some(&'"');
        if quoted {
            chars.next();
            loop {
                match chars.next().ok_or_else(bad)? {
                    '"' => break,
                    '\\' => item.push(chars.next().ok_or_else(bad)?),
                    c => item.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ',' {
                    break;
                }
                item.push(c);
                chars.next();
            }
        }
        match chars.next() {
            None | Some(',') => {}
            Some(_) => return Err(bad()),
        }
        if quoted || item.trim() != "NULL" {
            out.push(if quoted {
                item
            } else {
                item.trim().to_string()
            });
        }
    }
    Ok(out)
}

/// PostgreSQL's keywords that are not unreserved: quote_ident quotes them.
const KEYWORDS: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// The identifier quoted if PostgreSQL would need quotes to read it back unchanged.
pub fn quote_ident(s: &str) -> String {
    let plain = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$')
        && !KEYWORDS.contains(&s);
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}

/// PostgreSQL's encoding names by id (`pg_enc`).
const ENCODINGS: &[&str] = &[
    "SQL_ASCII",
    "EUC_JP",
    "EUC_CN",
    "EUC_KR",
    "EUC_TW",
    "EUC_JIS_2004",
    "UTF8",
    "MULE_INTERNAL",
    "LATIN1",
    "LATIN2",
    "LATIN3",
    "LATIN4",
    "LATIN5",
    "LATIN6",
    "LATIN7",
    "LATIN8",
    "LATIN9",
    "LATIN10",
    "WIN1256",
    "WIN1258",
    "WIN866",
    "WIN874",
    "KOI8R",
    "WIN1251",
    "WIN1252",
    "ISO_8859_5",
    "ISO_8859_6",
    "ISO_8859_7",
    "ISO_8859_8",
    "WIN1250",
    "WIN1253",
    "WIN1254",
    "WIN1255",
    "WIN1257",
    "KOI8U",
    "SJIS",
    "BIG5",
    "GBK",
    "UHC",
    "GB18030",
    "JOHAB",
    "SHIFT_JIS_2004",
];

/// Built-in types by OID: (oid, name format_type prints, name of its array type's OID).
pub const TYPES: &[(i64, &str, i64)] = &[
    (16, "boolean", 1000),
    (17, "bytea", 1001),
    (18, "\"char\"", 1002),
    (19, "name", 1003),
    (20, "bigint", 1016),
    (21, "smallint", 1005),
    (23, "integer", 1007),
    (24, "regproc", 1008),
    (25, "text", 1009),
    (26, "oid", 1028),
    (700, "real", 1021),
    (701, "double precision", 1022),
    (1042, "character", 1014),
    (1043, "character varying", 1015),
    (1082, "date", 1182),
    (1083, "time without time zone", 1183),
    (1114, "timestamp without time zone", 1115),
    (1184, "timestamp with time zone", 1185),
    (1186, "interval", 1187),
    (1700, "numeric", 1231),
    (2950, "uuid", 2951),
    (2205, "regclass", 2210),
    (2206, "regtype", 2211),
    (4089, "regnamespace", 4090),
];

/// `format_type(oid, typmod)`: the SQL name of a built-in type with its modifier (a NULL
/// typmod is written `None`), `???` for an unknown OID.
pub fn format_type(oid: i64, typmod: Option<i32>) -> String {
    let (base, array) = match TYPES.iter().find(|t| t.0 == oid) {
        Some(t) => (t.0, false),
        None => match TYPES.iter().find(|t| t.2 == oid) {
            Some(t) => (t.0, true),
            None => return "???".to_string(),
        },
    };
    let name = TYPES.iter().find(|t| t.0 == base).expect("listed").1;
    let m = typmod.filter(|m| *m >= 0);
    let mut out = match (base, m) {
        (1043, Some(m)) => format!("character varying({})", m - 4),
        (1042, Some(m)) => format!("character({})", m - 4),
        // bpchar without a modifier prints as such unless the modifier is unknown (NULL).
        (1042, None) if typmod.is_some() => "bpchar".to_string(),
        (1700, Some(m)) => {
            let m = m - 4;
            // The scale is 11 bits, signed (PostgreSQL 15's negative scales).
            format!(
                "numeric({},{})",
                (m >> 16) & 0xffff,
                ((m & 0x7ff) ^ 1024) - 1024
            )
        }
        (1083, Some(m)) => format!("time({m}) without time zone"),
        (1114, Some(m)) => format!("timestamp({m}) without time zone"),
        (1184, Some(m)) => format!("timestamp({m}) with time zone"),
        (1186, Some(m)) => match crate::IntervalTypmod::from_typmod(m) {
            Some(t) => t.to_string(),
            None => name.to_string(),
        },
        _ => name.to_string(),
    };
    if array {
        out.push_str("[]");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values are PostgreSQL 15's answers.
    #[test]
    fn format_type_as_postgres() {
        assert_eq!(format_type(1043, None), "character varying");
        assert_eq!(format_type(1043, Some(12)), "character varying(8)");
        assert_eq!(format_type(1042, None), "character");
        assert_eq!(format_type(1042, Some(-1)), "bpchar");
        assert_eq!(format_type(1042, Some(5)), "character(1)");
        assert_eq!(
            format_type(1700, Some(((10 << 16) | 2) + 4)),
            "numeric(10,2)"
        );
        assert_eq!(format_type(1015, Some(12)), "character varying(8)[]");
        assert_eq!(format_type(99999, None), "???");
        assert_eq!(
            format_type(1186, Some(470286338)),
            "interval day to second(2)"
        );
        assert_eq!(format_type(1186, Some(-1)), "interval");
        assert_eq!(format_type(1114, Some(3)), "timestamp(3) without time zone");
        assert_eq!(format_type(1083, Some(0)), "time(0) without time zone");
        assert_eq!(format_type(2950, None), "uuid");
        assert_eq!(format_type(1001, Some(-1)), "bytea[]");
        assert_eq!(format_type(18, Some(-1)), "\"char\"");
    }

    #[test]
    fn quote_ident_as_postgres() {
        for (s, q) in [
            ("a b", "\"a b\""),
            ("Ab", "\"Ab\""),
            ("select", "\"select\""),
            ("ab_1", "ab_1"),
            ("1ab", "\"1ab\""),
            ("a\"b", "\"a\"\"b\""),
            ("int", "\"int\""),
            ("name", "name"),
        ] {
            assert_eq!(quote_ident(s), q);
        }
    }

    #[test]
    fn array_text_form() {
        assert_eq!(array_elements("{a,\"b c\",NULL}").unwrap(), ["a", "b c"]);
        assert!(array_elements("{}").unwrap().is_empty());
        assert!(array_elements("x").is_err());
    }

    #[test]
    fn regex_match_and_errors() {
        assert!(regex_match("orders", "^(orders)$", false).unwrap());
        assert!(!regex_match("pg_toast", "^pg_c", false).unwrap());
        assert!(regex_match("ORDERS", "^ord", true).unwrap());
        let e = regex_match("x", "(", false).unwrap_err();
        assert_eq!(e.sqlstate(), "2201B");
    }
}
