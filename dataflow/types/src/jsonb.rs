//! `jsonb` values with PostgreSQL's rules: input (serde_json parses; numbers keep every digit
//! as `numeric`), the normalized form (object keys ordered by length then bytes, a repeated key
//! keeps its last value), the text output (`{"a": 1, "b": [1, 2]}`), the order of the btree
//! operator class (object > array > boolean > number > string > null; longer objects and arrays
//! after shorter ones, then element by element), and the operators `->`, `->>`, `#>`, `#>>`,
//! `@>`, `?`, `jsonb_typeof` and the casts to scalar types.

use std::cmp::Ordering;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::error::EvalError;
use crate::numeric::Numeric;

/// One JSON value, normalized.
#[derive(Clone, Debug, Hash, Serialize, Deserialize)]
pub enum Json {
    Null,
    Bool(bool),
    Number(Numeric),
    String(String),
    Array(Vec<Json>),
    /// Keys in PostgreSQL's order (shorter first, then bytewise), each once.
    Object(Vec<(String, Json)>),
}

fn key_order(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

impl Json {
    /// Parses JSON text (PostgreSQL's `jsonb` input).
    pub fn parse(text: &str) -> Result<Json, EvalError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|_| EvalError::InvalidTextRepresentation {
                type_name: "json".into(),
                value: text.to_string(),
            })?;
        Json::from_value(value)
    }

    fn from_value(value: serde_json::Value) -> Result<Json, EvalError> {
        use serde_json::Value as V;
        Ok(match value {
            V::Null => Json::Null,
            V::Bool(b) => Json::Bool(b),
            V::Number(n) => Json::Number(Numeric::parse(&n.to_string()).map_err(|_| {
                EvalError::InvalidTextRepresentation {
                    type_name: "json".into(),
                    value: n.to_string(),
                }
            })?),
            V::String(s) => {
                if s.contains('\0') {
                    return Err(EvalError::InvalidTextSyntax(
                        "unsupported Unicode escape sequence".into(),
                    ));
                }
                Json::String(s)
            }
            V::Array(a) => Json::Array(
                a.into_iter()
                    .map(Json::from_value)
                    .collect::<Result<_, _>>()?,
            ),
            V::Object(o) => Json::object(
                o.into_iter()
                    .map(|(k, v)| Ok((k, Json::from_value(v)?)))
                    .collect::<Result<_, EvalError>>()?,
            ),
        })
    }

    /// An object of `pairs`: a later equal key replaces an earlier one, keys in PostgreSQL's
    /// order.
    pub fn object(mut pairs: Vec<(String, Json)>) -> Json {
        // A stable sort keeps equal keys in their order; the last of each run is kept.
        pairs.sort_by(|a, b| key_order(&a.0, &b.0));
        let mut kept: Vec<(String, Json)> = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            match kept.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => kept.push((k, v)),
            }
        }
        Json::Object(kept)
    }

    /// `self || other`: two objects merged (the right's value for a key both have), anything
    /// else as arrays concatenated (a scalar or object beside an array is one element).
    pub fn concat(&self, other: &Json) -> Json {
        match (self, other) {
            (Json::Object(a), Json::Object(b)) => {
                Json::object(a.iter().chain(b).cloned().collect())
            }
            (a, b) => {
                let items = |j: &Json| match j {
                    Json::Array(items) => items.clone(),
                    other => vec![other.clone()],
                };
                Json::Array([items(a), items(b)].concat())
            }
        }
    }

    /// `self - key`: an object without `key`, an array without its strings equal to `key`.
    pub fn delete_key(&self, key: &str) -> Result<Json, EvalError> {
        match self {
            Json::Object(pairs) => Ok(Json::Object(
                pairs.iter().filter(|(k, _)| k != key).cloned().collect(),
            )),
            Json::Array(items) => Ok(Json::Array(
                items
                    .iter()
                    .filter(|v| !matches!(v, Json::String(s) if s == key))
                    .cloned()
                    .collect(),
            )),
            _ => Err(EvalError::InvalidParameterValue(
                "cannot delete from scalar".into(),
            )),
        }
    }

    /// `self - i`: an array without its element `i` (counted from the end if negative; an
    /// index past either end removes nothing).
    pub fn delete_index(&self, i: i64) -> Result<Json, EvalError> {
        match self {
            Json::Array(items) => {
                let n = items.len() as i64;
                let at = if i < 0 { n + i } else { i };
                Ok(Json::Array(
                    items
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| *k as i64 != at)
                        .map(|(_, v)| v.clone())
                        .collect(),
                ))
            }
            Json::Object(_) => Err(EvalError::InvalidParameterValue(
                "cannot delete from object using integer index".into(),
            )),
            _ => Err(EvalError::InvalidParameterValue(
                "cannot delete from scalar".into(),
            )),
        }
    }

    /// PostgreSQL's text output of `jsonb`.
    pub fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => {
                let _ = write!(out, "{n}");
            }
            Json::String(s) => write_string(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_string(k, out);
                    out.push_str(": ");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn rank(&self) -> u8 {
        match self {
            Json::Null => 0,
            Json::String(_) => 1,
            Json::Number(_) => 2,
            Json::Bool(_) => 3,
            Json::Array(_) => 4,
            Json::Object(_) => 5,
        }
    }

    /// The btree order; with `representation`, numbers equal in value are told apart by
    /// their scale (as `Datum`'s order does).
    pub fn compare(&self, other: &Json, representation: bool) -> Ordering {
        match (self, other) {
            (Json::Null, Json::Null) => Ordering::Equal,
            (Json::Bool(a), Json::Bool(b)) => a.cmp(b),
            (Json::Number(a), Json::Number(b)) => match a.cmp(b) {
                Ordering::Equal if representation => a.scale().cmp(&b.scale()),
                o => o,
            },
            (Json::String(a), Json::String(b)) => a.cmp(b),
            (Json::Array(a), Json::Array(b)) => a.len().cmp(&b.len()).then_with(|| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| x.compare(y, representation))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            }),
            (Json::Object(a), Json::Object(b)) => a.len().cmp(&b.len()).then_with(|| {
                a.iter()
                    .zip(b)
                    .map(|((ka, va), (kb, vb))| {
                        key_order(ka, kb).then_with(|| va.compare(vb, representation))
                    })
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            }),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// `->` with a key: the object's field.
    pub fn field(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// `->` with an index: the array's element (negative counts from the end).
    pub fn element(&self, i: i64) -> Option<&Json> {
        match self {
            Json::Array(items) => {
                let len = items.len() as i64;
                let i = if i < 0 { len + i } else { i };
                usize::try_from(i).ok().and_then(|i| items.get(i))
            }
            _ => None,
        }
    }

    /// `#>`: follows a path of keys and array indexes.
    pub fn path(&self, path: &[String]) -> Option<&Json> {
        let mut at = self;
        for step in path {
            at = match at {
                Json::Object(_) => at.field(step)?,
                Json::Array(_) => at.element(step.trim().parse().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }

    /// `->>`: a string's contents, or any other value's JSON text; JSON null is SQL NULL.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Json::Null => None,
            Json::String(s) => Some(s.clone()),
            other => Some(other.to_text()),
        }
    }

    /// `@>`: whether `other`'s structure and values are contained in this one.
    pub fn contains(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Object(a), Json::Object(b)) => b.iter().all(|(k, vb)| {
                a.iter()
                    .find(|(ka, _)| ka == k)
                    .is_some_and(|(_, va)| va.contains_nested(vb))
            }),
            (Json::Array(a), Json::Array(b)) => {
                b.iter().all(|vb| a.iter().any(|va| va.contains_nested(vb)))
            }
            // A top-level array contains a scalar that is one of its elements.
            (Json::Array(a), scalar) if !matches!(scalar, Json::Object(_)) => {
                a.iter().any(|va| va.compare(scalar, false).is_eq())
            }
            (a, b) => a.compare(b, false).is_eq(),
        }
    }

    /// Containment below the top level: a scalar is not contained in an array there.
    fn contains_nested(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Object(_), Json::Object(_)) | (Json::Array(_), Json::Array(_)) => {
                self.contains(other)
            }
            (a, b) => a.compare(b, false).is_eq() && a.rank() == b.rank(),
        }
    }

    /// `?`: whether `key` is a key of the object, a string element of the array, or the string.
    pub fn exists(&self, key: &str) -> bool {
        match self {
            Json::Object(pairs) => pairs.iter().any(|(k, _)| k == key),
            Json::Array(items) => items
                .iter()
                .any(|i| matches!(i, Json::String(s) if s == key)),
            Json::String(s) => s == key,
            _ => false,
        }
    }

    /// `jsonb_typeof`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// The number a cast to a numeric type reads, or PostgreSQL's error naming `target`.
    pub fn as_number(&self, target: &str) -> Result<&Numeric, EvalError> {
        match self {
            Json::Number(n) => Ok(n),
            other => Err(self.cast_error(other, target)),
        }
    }

    /// The boolean a cast to `boolean` reads.
    pub fn as_bool(&self) -> Result<bool, EvalError> {
        match self {
            Json::Bool(b) => Ok(*b),
            other => Err(self.cast_error(other, "boolean")),
        }
    }

    fn cast_error(&self, other: &Json, target: &str) -> EvalError {
        let kind = match other {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "numeric",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        };
        EvalError::InvalidParameterValue(format!("cannot cast jsonb {kind} to type {target}"))
    }
}

/// A JSON string literal as PostgreSQL writes it.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A text[] literal (`{a,b,"c d"}`) as the path `#>` and `#>>` follow.
pub fn parse_path(text: &str) -> Result<Vec<String>, EvalError> {
    let invalid = || EvalError::InvalidTextRepresentation {
        type_name: "text[]".into(),
        value: text.to_string(),
    };
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(invalid)?;
    let mut out = Vec::new();
    if inner.trim().is_empty() {
        return Ok(out);
    }
    let mut current = String::new();
    let mut quoted = false;
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => current.push(chars.next().ok_or_else(invalid)?),
            ',' if !quoted => out.push(std::mem::take(&mut current).trim().to_string()),
            c => current.push(c),
        }
    }
    if quoted {
        return Err(invalid());
    }
    out.push(current.trim().to_string());
    Ok(out)
}

/// The jsonb operators, on non-NULL operands.
pub fn eval_binary(
    func: crate::expr::BinaryFunc,
    l: crate::Datum,
    r: crate::Datum,
) -> Result<crate::Datum, EvalError> {
    use crate::expr::BinaryFunc;
    use crate::Datum;
    let Datum::Jsonb(j) = &l else {
        return Err(EvalError::Internal(format!("a jsonb operator on {l:?}")));
    };
    let found = |v: Option<&Json>, as_text: bool| match (v, as_text) {
        (None, _) => Datum::Null,
        (Some(v), false) => Datum::Jsonb(Box::new(v.clone())),
        (Some(v), true) => v.as_text().map_or(Datum::Null, Datum::String),
    };
    Ok(match (func, &r) {
        (BinaryFunc::JsonbGet { as_text }, Datum::String(key)) => found(j.field(key), as_text),
        (BinaryFunc::JsonbGet { as_text }, Datum::Int32(i)) => {
            found(j.element((*i).into()), as_text)
        }
        (BinaryFunc::JsonbGet { as_text }, Datum::Int64(i)) => found(j.element(*i), as_text),
        (BinaryFunc::JsonbPath { as_text }, Datum::String(path)) => {
            found(j.path(&parse_path(path)?), as_text)
        }
        (BinaryFunc::JsonbContains, Datum::Jsonb(other)) => Datum::Bool(j.contains(other)),
        (BinaryFunc::JsonbExists, Datum::String(key)) => Datum::Bool(j.exists(key)),
        (BinaryFunc::JsonbConcat, Datum::Jsonb(other)) => Datum::Jsonb(Box::new(j.concat(other))),
        (BinaryFunc::JsonbDelete, Datum::String(key)) => Datum::Jsonb(Box::new(j.delete_key(key)?)),
        (BinaryFunc::JsonbDelete, Datum::Int32(i)) => {
            Datum::Jsonb(Box::new(j.delete_index(i64::from(*i))?))
        }
        (func, r) => {
            return Err(EvalError::Internal(format!(
                "jsonb operator {func:?} on {r:?}"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_text_and_order() {
        let j = Json::parse(r#"{"bb": [1, 2.50, "x\n"], "a": null, "bb": true, "c": {"z": 1e2}}"#)
            .unwrap();
        assert_eq!(j.to_text(), r#"{"a": null, "c": {"z": 100}, "bb": true}"#);
        let order = [
            "null",
            "\"a\"",
            "1",
            "true",
            "[]",
            "[1, 2]",
            "{}",
            "{\"a\": 1}",
        ];
        for w in order.windows(2) {
            let (a, b) = (Json::parse(w[0]).unwrap(), Json::parse(w[1]).unwrap());
            assert_eq!(a.compare(&b, false), Ordering::Less, "{} < {}", w[0], w[1]);
        }
        assert!(Json::parse("{").is_err());
    }

    #[test]
    fn operators() {
        let j = Json::parse(r#"{"a": [1, {"b": "x"}], "s": "t"}"#).unwrap();
        assert_eq!(j.field("s").unwrap().as_text().as_deref(), Some("t"));
        assert_eq!(
            j.field("a").unwrap().element(-1).unwrap().to_text(),
            r#"{"b": "x"}"#
        );
        let path = parse_path("{a,1,b}").unwrap();
        assert_eq!(j.path(&path).unwrap().as_text().as_deref(), Some("x"));
        assert!(j.contains(&Json::parse(r#"{"a": [{"b": "x"}]}"#).unwrap()));
        assert!(!j.contains(&Json::parse(r#"{"a": [2]}"#).unwrap()));
        assert!(Json::parse("[1, 2]")
            .unwrap()
            .contains(&Json::parse("1").unwrap()));
        assert!(j.exists("a") && !j.exists("x"));
        assert!(Json::parse(r#"["a"]"#).unwrap().exists("a"));
    }
}
