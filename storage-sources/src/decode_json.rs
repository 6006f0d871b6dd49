//! The members of a JSON object that are a source's columns, read without building the
//! document: string members are borrowed from the record's bytes (copied only when they hold
//! escapes), members that are not columns are skipped as they are parsed, and only numbers,
//! booleans, arrays and objects become a `serde_json::Value` (what their column's text input
//! reads). `decode.rs` then writes each column into the row's packer with PostgreSQL's input
//! rules. serde_json parses as it does for a whole `Value`: the same syntax errors, and of a
//! key given twice the last value counts.

use std::borrow::Cow;
use std::fmt;

use kpg_types::ScalarType;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// One member's value.
pub enum Field<'de> {
    Null,
    Str(Cow<'de, str>),
    /// A number, boolean, array or object.
    Value(serde_json::Value),
}

/// The value of each column in the object `bytes` holds (`None`: no member of that name).
/// `bytes` must hold an object (it starts with `{` after any whitespace).
pub fn object_fields<'de>(
    bytes: &'de [u8],
    columns: &[(String, ScalarType)],
) -> Result<Vec<Option<Field<'de>>>, serde_json::Error> {
    // The whole record is UTF-8 (as a parse into a `Value` requires), skipped members too.
    let text = std::str::from_utf8(bytes)
        .map_err(|e| <serde_json::Error as de::Error>::custom(format!("invalid UTF-8: {e}")))?;
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = de.deserialize_map(Object { columns })?;
    de.end()?;
    Ok(fields)
}

struct Object<'c> {
    columns: &'c [(String, ScalarType)],
}

impl<'de> Visitor<'de> for Object<'_> {
    type Value = Vec<Option<Field<'de>>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields: Vec<Option<Field<'de>>> = (0..self.columns.len()).map(|_| None).collect();
        while let Some(key) = map.next_key_seed(Key)? {
            match self.columns.iter().position(|(name, _)| *name == *key) {
                Some(i) => fields[i] = Some(map.next_value_seed(Member)?),
                None => map.next_value_seed(Skip)?,
            }
        }
        Ok(fields)
    }
}

/// A member's name, borrowed unless it holds escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_string()))
    }
}

/// A column member's value.
struct Member;

impl<'de> DeserializeSeed<'de> for Member {
    type Value = Field<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Member {
    type Value = Field<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Field::Null)
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(s.to_string())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(s)))
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Field::Value(serde_json::Value::Bool(b)))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Field::Value(n.into()))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
        Ok(Field::Value(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
        Ok(Field::Value(n.into()))
    }

    /// An object, or (serde_json keeping every digit of numbers) a number: `Value` tells them
    /// apart as it does when it reads a whole document.
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        serde_json::Value::deserialize(MapAccessDeserializer::new(map)).map(Field::Value)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        serde_json::Value::deserialize(SeqAccessDeserializer::new(seq)).map(Field::Value)
    }
}

/// A member that is not a column: parsed as a `Value` would be (strings decoded, escapes
/// checked), nothing kept. serde's `IgnoredAny` would skip strings without checking escapes.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}
