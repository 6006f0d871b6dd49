//! The fused chain against the chain evaluated node by node (the reference): random rows of
//! integers, booleans and strings, random chains of maps (arithmetic that overflows or divides
//! by zero, comparisons, aliases, substrings with counts that may be negative), filters
//! (among them IN lists over a computed value) and projections.

use super::*;
use crate::expr::{BinaryFunc, UnaryFunc};

/// The chain node by node, as the renderer evaluated it before fusion.
fn reference(nodes: &[Node], row: &Row) -> Option<Result<Row, EvalError>> {
    let mut datums = row.datums();
    for node in nodes {
        match node {
            Node::Map(exprs) => {
                for e in exprs {
                    match e.eval(&datums) {
                        Ok(d) => datums.push(d),
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
            Node::Filter(preds) => {
                for p in preds {
                    match p.eval_predicate(&datums) {
                        Ok(true) => {}
                        Ok(false) => return None,
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
            Node::Project(outputs) => datums = outputs.iter().map(|o| datums[*o].clone()).collect(),
            Node::DropLast => {
                datums.pop();
            }
        }
    }
    Some(Ok(Row::new(datums)))
}

use crate::test_rng::Rng;

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Int,
    Bool,
    Text,
    Date,
}

const TYPES: [Ty; 4] = [Ty::Int, Ty::Bool, Ty::Text, Ty::Date];

fn int_value(rng: &mut Rng) -> Datum {
    match rng.below(6) {
        0 => Datum::Null,
        1 => Datum::Int64(0),
        2 => Datum::Int64(i64::MAX - rng.below(3) as i64),
        _ => Datum::Int64(rng.below(7) as i64 - 3),
    }
}

fn value(rng: &mut Rng, ty: Ty) -> Datum {
    match ty {
        Ty::Int => int_value(rng),
        Ty::Bool => [Datum::Null, Datum::Bool(true), Datum::Bool(false)][rng.below(3)].clone(),
        Ty::Text => match rng.below(4) {
            0 => Datum::Null,
            1 => Datum::String("x".repeat(200)),
            // Blank-padded values, as a bpchar column holds them.
            _ => Datum::String(["a", "b", "", "a  ", " "][rng.below(5)].into()),
        },
        Ty::Date => match rng.below(4) {
            0 => Datum::Null,
            n => Datum::Date(chrono::NaiveDate::from_ymd_opt(1994, 1, n as u32).unwrap()),
        },
    }
}

fn col_of(rng: &mut Rng, types: &[Ty], ty: Ty) -> Option<ScalarExpr> {
    let cols: Vec<usize> = (0..types.len()).filter(|c| types[*c] == ty).collect();
    (!cols.is_empty()).then(|| ScalarExpr::Column(cols[rng.below(cols.len())]))
}

fn expr(rng: &mut Rng, types: &[Ty], ty: Ty, depth: usize) -> ScalarExpr {
    let leaf = depth == 0 || rng.below(3) == 0;
    if leaf {
        if rng.below(4) > 0 {
            if let Some(c) = col_of(rng, types, ty) {
                return c;
            }
        }
        return ScalarExpr::Literal(value(rng, ty));
    }
    let sub = |rng: &mut Rng, ty| expr(rng, types, ty, depth - 1);
    match ty {
        Ty::Int => {
            let f = [
                BinaryFunc::Add,
                BinaryFunc::Sub,
                BinaryFunc::Mul,
                BinaryFunc::Div,
            ][rng.below(4)];
            sub(rng, Ty::Int).call_binary(f, sub(rng, Ty::Int))
        }
        Ty::Bool => match rng.below(11) {
            10 => {
                // `x IN ('a', 'b', ...)` as it binds: an OR of equalities, each computing x.
                let x = sub(rng, Ty::Text);
                (0..2 + rng.below(2))
                    .map(|_| {
                        let lit = ScalarExpr::Literal(value(rng, Ty::Text));
                        x.clone().call_binary(BinaryFunc::Eq, lit)
                    })
                    .reduce(|a, b| a.call_binary(BinaryFunc::Or, b))
                    .expect("two or more")
            }
            9 => {
                // A lone escape at the end fails once text reaches it.
                let patterns = ["%", "a%", "_", "%a%b%", "", "x\\", "a\\%", "%_ "];
                let p = match rng.below(patterns.len() + 1) {
                    0 => Datum::Null,
                    n => Datum::String(patterns[n - 1].into()),
                };
                sub(rng, Ty::Text).call_binary(BinaryFunc::Like, ScalarExpr::Literal(p))
            }
            5 => sub(rng, Ty::Bool).call_unary(UnaryFunc::Not),
            6 => {
                let f = [BinaryFunc::Eq, BinaryFunc::Lt, BinaryFunc::NotEq][rng.below(3)];
                let trimmed = |e: ScalarExpr| e.call_unary(UnaryFunc::BpcharToText);
                trimmed(sub(rng, Ty::Text)).call_binary(f, sub(rng, Ty::Text))
            }
            // A date read as a timestamp; of text, the cast fails on most values.
            7 | 8 => {
                let from = if rng.below(4) == 0 {
                    Ty::Text
                } else {
                    Ty::Date
                };
                let cast = sub(rng, from).call_unary(UnaryFunc::Cast(crate::ScalarType::Timestamp));
                let midnight = |d: u32| {
                    let day = chrono::NaiveDate::from_ymd_opt(1994, 1, d).unwrap();
                    ScalarExpr::Literal(Datum::Timestamp(day.and_hms_opt(0, 0, 0).unwrap()))
                };
                let noon = ScalarExpr::Literal(Datum::Timestamp(
                    chrono::NaiveDate::from_ymd_opt(1994, 1, 2)
                        .unwrap()
                        .and_hms_opt(12, 0, 0)
                        .unwrap(),
                ));
                let mut other = [midnight(2), midnight(3), noon][rng.below(3)].clone();
                let mut cast = cast;
                if from == Ty::Date && rng.below(3) == 0 {
                    // A date compared with a date.
                    cast = sub(rng, Ty::Date);
                    other = sub(rng, Ty::Date);
                }
                let f = [
                    BinaryFunc::Lt,
                    BinaryFunc::Gte,
                    BinaryFunc::Eq,
                    BinaryFunc::Gt,
                    BinaryFunc::Lte,
                    BinaryFunc::NotEq,
                ][rng.below(6)];
                if rng.below(2) == 0 {
                    cast.call_binary(f, other)
                } else {
                    other.call_binary(f, cast)
                }
            }
            0 => sub(rng, Ty::Bool).call_binary(BinaryFunc::And, sub(rng, Ty::Bool)),
            1 => sub(rng, Ty::Bool).call_binary(BinaryFunc::Or, sub(rng, Ty::Bool)),
            2 => sub(rng, Ty::Int).call_unary(UnaryFunc::IsNull),
            3 => sub(rng, Ty::Text).call_binary(BinaryFunc::Eq, sub(rng, Ty::Text)),
            _ => {
                let f = [BinaryFunc::Lt, BinaryFunc::Eq, BinaryFunc::Gte][rng.below(3)];
                sub(rng, Ty::Int).call_binary(f, sub(rng, Ty::Int))
            }
        },
        Ty::Text if rng.below(2) == 0 => {
            // substring(bpchar-as-text, start, count): a negative count fails (22011).
            let int = |rng: &mut Rng| ScalarExpr::Literal(Datum::Int32(rng.below(5) as i32 - 1));
            let text = sub(rng, Ty::Text).call_unary(UnaryFunc::BpcharToText);
            let mut args = vec![text, int(rng)];
            if rng.below(3) > 0 {
                args.push(int(rng));
            }
            ScalarExpr::Variadic {
                func: crate::expr::VariadicFunc::Substring,
                exprs: args,
            }
        }
        Ty::Text | Ty::Date => {
            col_of(rng, types, ty).unwrap_or_else(|| ScalarExpr::Literal(value(rng, ty)))
        }
    }
}

/// A random chain over rows of `input` types.
fn chain(rng: &mut Rng, input: &[Ty]) -> Vec<Node> {
    let mut types = input.to_vec();
    let mut nodes = Vec::new();
    for _ in 0..1 + rng.below(5) {
        match rng.below(3) {
            0 => {
                let mut exprs = Vec::new();
                for _ in 0..1 + rng.below(3) {
                    let ty = TYPES[rng.below(4)];
                    let e = if rng.below(4) == 0 {
                        ScalarExpr::Column(rng.below(types.len()))
                    } else {
                        expr(rng, &types, ty, 3)
                    };
                    let ty = match &e {
                        ScalarExpr::Column(c) => types[*c],
                        _ => ty,
                    };
                    exprs.push(e);
                    types.push(ty);
                }
                nodes.push(Node::Map(exprs));
            }
            1 => {
                let preds = (0..1 + rng.below(2))
                    .map(|_| expr(rng, &types, Ty::Bool, 3))
                    .collect();
                nodes.push(Node::Filter(preds));
            }
            _ => {
                let outputs: Vec<usize> = (0..rng.below(types.len() + 2))
                    .map(|_| rng.below(types.len()))
                    .collect();
                types = outputs.iter().map(|o| types[*o]).collect();
                nodes.push(Node::Project(outputs));
                if types.is_empty() {
                    break;
                }
            }
        }
    }
    nodes
}

#[test]
fn fused_chains_agree_with_node_by_node_evaluation() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut dropped, mut errors, mut passed) = (0, 0, 0);
    for _ in 0..3000 {
        let input: Vec<Ty> = (0..1 + rng.below(5)).map(|_| TYPES[rng.below(4)]).collect();
        let mut nodes = chain(&mut rng, &input);
        // Half the chains read rows with one more column that they drop first (a position).
        let positions = rng.below(2) == 0;
        if positions {
            nodes.insert(0, Node::DropLast);
        }
        let mut mfp = MapFilterProject {
            nodes: nodes.clone(),
            ..MapFilterProject::default()
        };
        for _ in 0..20 {
            let mut datums: Vec<Datum> = input.iter().map(|t| value(&mut rng, *t)).collect();
            if positions {
                datums.push(Datum::Int64(rng.below(1000) as i64));
            }
            // A join's pair: the row split in two at any column, read side by side.
            let split = rng.below(datums.len() + 1);
            let (left, right) = (
                Row::new(datums[..split].to_vec()),
                Row::new(datums[split..].to_vec()),
            );
            let row = Row::new(datums);
            let want = reference(&nodes, &row);
            let got = mfp.apply_ref(&row);
            assert_eq!(got, want, "{nodes:?} over {row:?}");
            assert_eq!(
                mfp.apply_concat(&left, &right),
                want,
                "{nodes:?} over {row:?}"
            );
            assert_eq!(mfp.apply(row.clone()), want, "{nodes:?} over {row:?}");
            match want {
                None => dropped += 1,
                Some(Err(_)) => errors += 1,
                Some(Ok(_)) => passed += 1,
            }
        }
    }
    // The random chains exercise every outcome.
    assert!(
        dropped > 1000 && errors > 1000 && passed > 1000,
        "{dropped} {errors} {passed}"
    );
}

#[test]
fn a_filter_drops_the_row_before_a_deferred_map_is_computed() {
    // Map #1 = #0 < 3 cannot fail: deferred past the filter on #0, computed only for the
    // output. Map #2 = 1 / #0 can fail: evaluated before the filter, as the plan orders it.
    let lt =
        ScalarExpr::Column(0).call_binary(BinaryFunc::Lt, ScalarExpr::Literal(Datum::Int64(3)));
    let div =
        ScalarExpr::Literal(Datum::Int64(1)).call_binary(BinaryFunc::Div, ScalarExpr::Column(0));
    let not_zero =
        ScalarExpr::Column(0).call_binary(BinaryFunc::NotEq, ScalarExpr::Literal(Datum::Int64(0)));
    let mut mfp = MapFilterProject::new()
        .map(vec![lt.clone()])
        .filter(vec![not_zero.clone()])
        .project(vec![1, 0]);
    let zero = Row::new(vec![Datum::Int64(0)]);
    assert_eq!(mfp.apply(zero.clone()), None);
    let two = Row::new(vec![Datum::Int64(2)]);
    assert_eq!(
        mfp.apply(two),
        Some(Ok(Row::new(vec![Datum::Bool(true), Datum::Int64(2)])))
    );
    let mut failing = MapFilterProject::new()
        .map(vec![div])
        .filter(vec![not_zero]);
    assert_eq!(failing.apply(zero), Some(Err(EvalError::DivisionByZero)));
}

#[test]
fn a_filter_only_chain_passes_the_row_itself() {
    let mut mfp = MapFilterProject::new()
        .map(vec![ScalarExpr::Column(0)])
        .filter(vec![ScalarExpr::Column(2)])
        .project(vec![0, 1]);
    let row = Row::new(vec![Datum::Bool(true), Datum::String("y".repeat(100))]);
    assert_eq!(mfp.apply(row.clone()), Some(Ok(row)));
    assert!(mfp.compiled.as_ref().unwrap().identity);
}

#[test]
fn dropping_the_last_column_copies_the_others_and_numbers_maps_after_them() {
    let stored = Row::new(vec![
        Datum::Int64(7),
        Datum::String("x".repeat(30)),
        Datum::Int64(123_456),
    ]);
    let mut plain = MapFilterProject::new().after_dropping_last();
    assert_eq!(
        plain.apply_ref(&stored),
        Some(Ok(Row::new(vec![
            Datum::Int64(7),
            Datum::String("x".repeat(30))
        ])))
    );
    // Column 2 is the map's value, not the dropped position.
    let plus_one =
        ScalarExpr::Column(0).call_binary(BinaryFunc::Add, ScalarExpr::Literal(Datum::Int64(1)));
    let mut mapped = MapFilterProject::new()
        .map(vec![plus_one])
        .project(vec![2, 0])
        .after_dropping_last();
    assert_eq!(
        mapped.apply_ref(&stored),
        Some(Ok(Row::new(vec![Datum::Int64(8), Datum::Int64(7)])))
    );
}

#[test]
fn a_computation_repeated_in_an_in_list_and_a_map_is_evaluated_once() {
    // TPC-H Q22: WHERE substring(c_phone, 1, 2) IN ('13', '31'), and the code kept.
    let code = code_of_column_0(Some(2));
    let is = |s: &str| equals(&code, s);
    let nodes = vec![
        Node::Filter(vec![is("13").call_binary(BinaryFunc::Or, is("31"))]),
        Node::Map(vec![code.clone()]),
        Node::Project(vec![1]),
    ];
    let compiled = compile(&nodes, 1);
    let mut substrings = 0;
    let mut count = |e: &ScalarExpr| {
        e.visit(&mut |e| {
            substrings += usize::from(matches!(
                e,
                ScalarExpr::Variadic {
                    func: crate::expr::VariadicFunc::Substring,
                    ..
                }
            ))
        })
    };
    let preps = compiled
        .steps
        .iter()
        .flat_map(|s| &s.prep)
        .chain(&compiled.out_prep);
    for prep in preps {
        if let Prep::Eval(_, e) = prep {
            count(e);
        }
    }
    for step in &compiled.steps {
        match &step.action {
            Action::Map(_, e) | Action::Filter(e) | Action::PackedFilter(_, _, e) => count(e),
        }
    }
    assert_eq!(substrings, 1, "{compiled:?}");
    let mut mfp = MapFilterProject {
        nodes: nodes.clone(),
        ..MapFilterProject::default()
    };
    for phone in ["13-555", "31-1", "99-13", "1", ""] {
        let row = Row::new(vec![Datum::String(phone.into())]);
        assert_eq!(mfp.apply_ref(&row), reference(&nodes, &row), "{phone}");
    }
    let kept = Row::new(vec![Datum::String("31-1".into())]);
    let code_31 = Row::new(vec![Datum::String("31".into())]);
    assert_eq!(mfp.apply(kept), Some(Ok(code_31)));
}

#[test]
fn a_computation_repeated_only_in_case_branches_stays_there() {
    let code = code_of_column_0(None);
    let is = |s: &str| equals(&code, s);
    // CASE WHEN #0 IS NULL THEN code = 'a' ELSE code = 'b' END: either branch, never both.
    let case = ScalarExpr::If {
        cond: Box::new(ScalarExpr::Column(0).call_unary(UnaryFunc::IsNull)),
        then: Box::new(is("a")),
        els: Box::new(is("b")),
    };
    let compiled = compile(&[Node::Filter(vec![case])], 1);
    assert_eq!(compiled.slots, 1, "nothing hoisted: {compiled:?}");
}

/// `substring(#0::text, 1 [, count])`.
fn code_of_column_0(count: Option<i32>) -> ScalarExpr {
    let mut exprs = vec![
        ScalarExpr::Column(0).call_unary(UnaryFunc::BpcharToText),
        ScalarExpr::Literal(Datum::Int32(1)),
    ];
    exprs.extend(count.map(|n| ScalarExpr::Literal(Datum::Int32(n))));
    ScalarExpr::Variadic {
        func: crate::expr::VariadicFunc::Substring,
        exprs,
    }
}

/// `e = 'text'`.
fn equals(e: &ScalarExpr, text: &str) -> ScalarExpr {
    e.clone().call_binary(
        BinaryFunc::Eq,
        ScalarExpr::Literal(Datum::String(text.into())),
    )
}
