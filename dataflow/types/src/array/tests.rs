//! Array text input and output against PostgreSQL 15's answers for the same strings.

use super::*;

fn text_array(s: &str) -> Result<Datum, EvalError> {
    parse(s, ScalarType::Text)
}

fn out(d: &Datum) -> String {
    d.to_text().unwrap()
}

#[test]
fn output_quotes_as_postgres() {
    let d = Datum::Array(
        [
            "a b", "", "null", "x\"y", "q\\z", "{", "\t", "plain", "NULL",
        ]
        .iter()
        .map(|s| Datum::String(s.to_string()))
        .chain([Datum::Null])
        .collect(),
    );
    assert_eq!(
        out(&d),
        r#"{"a b","","null","x\"y","q\\z","{","	",plain,"NULL",NULL}"#
    );
    assert_eq!(out(&Datum::Array(vec![])), "{}");
    let ints = Datum::Array(vec![Datum::Int32(1), Datum::Int32(-2), Datum::Null]);
    assert_eq!(out(&ints), "{1,-2,NULL}");
}

#[test]
fn input_reads_quotes_escapes_and_null() {
    let d = text_array(r#" {ab , " x " , NULL, "NULL", \N, a\,b, \ x, nUlL, a b} "#).unwrap();
    assert_eq!(out(&d), r#"{ab," x ",NULL,"NULL",N,"a,b"," x",NULL,"a b"}"#);
    assert_eq!(out(&text_array("{}").unwrap()), "{}");
    assert_eq!(out(&text_array("{ }").unwrap()), "{}");
    assert_eq!(out(&text_array(r#"{""}"#).unwrap()), r#"{""}"#);
    let ints = parse("{1, 2 ,NULL}", ScalarType::Int32).unwrap();
    assert_eq!(
        ints,
        Datum::Array(vec![Datum::Int32(1), Datum::Int32(2), Datum::Null])
    );
}

#[test]
fn output_reads_back() {
    for s in [
        "{}",
        r#"{"a b","","null","x\"y","q\\z"}"#,
        "{a,NULL,\"{}\"}",
    ] {
        assert_eq!(out(&text_array(s).unwrap()), s);
    }
}

#[test]
fn bad_input_is_22p02() {
    for s in [
        "{1,", "{1", "1", "{{1},2}", "{1,2} x", "{a\"b\"}", "{,}", "{1,,2}", "", "{\"a", "{{}}",
    ] {
        let e = text_array(s).unwrap_err();
        assert_eq!(e.sqlstate(), "22P02", "{s}: {e}");
    }
    let e = parse("{a}", ScalarType::Int32).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid input syntax for type integer: \"a\""
    );
    let e = text_array("{1,").unwrap_err();
    assert_eq!(e.to_string(), "malformed array literal: \"{1,\"");
    assert_eq!(e.detail().as_deref(), Some("Unexpected end of input."));
}

#[test]
fn multidimensional_and_bounds_are_refused() {
    for s in ["{{1,2},{3,4}}", "[0:1]={1,2}", "{{1}}"] {
        assert_eq!(text_array(s).unwrap_err().sqlstate(), "0A000", "{s}");
    }
}

#[test]
fn order_puts_nulls_last_and_prefixes_first() {
    let a = |v: &[Option<i32>]| {
        Datum::Array(
            v.iter()
                .map(|i| i.map_or(Datum::Null, Datum::Int32))
                .collect(),
        )
    };
    assert!(a(&[Some(1), Some(2)]) < a(&[Some(1), Some(3)]));
    assert!(a(&[Some(1)]) < a(&[Some(1), Some(0)]));
    assert!(a(&[]) < a(&[Some(-5)]));
    assert!(a(&[Some(9)]) < a(&[None]));
    assert!(a(&[None]).sql_cmp(&a(&[None])).is_eq());
}
