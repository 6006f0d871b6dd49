//! The row `(x, n)` that `information_schema._pg_expandarray` returns per array element (its
//! value and its position from 1), the one composite value kpg has: pgjdbc's metadata queries
//! select it whole and read its fields (`(keys).x`). Its type is
//! `ScalarType::ExpandedElement(elem)`; its value a `Datum::Record([x, n])`, written as
//! PostgreSQL writes a record, `(3,1)` (a field quoted when empty or holding whitespace or one
//! of `"\(),`, with `"` and `\` doubled; NULL as nothing).

use crate::datum::Datum;

/// The fields' names, in order.
pub const FIELDS: [&str; 2] = ["x", "n"];

/// Writes `(a,b)`.
pub(crate) fn write(fields: &[Datum], out: &mut String, write_field: impl Fn(&Datum, &mut String)) {
    out.push('(');
    let mut text = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if f.is_null() {
            continue;
        }
        text.clear();
        write_field(f, &mut text);
        let quote = text.is_empty()
            || text
                .chars()
                .any(|c| matches!(c, '"' | '\\' | '(' | ')' | ',') || c.is_ascii_whitespace());
        if !quote {
            out.push_str(&text);
            continue;
        }
        out.push('"');
        for c in text.chars() {
            if matches!(c, '"' | '\\') {
                out.push(c);
            }
            out.push(c);
        }
        out.push('"');
    }
    out.push(')');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_as_postgres_writes_records() {
        let d = Datum::Record(vec![Datum::Int16(3), Datum::Int32(1)]);
        assert_eq!(d.to_text().unwrap(), "(3,1)");
        let d = Datum::Record(vec![Datum::String("a \"b\"".into()), Datum::Null]);
        assert_eq!(d.to_text().unwrap(), r#"("a ""b""",)"#);
    }
}
