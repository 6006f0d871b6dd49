//! One-dimensional SQL arrays: the element type, PostgreSQL's text format, and their order.
//!
//! An array value is `Datum::Array(Vec<Datum>)`: its elements in order, NULLs among them, lower
//! bound 1. kpg has no multi-dimensional arrays and no other lower bounds; input that asks for
//! either (`'{{1,2}}'`, `'[0:1]={1,2}'`) is refused with 0A000, never read as something else.
//!
//! `ScalarType` is `Copy` everywhere in the planner, so an array type cannot own its element
//! type in a `Box`. `ArrayElem` is a `Copy` handle to an interned element type instead: each
//! distinct element type (a handful per process: `int4`, `numeric(10,2)`, ...) is leaked once
//! and shared. Element types are never arrays themselves (PostgreSQL's `int[][]` is `int[]`).
//!
//! Order (PostgreSQL's btree order of arrays): element by element, a NULL element after every
//! value; a prefix before the longer array. So `=` treats two NULL elements as equal, as
//! PostgreSQL's `array_eq` does. Text output quotes an element that is empty, spells NULL in any
//! case, or holds whitespace or one of `"\{},`, escaping `"` and `\` with a backslash.

pub mod binary;
pub mod funcs;
pub mod int2vector;
pub mod record;

use crate::datum::Datum;
use crate::error::EvalError;
use crate::scalar::ScalarType;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// The element type of an array type: a `Copy` handle to an interned `ScalarType`.
#[derive(Clone, Copy)]
pub struct ArrayElem(&'static ScalarType);

static INTERNED: Mutex<Vec<&'static ScalarType>> = Mutex::new(Vec::new());

impl ArrayElem {
    /// The handle of `ty` (which must not be an array type).
    pub fn new(ty: ScalarType) -> ArrayElem {
        assert!(
            !matches!(ty, ScalarType::Array(_)),
            "an array's element type is never an array"
        );
        let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = interned.iter().find(|t| ***t == ty) {
            return ArrayElem(t);
        }
        let t: &'static ScalarType = Box::leak(Box::new(ty));
        interned.push(t);
        ArrayElem(t)
    }

    pub fn get(&self) -> ScalarType {
        *self.0
    }
}

impl PartialEq for ArrayElem {
    fn eq(&self, other: &ArrayElem) -> bool {
        self.0 == other.0
    }
}

impl Eq for ArrayElem {}

impl Hash for ArrayElem {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}

impl fmt::Debug for ArrayElem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for ArrayElem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ArrayElem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ScalarType::deserialize(d).map(ArrayElem::new)
    }
}

/// The PostgreSQL OID of the array type whose elements have type OID `elem`, if it has one.
pub fn array_oid(elem: u32) -> u32 {
    ARRAY_OIDS
        .iter()
        .find(|(e, _)| *e == elem)
        .map_or(0, |(_, a)| *a)
}

/// (element type OID, array type OID) of PostgreSQL's array types for kpg's types.
pub const ARRAY_OIDS: &[(u32, u32)] = &[
    (16, 1000),
    (17, 1001),
    (20, 1016),
    (21, 1005),
    (23, 1007),
    (25, 1009),
    (700, 1021),
    (701, 1022),
    (1042, 1014),
    (1043, 1015),
    (1082, 1182),
    (1083, 1183),
    (1114, 1115),
    (1184, 1185),
    (1186, 1187),
    (1700, 1231),
    (2950, 2951),
    (3802, 3807),
];

/// The element type OID of the array type with OID `array` (0 if it is none of kpg's).
pub fn element_oid(array: u32) -> u32 {
    ARRAY_OIDS
        .iter()
        .find(|(_, a)| *a == array)
        .map_or(0, |(e, _)| *e)
}

/// SQL's order of two arrays (see the module doc); `representation` breaks ties between
/// SQL-equal elements as `Datum`'s identity order does.
pub(crate) fn compare(a: &[Datum], b: &[Datum], representation: bool) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) if representation => x.cmp(y),
            (false, false) => x.sql_cmp(y),
        };
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// The array with every element in its canonical representation, or `None` when it is.
pub(crate) fn canonical(elems: &[Datum]) -> Option<Datum> {
    if elems.iter().all(|e| e.canonical().is_none()) {
        return None;
    }
    let canon = elems
        .iter()
        .map(|e| e.canonical().unwrap_or_else(|| e.clone()));
    Some(Datum::Array(canon.collect()))
}

/// Writes PostgreSQL's text form of an array whose elements `write_elem` writes.
pub(crate) fn write(elems: &[Datum], out: &mut String, write_elem: impl Fn(&Datum, &mut String)) {
    out.push('{');
    let mut text = String::new();
    for (i, e) in elems.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if e.is_null() {
            out.push_str("NULL");
            continue;
        }
        text.clear();
        write_elem(e, &mut text);
        let quote = text.is_empty()
            || text.eq_ignore_ascii_case("NULL")
            || text
                .chars()
                .any(|c| matches!(c, '"' | '\\' | '{' | '}' | ',') || is_space(c));
        if !quote {
            out.push_str(&text);
            continue;
        }
        out.push('"');
        for c in text.chars() {
            if matches!(c, '"' | '\\') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
    }
    out.push('}');
}

/// The whitespace PostgreSQL's array input skips (C's `isspace`).
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// One item of array text: an element's text (`None` for an unquoted NULL) or a nested list.
enum Item {
    Elem(Option<String>),
    List(Vec<Item>),
}

/// Reads PostgreSQL's text form of an array of `elem` values.
pub fn parse(text: &str, elem: ScalarType) -> Result<Datum, EvalError> {
    let malformed = |detail: &str| EvalError::MalformedArrayLiteral {
        value: text.to_string(),
        detail: detail.to_string(),
    };
    let rest = text.trim_start_matches(is_space);
    if rest.starts_with('[') {
        return Err(EvalError::Unsupported(
            "arrays with explicit bounds (dimension decorations)".into(),
        ));
    }
    if !rest.starts_with('{') {
        return Err(malformed(
            "Array value must start with \"{\" or dimension information.",
        ));
    }
    let mut reader = Reader {
        chars: rest.chars().collect(),
        pos: 0,
    };
    let top = reader.list(0).map_err(malformed)?;
    if reader.chars[reader.pos..].iter().any(|c| !is_space(*c)) {
        return Err(malformed("Junk after closing right brace."));
    }
    let Item::List(items) = top else {
        unreachable!("a list was read")
    };
    if items.iter().any(|i| matches!(i, Item::List(_))) {
        return Err(EvalError::Unsupported("multidimensional arrays".into()));
    }
    let mut elems = Vec::with_capacity(items.len());
    for item in items {
        elems.push(match item {
            Item::Elem(Some(s)) => Datum::parse_text(&s, &elem)?,
            _ => Datum::Null,
        });
    }
    Ok(Datum::Array(elems))
}

/// A cursor over array text; errors are PostgreSQL's DETAIL lines.
struct Reader {
    chars: Vec<char>,
    pos: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
    }

    /// A `{...}` list, the reader on its `{`. Siblings must all be lists or all elements,
    /// and sibling lists of one length.
    fn list(&mut self, depth: usize) -> Result<Item, &'static str> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some('}') && depth > 0 {
            return Err("Unexpected \"}\" character.");
        }
        if self.peek() == Some('}') {
            self.pos += 1;
            return Ok(Item::List(items));
        }
        loop {
            self.skip_space();
            let item = match self.peek() {
                None => return Err("Unexpected end of input."),
                Some('{') => self.list(depth + 1)?,
                Some('}') => return Err("Unexpected \"}\" character."),
                Some(',') => return Err("Unexpected \",\" character."),
                Some(_) => Item::Elem(self.element()?),
            };
            if let Some(first) = items.first() {
                match (first, &item) {
                    (Item::List(a), Item::List(b)) if a.len() != b.len() => return Err(
                        "Multidimensional arrays must have sub-arrays with matching dimensions.",
                    ),
                    (Item::List(_), Item::List(_)) | (Item::Elem(_), Item::Elem(_)) => {}
                    _ => return Err("Unexpected array element."),
                }
            }
            items.push(item);
            self.skip_space();
            match self.peek() {
                None => return Err("Unexpected end of input."),
                Some(',') => self.pos += 1,
                Some('}') => {
                    self.pos += 1;
                    return Ok(Item::List(items));
                }
                Some(_) => return Err("Unexpected array element."),
            }
        }
    }

    /// One element, quoted or not; `None` for an unquoted NULL.
    fn element(&mut self) -> Result<Option<String>, &'static str> {
        let mut out = String::new();
        if self.peek() == Some('"') {
            self.pos += 1;
            loop {
                match self.peek() {
                    None => return Err("Unexpected end of input."),
                    Some('"') => {
                        self.pos += 1;
                        break;
                    }
                    Some('\\') => {
                        self.pos += 1;
                        out.push(self.peek().ok_or("Unexpected end of input.")?);
                        self.pos += 1;
                    }
                    Some(c) => {
                        out.push(c);
                        self.pos += 1;
                    }
                }
            }
            self.skip_space();
            return match self.peek() {
                None | Some(',') | Some('}') => Ok(Some(out)),
                Some(_) => Err("Unexpected array element."),
            };
        }
        // Unquoted: up to a delimiter; unescaped whitespace at the end does not count.
        let mut escaped = false;
        let mut kept = 0;
        loop {
            match self.peek() {
                None => return Err("Unexpected end of input."),
                Some(',') | Some('}') => break,
                Some('"') | Some('{') => return Err("Unexpected array element."),
                Some('\\') => {
                    self.pos += 1;
                    out.push(self.peek().ok_or("Unexpected end of input.")?);
                    self.pos += 1;
                    escaped = true;
                    kept = out.len();
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                    if !is_space(c) {
                        kept = out.len();
                    }
                }
            }
        }
        out.truncate(kept);
        if !escaped && out.eq_ignore_ascii_case("NULL") {
            return Ok(None);
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests;
