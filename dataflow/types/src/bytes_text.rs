//! Text input and output of the two byte-string types, `uuid` and `bytea`, as PostgreSQL 15
//! reads and writes them.
//!
//! A `uuid` is 16 bytes (`Datum::Uuid`), ordered as bytes, as PostgreSQL's `uuid_cmp` (a
//! memcmp). Its input is 32 hex digits in either case, optionally in braces, with a hyphen
//! allowed after any group of four digits (never leading, trailing or doubled) and nothing
//! else, not even blanks (`string_to_uuid`); its output is the lower-case 8-4-4-4-12 form.
//!
//! A `bytea` is a byte vector (`Datum::Bytes`), ordered as bytes then by length, as
//! PostgreSQL's `byteacmp`. Input is the hex form (`\x` then pairs of hex digits, blanks
//! allowed between the pairs) or the escape form (`\\` a backslash, `\ooo` an octal byte,
//! everything else its UTF-8 bytes); output is the hex form, PostgreSQL's default
//! `bytea_output`, or the escape form under `bytea_output = 'escape'` (`write_bytea_escaped`:
//! printable ASCII as itself, a backslash doubled, every other byte `\ooo` in octal).

use crate::error::EvalError;
use std::fmt::Write;

/// Reads PostgreSQL's text form of a uuid.
pub fn parse_uuid(text: &str) -> Result<[u8; 16], EvalError> {
    let invalid = || EvalError::InvalidTextRepresentation {
        type_name: "uuid".into(),
        value: text.into(),
    };
    let mut s = text.as_bytes();
    let braces = s.first() == Some(&b'{');
    if braces {
        s = &s[1..];
    }
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        let (hi, lo) = match s {
            [a, b, ..] => (
                hex_value(*a).ok_or_else(invalid)?,
                hex_value(*b).ok_or_else(invalid)?,
            ),
            _ => return Err(invalid()),
        };
        *byte = hi << 4 | lo;
        s = &s[2..];
        if s.first() == Some(&b'-') && i % 2 == 1 && i < 15 {
            s = &s[1..];
        }
    }
    if braces {
        match s.split_first() {
            Some((b'}', rest)) => s = rest,
            _ => return Err(invalid()),
        }
    }
    if !s.is_empty() {
        return Err(invalid());
    }
    Ok(out)
}

/// Writes a uuid as PostgreSQL does: lower-case hex in groups of 8-4-4-4-12.
pub fn write_uuid(u: &[u8; 16], out: &mut String) {
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        write!(out, "{b:02x}").unwrap();
    }
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Reads PostgreSQL's text form of a bytea (`byteain`): hex after `\x`, else the escape form.
pub fn parse_bytea(text: &str) -> Result<Vec<u8>, EvalError> {
    if let Some(hex) = text.strip_prefix("\\x") {
        return parse_hex(hex);
    }
    let invalid = || EvalError::InvalidTextSyntax("invalid input syntax for type bytea".into());
    let s = text.as_bytes();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            out.push(s[i]);
            i += 1;
            continue;
        }
        match s.get(i + 1..i + 4) {
            Some([a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7']) => {
                out.push((a - b'0') << 6 | (b - b'0') << 3 | (c - b'0'));
                i += 4;
            }
            _ if s.get(i + 1) == Some(&b'\\') => {
                out.push(b'\\');
                i += 2;
            }
            _ => return Err(invalid()),
        }
    }
    Ok(out)
}

/// Hex digit pairs, blanks allowed between pairs (PostgreSQL's `hex_decode`).
fn parse_hex(hex: &str) -> Result<Vec<u8>, EvalError> {
    let bad_digit = |rest: &str| {
        let c = rest.chars().next().expect("a character is left");
        EvalError::InvalidParameterValue(format!("invalid hexadecimal digit: \"{c}\""))
    };
    let mut out = Vec::with_capacity(hex.len() / 2);
    let mut rest = hex;
    while let Some(&c) = rest.as_bytes().first() {
        if matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
            rest = &rest[1..];
            continue;
        }
        let hi = hex_value(c).ok_or_else(|| bad_digit(rest))?;
        rest = &rest[1..];
        let Some(&c) = rest.as_bytes().first() else {
            return Err(EvalError::InvalidParameterValue(
                "invalid hexadecimal data: odd number of digits".into(),
            ));
        };
        let lo = hex_value(c).ok_or_else(|| bad_digit(rest))?;
        rest = &rest[1..];
        out.push(hi << 4 | lo);
    }
    Ok(out)
}

/// Writes a bytea in the hex output form: `\x` and two lower-case digits a byte.
pub fn write_bytea(b: &[u8], out: &mut String) {
    out.reserve(2 + 2 * b.len());
    out.push_str("\\x");
    for byte in b {
        write!(out, "{byte:02x}").unwrap();
    }
}

/// Writes a bytea in PostgreSQL's escape form (`bytea_output = 'escape'`): bytes 0x20 to
/// 0x7e as themselves, except the backslash, written `\\`; the others as `\` and three
/// octal digits.
pub fn write_bytea_escaped(b: &[u8], out: &mut String) {
    for &byte in b {
        match byte {
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(byte as char),
            _ => write!(out, "\\{byte:03o}").unwrap(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_output() {
        let mut out = String::new();
        write_bytea_escaped(b"a\\b\x00\xff \x7f~", &mut out);
        assert_eq!(out, "a\\\\b\\000\\377 \\177~");
        assert_eq!(parse_bytea(&out).unwrap(), b"a\\b\x00\xff \x7f~");
    }

    fn uuid_text(s: &str) -> Result<String, String> {
        let u = parse_uuid(s).map_err(|e| e.to_string())?;
        let mut out = String::new();
        write_uuid(&u, &mut out);
        Ok(out)
    }

    /// Forms and answers checked against PostgreSQL 15.
    #[test]
    fn uuid_input_forms() {
        let want = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
        for ok in [
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
        ] {
            assert_eq!(uuid_text(ok).as_deref(), Ok(want), "{ok}");
        }
        for bad in [
            "",
            " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
            "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
            "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
            "a0eeb-c99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ] {
            assert!(uuid_text(bad).is_err(), "{bad}");
        }
    }

    fn bytea_text(s: &str) -> Result<String, (String, &'static str)> {
        let b = parse_bytea(s).map_err(|e| (e.to_string(), e.sqlstate()))?;
        let mut out = String::new();
        write_bytea(&b, &mut out);
        Ok(out)
    }

    #[test]
    fn bytea_input_forms() {
        assert_eq!(bytea_text("\\xDEADbeef").unwrap(), "\\xdeadbeef");
        assert_eq!(bytea_text("\\x de ad\n").unwrap(), "\\xdead");
        assert_eq!(bytea_text("\\x").unwrap(), "\\x");
        assert_eq!(bytea_text("").unwrap(), "\\x");
        assert_eq!(bytea_text("abc\\000").unwrap(), "\\x61626300");
        assert_eq!(bytea_text("a\\\\b\\377").unwrap(), "\\x615c62ff");
        assert_eq!(bytea_text("é").unwrap(), "\\xc3a9");
        assert_eq!(
            bytea_text("\\xabc").unwrap_err(),
            (
                "invalid hexadecimal data: odd number of digits".to_string(),
                "22023"
            )
        );
        assert_eq!(
            bytea_text("\\xa b").unwrap_err(),
            ("invalid hexadecimal digit: \" \"".to_string(), "22023")
        );
        assert_eq!(
            bytea_text("\\xzz").unwrap_err(),
            ("invalid hexadecimal digit: \"z\"".to_string(), "22023")
        );
        for bad in ["\\", "a\\b", "\\400", "\\08"] {
            assert_eq!(
                bytea_text(bad).unwrap_err(),
                ("invalid input syntax for type bytea".to_string(), "22P02"),
                "{bad}"
            );
        }
    }
}
