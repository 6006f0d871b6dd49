//! Which expressions can raise an evaluation error. A rewrite that makes an expression see
//! rows it did not see before (a predicate pushed below a join or ahead of another predicate,
//! an equality turned into a join key) may do so only with expressions that cannot fail, or
//! errors would appear that the query as written never raises.

use crate::datum::Datum;
use crate::expr::{BinaryFunc, ScalarExpr, UnaryFunc, VariadicFunc};

impl ScalarExpr {
    /// Whether evaluating the expression can never fail, whatever row it meets: it is built
    /// only of columns, literals, comparisons, LIKE with a constant pattern that does not end
    /// with its escape character, AND/OR/NOT, IS [NOT] NULL, COALESCE and CASE.
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
                    UnaryFunc::Not | UnaryFunc::IsNull | UnaryFunc::IsNotNull
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
}
