//! Which expressions can raise an evaluation error. A rewrite that makes an expression see
//! rows it did not see before (a predicate pushed below a join or ahead of another predicate,
//! an equality turned into a join key) may do so only with expressions that cannot fail, or
//! errors would appear that the query as written never raises.

use crate::datum::Datum;
use crate::expr::{BinaryFunc, ScalarExpr, UnaryFunc, VariadicFunc};

impl ScalarExpr {
    /// Whether evaluating the expression can never fail, whatever row it meets: it is built
    /// only of columns, literals, comparisons, `bpchar`s read as text, LIKE with a constant pattern that does not end
    /// with its escape character, AND/OR/NOT, IS [NOT] NULL, COALESCE, CASE, and substring
    /// with a constant count that is not negative.
    pub fn cannot_fail(&self) -> bool {
        let mut ok = true;
        self.visit(&mut |e| {
            ok &= match e {
                // A pattern ending with its escape fails (22025) once text reaches it.
                ScalarExpr::Binary {
                    func: BinaryFunc::Like | BinaryFunc::ILike,
                    right,
                    ..
                } => match &**right {
                    ScalarExpr::Literal(Datum::String(p)) => !ends_with_escape(p),
                    ScalarExpr::Literal(Datum::Null) => true,
                    _ => false,
                },
                ScalarExpr::Column(_) | ScalarExpr::Literal(_) | ScalarExpr::If { .. } => true,
                ScalarExpr::Unary { func, .. } => matches!(
                    func,
                    UnaryFunc::Not
                        | UnaryFunc::IsNull
                        | UnaryFunc::IsNotNull
                        | UnaryFunc::BpcharToText
                ),
                ScalarExpr::Binary { func, .. } => matches!(
                    func,
                    BinaryFunc::And
                        | BinaryFunc::Or
                        | BinaryFunc::Eq
                        | BinaryFunc::NotEq
                        | BinaryFunc::Lt
                        | BinaryFunc::Lte
                        | BinaryFunc::Gt
                        | BinaryFunc::Gte
                ),
                // substring fails only on a negative count (22011).
                ScalarExpr::Variadic {
                    func: VariadicFunc::Substring,
                    exprs,
                } => match exprs.get(2) {
                    None | Some(ScalarExpr::Literal(Datum::Null)) => true,
                    Some(ScalarExpr::Literal(Datum::Int32(n))) => *n >= 0,
                    Some(_) => false,
                },
                ScalarExpr::Variadic { func, .. } => matches!(
                    func,
                    VariadicFunc::Coalesce
                        | VariadicFunc::Greatest
                        | VariadicFunc::Least
                        | VariadicFunc::Concat
                        | VariadicFunc::Replace
                ),
                ScalarExpr::Subquery(_) | ScalarExpr::Param(_) => false,
            }
        });
        ok
    }
}

/// Whether a LIKE pattern ends with a lone escape character (`\`), which LIKE refuses.
fn ends_with_escape(p: &str) -> bool {
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.next().is_none() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_casts_can_fail() {
        let c = |i| ScalarExpr::Column(i);
        let cmp = c(0).call_binary(BinaryFunc::Lt, ScalarExpr::Literal(Datum::Int32(3)));
        assert!(cmp.clone().call_unary(UnaryFunc::Not).cannot_fail());
        assert!(c(1)
            .call_binary(
                BinaryFunc::Like,
                ScalarExpr::Literal(Datum::String("a%".into()))
            )
            .cannot_fail());
        // A pattern that is a column, or ends with its escape, can fail.
        for p in [c(2), ScalarExpr::Literal(Datum::String("x\\".into()))] {
            assert!(!c(1).call_binary(BinaryFunc::Like, p).cannot_fail());
        }
        let escaped = ScalarExpr::Literal(Datum::String("x\\\\".into()));
        assert!(c(1).call_binary(BinaryFunc::ILike, escaped).cannot_fail());
        let div = c(0).call_binary(BinaryFunc::Div, c(1));
        assert!(!div.clone().cannot_fail());
        assert!(!div.call_binary(BinaryFunc::Gt, c(2)).cannot_fail());
        assert!(!c(0)
            .call_unary(UnaryFunc::Cast(crate::ScalarType::Int32))
            .cannot_fail());
    }

    use crate::test_rng::Rng;

    #[derive(Clone, Copy, PartialEq)]
    enum Ty {
        Int,
        Float,
        Bool,
        Text,
    }

    const TYPES: [Ty; 4] = [Ty::Int, Ty::Float, Ty::Bool, Ty::Text];

    fn value(rng: &mut Rng, ty: Ty) -> Datum {
        if rng.below(5) == 0 {
            return Datum::Null;
        }
        match ty {
            Ty::Int => [0, 1, -1, i64::MAX, i64::MIN][rng.below(5)].into_datum(),
            Ty::Float => {
                Datum::Float64([0.0, -0.0, 1.5, f64::NAN, f64::INFINITY][rng.below(5)].into())
            }
            Ty::Bool => Datum::Bool(rng.below(2) == 0),
            Ty::Text => {
                Datum::String(["", "a", "a%", "_b", "x\\", "\\\\", "é"][rng.below(7)].into())
            }
        }
    }

    trait IntoDatum {
        fn into_datum(self) -> Datum;
    }

    impl IntoDatum for i64 {
        fn into_datum(self) -> Datum {
            Datum::Int64(self)
        }
    }

    /// A well-typed random expression of type `ty` over columns of `types`: the forms
    /// `cannot_fail` accepts, mixed with arithmetic (which can fail).
    fn expr(rng: &mut Rng, types: &[Ty], ty: Ty, depth: usize) -> ScalarExpr {
        let cols: Vec<usize> = (0..types.len()).filter(|c| types[*c] == ty).collect();
        if depth == 0 || rng.below(4) == 0 {
            return match cols.is_empty() || rng.below(3) == 0 {
                true => ScalarExpr::Literal(value(rng, ty)),
                false => ScalarExpr::Column(cols[rng.below(cols.len())]),
            };
        }
        let d = depth - 1;
        let variadic = |func, exprs| ScalarExpr::Variadic { func, exprs };
        match (ty, rng.below(4)) {
            (_, 0) => variadic(
                VariadicFunc::Coalesce,
                vec![expr(rng, types, ty, d), expr(rng, types, ty, d)],
            ),
            (_, 1) => ScalarExpr::If {
                cond: Box::new(expr(rng, types, Ty::Bool, d)),
                then: Box::new(expr(rng, types, ty, d)),
                els: Box::new(expr(rng, types, ty, d)),
            },
            (Ty::Int, 2) => variadic(
                VariadicFunc::Greatest,
                vec![expr(rng, types, ty, d), expr(rng, types, ty, d)],
            ),
            (Ty::Int, _) => {
                expr(rng, types, ty, d).call_binary(BinaryFunc::Div, expr(rng, types, ty, d))
            }
            (Ty::Float, 2) => variadic(
                VariadicFunc::Least,
                vec![expr(rng, types, ty, d), expr(rng, types, ty, d)],
            ),
            (Ty::Float, _) => {
                expr(rng, types, ty, d).call_binary(BinaryFunc::Mul, expr(rng, types, ty, d))
            }
            (Ty::Text, 2) if rng.below(2) == 0 => variadic(
                VariadicFunc::Concat,
                vec![expr(rng, types, ty, d), expr(rng, types, Ty::Int, d)],
            ),
            (Ty::Text, 2) => {
                let int = |rng: &mut Rng| {
                    let n = [-1, 0, 1, 2, i32::MAX, i32::MIN][rng.below(6)];
                    ScalarExpr::Literal(Datum::Int32(n))
                };
                let mut args = vec![expr(rng, types, ty, d), int(rng)];
                match rng.below(3) {
                    0 => {}
                    1 => args.push(ScalarExpr::Literal(Datum::Null)),
                    _ => args.push(int(rng)),
                }
                variadic(VariadicFunc::Substring, args)
            }
            (Ty::Text, _) => variadic(
                VariadicFunc::Replace,
                vec![
                    expr(rng, types, ty, d),
                    expr(rng, types, ty, d),
                    expr(rng, types, ty, d),
                ],
            ),
            (Ty::Bool, 2) => {
                let operand = [Ty::Int, Ty::Float, Ty::Text][rng.below(3)];
                let f = [
                    BinaryFunc::Eq,
                    BinaryFunc::NotEq,
                    BinaryFunc::Lt,
                    BinaryFunc::Lte,
                    BinaryFunc::Gt,
                    BinaryFunc::Gte,
                ][rng.below(6)];
                expr(rng, types, operand, d).call_binary(f, expr(rng, types, operand, d))
            }
            (Ty::Bool, _) => match rng.below(5) {
                0 => expr(rng, types, ty, d).call_binary(BinaryFunc::And, expr(rng, types, ty, d)),
                1 => expr(rng, types, ty, d).call_binary(BinaryFunc::Or, expr(rng, types, ty, d)),
                2 => expr(rng, types, ty, d).call_unary(UnaryFunc::Not),
                3 => {
                    let any = TYPES[rng.below(4)];
                    expr(rng, types, any, d).call_unary(UnaryFunc::IsNull)
                }
                _ => {
                    let f = [BinaryFunc::Like, BinaryFunc::ILike][rng.below(2)];
                    expr(rng, types, Ty::Text, d).call_binary(f, expr(rng, types, Ty::Text, d))
                }
            },
        }
    }

    /// What `cannot_fail` accepts never fails, over random rows; and the generator reaches
    /// both kinds of expression often enough for that to mean something.
    #[test]
    fn what_cannot_fail_never_fails() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut infallible, mut failed) = (0, 0);
        for _ in 0..4000 {
            let types: Vec<Ty> = (0..1 + rng.below(4)).map(|_| TYPES[rng.below(4)]).collect();
            let ty = TYPES[rng.below(4)];
            let e = expr(&mut rng, &types, ty, 4);
            let claimed = e.cannot_fail();
            infallible += usize::from(claimed);
            for _ in 0..30 {
                let row: Vec<Datum> = types.iter().map(|t| value(&mut rng, *t)).collect();
                let result = e.eval(&row);
                if claimed {
                    assert!(result.is_ok(), "{e:?} over {row:?}: {result:?}");
                }
                failed += usize::from(result.is_err());
            }
        }
        assert!(infallible > 500 && failed > 500, "{infallible} {failed}");
    }
}
