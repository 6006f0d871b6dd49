//! Unit tests of `numeric`: PostgreSQL's text forms, scales and binary form on values small and
//! beyond 28 digits (expected values are PostgreSQL 15's output), and properties of the
//! arithmetic checked exactly on big integers over random operands.

use super::*;
use proptest::prelude::*;

fn n(s: &str) -> Numeric {
    Numeric::parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

#[test]
fn text_in_and_out() {
    for (input, output) in [
        ("1.50", "1.50"),
        ("-0.000", "0.000"),
        (".5", "0.5"),
        ("5.", "5"),
        ("+7", "7"),
        ("1e5", "100000"),
        ("1.5e1", "15"),
        ("1.55e1", "15.5"),
        ("1.5E-3", "0.0015"),
        ("1e-40", "0.0000000000000000000000000000000000000001"),
        ("3.4e38", "340000000000000000000000000000000000000"),
        (
            "-123456789012345678901234567890.123456789",
            "-123456789012345678901234567890.123456789",
        ),
        ("000123.4500", "123.4500"),
    ] {
        assert_eq!(n(input).to_string(), output, "{input}");
    }
    for (special, text) in [
        ("NaN", "NaN"),
        ("nan", "NaN"),
        ("-Infinity", "-Infinity"),
        ("inf", "Infinity"),
        ("+infinity", "Infinity"),
        ("-INF", "-Infinity"),
    ] {
        assert_eq!(n(special).to_string(), text, "{special}");
    }
    for bad in [
        "", "abc", "1e", "1e+", "1.2.3", "e5", "--1", ".", "1 2", "0x10", "-NaN", "+nan", "infin",
    ] {
        assert_eq!(
            Numeric::parse(bad).unwrap_err(),
            ParseError::Invalid,
            "{bad}"
        );
    }
    for huge in ["1e200000", "1e-20000", "1e99999999999999999999"] {
        assert_eq!(
            Numeric::parse(huge).unwrap_err(),
            ParseError::Overflow,
            "{huge}"
        );
    }
    // The limits themselves are values.
    let most = format!("{}.{}", "9".repeat(131_072), "9".repeat(16_383));
    assert_eq!(n(&most).to_string(), most);
}

#[test]
fn equal_values_are_equal_and_hash_alike_in_every_form() {
    use std::collections::hash_map::DefaultHasher;
    let hash = |v: &Numeric| {
        let mut h = DefaultHasher::new();
        v.hash(&mut h);
        h.finish()
    };
    let groups = [
        vec!["3", "3.00", "3.0000000000000000000000000000000000000000"],
        vec!["0", "0.0", "-0.00", "0e-40"],
        vec!["1e30", "1000000000000000000000000000000.000"],
        vec!["-0.5", "-0.50000000000000000000000000000000"],
    ];
    for group in &groups {
        for a in group {
            for b in group {
                assert_eq!(n(a), n(b), "{a} = {b}");
                assert_eq!(hash(&n(a)), hash(&n(b)), "hash {a} = hash {b}");
            }
        }
    }
    let ordered = [
        "-1e30",
        "-2",
        "-0.0000000000000000000000000000001",
        "0",
        "1e-40",
        "0.5",
        "3",
        "1e30",
    ];
    for w in ordered.windows(2) {
        assert!(n(w[0]) < n(w[1]), "{} < {}", w[0], w[1]);
    }
}

#[test]
fn arithmetic_scales() {
    let add = |a: &str, b: &str| n(a).checked_add(&n(b)).unwrap().to_string();
    let mul = |a: &str, b: &str| n(a).checked_mul(&n(b)).unwrap().to_string();
    let div = |a: &str, b: &str| n(a).checked_div(&n(b)).unwrap().to_string();
    let rem = |a: &str, b: &str| n(a).checked_rem(&n(b)).unwrap().to_string();
    assert_eq!(add("1.5", "2.25"), "3.75");
    assert_eq!(add("1.50", "-1.5"), "0.00");
    assert_eq!(
        add("1e-40", "1"),
        "1.0000000000000000000000000000000000000001"
    );
    assert_eq!(
        add("79228162514264337593543950335", "1"),
        "79228162514264337593543950336"
    );
    assert_eq!(
        mul("0.00000000000001", "0.000000000000001"),
        "0.00000000000000000000000000001"
    );
    assert_eq!(mul("1.10", "2.0"), "2.200");
    assert_eq!(
        mul("123456789012345678901234567890", "10"),
        "1234567890123456789012345678900"
    );
    assert_eq!(div("1", "3"), "0.33333333333333333333");
    assert_eq!(div("2", "3"), "0.66666666666666666667");
    assert_eq!(div("10", "3.0"), "3.3333333333333333");
    assert_eq!(div("10", "4"), "2.5000000000000000");
    assert_eq!(div("1", "7.000000"), "0.14285714285714285714");
    assert_eq!(div("-1", "3"), "-0.33333333333333333333");
    assert_eq!(div("1", "-8"), "-0.12500000000000000000");
    assert_eq!(div("0", "7"), "0.00000000000000000000");
    assert_eq!(div("5", "0.5"), "10.0000000000000000");
    // A dividend with more than 1000 digits after the point: the quotient's scale is capped.
    let tiny = format!("0.{}3", "0".repeat(1500));
    assert_eq!(
        n(&tiny).checked_div(&n("3")).unwrap().to_string(),
        format!("0.{}", "0".repeat(1000))
    );
    let small = format!("1.{}5", "0".repeat(1200));
    assert_eq!(
        n(&small).checked_div(&n("0.5")).unwrap().to_string(),
        format!("2.{}", "0".repeat(1000))
    );
    assert_eq!(div("1", "0.0003"), "3333.3333333333333333");
    assert_eq!(rem("10.5", "3"), "1.5");
    assert_eq!(rem("-7.25", "2"), "-1.25");
    assert_eq!(rem("7", "-2.5"), "2.0");
    assert_eq!(
        n("1").checked_div(&n("0.00")),
        Err(EvalError::DivisionByZero)
    );
    assert_eq!(n("1").checked_rem(&n("0")), Err(EvalError::DivisionByZero));
    // Beyond the limits: 22003.
    let big = n(&format!("1{}", "0".repeat(100_000)));
    assert_eq!(big.checked_mul(&big), Err(EvalError::NumericOverflow));
}

#[test]
fn rounding_and_typmods() {
    let round = |s: &str, p: i64, r: Rounding| n(s).round(p, r).unwrap().to_string();
    assert_eq!(round("2.5", 0, Rounding::HalfAway), "3");
    assert_eq!(round("-2.5", 0, Rounding::HalfAway), "-3");
    assert_eq!(round("2.567", 2, Rounding::HalfAway), "2.57");
    assert_eq!(round("2.5", 2, Rounding::HalfAway), "2.50");
    assert_eq!(round("1234.5", -2, Rounding::HalfAway), "1200");
    assert_eq!(round("-1250", -2, Rounding::HalfAway), "-1300");
    assert_eq!(round("0.4", 0, Rounding::HalfAway), "0");
    assert_eq!(round("-2.7", 0, Rounding::Trunc), "-2");
    assert_eq!(round("-2.5", 0, Rounding::Floor), "-3");
    assert_eq!(round("-0.5", 0, Rounding::Ceil), "0");
    assert_eq!(round("2.1", 0, Rounding::Ceil), "3");
    // Extreme places (expected values are PostgreSQL 15's): far left of the point, zero or
    // overflow; right of it, at most 16383 digits.
    assert_eq!(
        round("4.4e131071", -131071, Rounding::HalfAway),
        round("4e131071", 0, Rounding::Trunc)
    );
    assert_eq!(round("5e131071", -131073, Rounding::HalfAway), "0");
    assert_eq!(round("-9e100", i64::MIN, Rounding::Trunc), "0");
    assert_eq!(round("123.4", -3000, Rounding::HalfAway), "0");
    assert_eq!(
        n("5e131071").round(-131072, Rounding::HalfAway),
        Err(EvalError::NumericOverflow)
    );
    assert_eq!(
        n("1.5")
            .round(i64::MAX, Rounding::HalfAway)
            .unwrap()
            .scale(),
        16383
    );
    assert_eq!(n("1.5").round(2001, Rounding::Trunc).unwrap().scale(), 2001);
    assert_eq!(
        round(
            "0.12345678901234567890123456789012345",
            30,
            Rounding::HalfAway
        ),
        "0.123456789012345678901234567890"
    );
    assert_eq!(
        n("123.456").apply_typmod(5, 2).unwrap().to_string(),
        "123.46"
    );
    assert_eq!(
        n("1.5").apply_typmod(40, 20).unwrap().to_string(),
        "1.50000000000000000000"
    );
    assert_eq!(
        n("999.995").apply_typmod(5, 2),
        Err(EvalError::NumericFieldOverflow {
            precision: 5,
            scale: 2
        })
    );
    assert_eq!(n("2.5").to_i64_rounded(), Some(3));
    assert_eq!(n("-2.5").to_i64_rounded(), Some(-3));
    assert_eq!(n("1e30").to_i64_rounded(), None);
}

#[test]
fn floats() {
    assert_eq!(Numeric::from_f64(0.1 + 0.2, 15).unwrap().to_string(), "0.3");
    assert_eq!(
        Numeric::from_f64(1e-40, 15).unwrap().to_string(),
        n("1e-40").to_string()
    );
    assert_eq!(Numeric::from_f64(100.0, 15).unwrap().to_string(), "100");
    assert_eq!(
        Numeric::from_f64(1.5e20, 15).unwrap().to_string(),
        "150000000000000000000"
    );
}

#[test]
fn binary_form_matches_postgres() {
    let words = |v: &Numeric| -> Vec<i16> {
        v.to_pg_binary()
            .chunks(2)
            .map(|c| i16::from_be_bytes([c[0], c[1]]))
            .collect()
    };
    // ndigits, weight, sign, dscale, digits… as numeric_send writes them.
    assert_eq!(words(&n("1.50")), [2, 0, 0, 2, 1, 5000]);
    assert_eq!(words(&n("0.0001")), [1, -1, 0, 4, 1]);
    assert_eq!(words(&n("10000")), [1, 1, 0, 0, 1]);
    assert_eq!(words(&n("0.00")), [0, 0, 0, 2]);
    assert_eq!(words(&n("-12345.678")), [3, 1, 0x4000, 3, 1, 2345, 6780]);
    assert_eq!(words(&n("1e-40")), [1, -10, 0, 40, 1]);
}

fn operand() -> impl Strategy<Value = Numeric> {
    prop_oneof![
        (-1000i64..1000, 0u32..8).prop_map(|(m, s)| Numeric::new(m, s)),
        (any::<i64>(), 0u32..12).prop_map(|(m, s)| Numeric::new(m, s)),
        (any::<i128>(), 0u32..40)
            .prop_map(|(m, s)| Numeric::from_parts(BigInt::from(m), s).unwrap()),
    ]
}

/// The exact rational value as (numerator, power of ten in the denominator).
fn exact(v: &Numeric) -> (BigInt, u32) {
    v.parts()
}

proptest! {
    #[test]
    fn sums_and_products_are_exact(a in operand(), b in operand()) {
        let (am, as_) = exact(&a);
        let (bm, bs) = exact(&b);
        let s = as_.max(bs);
        let sum = a.checked_add(&b).unwrap();
        prop_assert_eq!(sum.scale(), s);
        prop_assert_eq!(sum.parts().0, &am * pow10(s - as_) + &bm * pow10(s - bs));
        let product = a.checked_mul(&b).unwrap();
        prop_assert_eq!(product.parts(), (&am * &bm, as_ + bs));
        prop_assert_eq!(a.checked_sub(&a).unwrap(), Numeric::ZERO);
        prop_assert_eq!(sum.to_string().parse::<Numeric>().unwrap().parts(), sum.parts());
    }

    #[test]
    fn quotients_are_within_half_a_unit_and_remainders_add_up(a in operand(), b in operand()) {
        prop_assume!(!b.is_zero());
        let q = a.checked_div(&b).unwrap();
        // |a - q·b| ≤ |b| · 10^-scale(q) / 2, all scaled to integers.
        let (qm, qs) = q.parts();
        let (am, as_) = exact(&a);
        let (bm, bs) = exact(&b);
        let top = as_.max(qs + bs);
        let lhs = (&am * pow10(top - as_) - &qm * &bm * pow10(top - qs - bs)).abs() * 2;
        let rhs = bm.abs() * pow10(top - qs - bs);
        prop_assert!(lhs <= rhs, "{a} / {b} = {q}");
        let r = a.checked_rem(&b).unwrap();
        let t = a.checked_sub(&r).unwrap().checked_div(&b).unwrap();
        prop_assert_eq!(t.clone(), t.round(0, Rounding::Trunc).unwrap(), "{} % {} = {}", a, b, r);
        prop_assert!(r.abs() < b.abs());
        prop_assert!(r.is_zero() || r.signum() == a.signum());
    }
}

proptest! {
    /// The allocation-free reading of plain decimals agrees with the general parser on value,
    /// scale and text, and leaves everything else (exponents, too many digits, junk) to it.
    #[test]
    fn plain_decimals_parse_as_the_general_parser_reads_them(
        sign in prop::sample::select(vec!["", "-", "+"]),
        int in "[0-9]{0,20}",
        point in any::<bool>(),
        frac in "[0-9]{0,20}",
        tail in prop::sample::select(vec!["", "", "", "e3", "x", " ", ".", "e"]),
    ) {
        let text = format!("{sign}{int}{}{frac}{tail}", if point { "." } else { "" });
        let general = Numeric::parse_general(&text);
        match Numeric::parse_plain(&text) {
            Some(plain) => {
                let general = general
                    .clone()
                    .expect("the general parser reads what the plain one does");
                prop_assert_eq!(plain.to_string(), general.to_string(), "{}", text);
                prop_assert_eq!(plain.scale(), general.scale(), "{}", text);
                prop_assert!(plain == general);
            }
            None => {
                let digits = int.len() + frac.len();
                prop_assert!(
                    !tail.is_empty() || digits == 0 || digits > 28,
                    "{} left to the general parser", text
                );
            }
        }
        prop_assert_eq!(
            Numeric::parse(&text).map(|n| n.to_string()),
            general.map(|n| n.to_string())
        );
    }
}

#[test]
fn leading_digits_of_small_values_count_as_big_ones_do() {
    for text in [
        "123.4",
        "0.5",
        "0.005",
        "-99999.99",
        "1",
        "0",
        "-0.00",
        "1234567890123456789012345678",
    ] {
        let small = n(text);
        let (m, s) = small.parts();
        let big = Numeric(Repr::Big(Box::new((m, s))));
        assert_eq!(small.leading_digits(), big.leading_digits(), "{text}");
    }
}
