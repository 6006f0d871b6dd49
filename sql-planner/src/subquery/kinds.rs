//! The subquery forms, each planned as a relation over the host's domain: scalar
//! `(SELECT ...)`, `EXISTS`, `IN` and `op ANY/ALL` (with PostgreSQL's NULL behaviour).
//!
//! Owns: what each form computes per domain value and the default it takes when the subquery
//! is empty; the shared machinery (hosts, domains, totalizing) is the parent module's.

use super::*;
use sqlparser::dialect::PostgreSqlDialect;

/// `(SELECT v ...)`: the single value per domain value, NULL when there is none, an error
/// (21000) when there are several.
pub fn scalar(cx: &ExprContext<'_>, q: &Query) -> Result<Typed, PlanError> {
    let p = plan_for_host(cx, q)?;
    let [out] = p.outputs.items.as_slice() else {
        return Err(PlanError::syntax("subquery must return only one column"));
    };
    if host(cx)?.cx.raw {
        let ty = out.ty.scalar;
        return Ok(Typed::new(raw(SubqueryKind::Scalar, p), ty, true));
    }
    let nd = p.nd;
    if one_row_per_domain_value(q, cx.scope) {
        // Aggregates without GROUP BY or HAVING: a row for every domain value already.
        let rel = if p.domain == p.full_domain {
            p.plan
        } else {
            totalize(p.plan, nd, p.full_domain, vec![Datum::Null])
        };
        let col = host(cx)?.join(p.keys, rel, 1).remove(0);
        return Ok(Typed::new(col, out.ty.scalar, true));
    }
    let counted = Plan::Reduce {
        input: Box::new(p.plan),
        group_key: columns(0..nd),
        aggregates: vec![
            AggregateExpr {
                func: AggregateFunc::Count,
                expr: ScalarExpr::literal_true(),
                distinct: false,
            },
            AggregateExpr {
                func: AggregateFunc::Max,
                expr: ScalarExpr::Column(nd),
                distinct: false,
            },
        ],
    };
    let value = ScalarExpr::If {
        cond: Box::new(
            ScalarExpr::Column(nd)
                .call_binary(BinaryFunc::Gt, ScalarExpr::Literal(Datum::Int64(1))),
        ),
        then: Box::new(ScalarExpr::Literal(Datum::Null).call_unary(UnaryFunc::MultipleRowsError)),
        els: Box::new(ScalarExpr::Column(nd + 1)),
    };
    let rel = crate::query::project_exprs(counted, nd + 2, {
        let mut e = columns(0..nd);
        e.push(value);
        e
    });
    let rel = totalize(rel, nd, p.full_domain, vec![Datum::Null]);
    let col = host(cx)?.join(p.keys, rel, 1).remove(0);
    Ok(Typed::new(col, out.ty.scalar, true))
}

/// Whether the subquery is a SELECT of aggregates without GROUP BY or HAVING, which yields
/// exactly one row (per domain value: see `aggregate::reduce_plan`). Aggregates the host
/// computes for it (columns of the host's `scope`) do not count.
fn one_row_per_domain_value(q: &Query, scope: &Scope) -> bool {
    let SetExpr::Select(s) = q.body.as_ref() else {
        return false;
    };
    let no_groups =
        matches!(&s.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty());
    no_groups
        && s.having.is_none()
        && q.limit_clause.is_none()
        && s.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                contains_own_aggregate(e, scope, 0)
            }
            _ => false,
        })
}

/// `[NOT] EXISTS (SELECT ...)`.
pub fn exists(cx: &ExprContext<'_>, q: &Query, negated: bool) -> Result<Typed, PlanError> {
    let p = plan_for_host(cx, q)?;
    if host(cx)?.cx.raw {
        let t = Typed::new(raw(SubqueryKind::Exists, p), ScalarType::Bool, false);
        return if negated { ops::not(t) } else { Ok(t) };
    }
    let nd = p.nd;
    let present = Plan::Map {
        input: Box::new(Plan::Distinct {
            input: Box::new(Plan::Project {
                input: Box::new(p.plan),
                outputs: (0..nd).collect(),
            }),
        }),
        exprs: vec![ScalarExpr::Literal(Datum::Bool(true))],
    };
    let rel = totalize(present, nd, p.full_domain, vec![Datum::Bool(false)]);
    let col = host(cx)?.join(p.keys, rel, 1).remove(0);
    let t = Typed::new(col, ScalarType::Bool, false);
    if negated {
        ops::not(t)
    } else {
        Ok(t)
    }
}

/// `x [NOT] IN (SELECT v ...)`: TRUE if some `v = x`; otherwise NULL if `x` is NULL or some
/// `v` is NULL (and the subquery has rows); otherwise FALSE.
pub fn in_subquery(
    cx: &ExprContext<'_>,
    x: &Expr,
    q: &Query,
    negated: bool,
) -> Result<Typed, PlanError> {
    let t = quantified_op(cx, x, BinaryFunc::Eq, "=", q, false)?;
    if negated {
        ops::not(t)
    } else {
        Ok(t)
    }
}

/// `x op ANY (SELECT ...)` (`all` false) or `x op ALL (SELECT ...)`.
pub fn quantified(
    cx: &ExprContext<'_>,
    x: &Expr,
    op: &BinaryOperator,
    right: &Expr,
    all: bool,
) -> Result<Typed, PlanError> {
    let (func, sym) = match op {
        BinaryOperator::Eq => (BinaryFunc::Eq, "="),
        BinaryOperator::NotEq => (BinaryFunc::NotEq, "<>"),
        BinaryOperator::Lt => (BinaryFunc::Lt, "<"),
        BinaryOperator::LtEq => (BinaryFunc::Lte, "<="),
        BinaryOperator::Gt => (BinaryFunc::Gt, ">"),
        BinaryOperator::GtEq => (BinaryFunc::Gte, ">="),
        other => {
            return Err(PlanError::unsupported(format!(
                "operator {other} with ANY/ALL"
            )))
        }
    };
    let q = match right {
        Expr::Subquery(q) => q,
        Expr::Nested(inner) => match inner.as_ref() {
            Expr::Subquery(q) => q,
            _ => return Err(PlanError::unsupported("ANY/ALL over an array")),
        },
        _ => return Err(PlanError::unsupported("ANY/ALL over an array")),
    };
    match (func, all) {
        // `<> ALL` is NOT IN.
        (BinaryFunc::NotEq, true) => ops::not(quantified_op(cx, x, BinaryFunc::Eq, "=", q, false)?),
        _ => quantified_op(cx, x, func, sym, q, all),
    }
}

/// `x op ANY|ALL (subquery)` where `x` itself reads subqueries: the comparison moves into a
/// scalar subquery over a one-row derived table holding `x`, which yields exactly its value
/// (NULL included): `(SELECT v op ANY (subquery) FROM (SELECT x AS v) AS l)`.
fn left_reads_subqueries(
    cx: &ExprContext<'_>,
    x: &Expr,
    sym: &str,
    q: &Query,
    all: bool,
) -> Result<Typed, PlanError> {
    let quantifier = if all { "ALL" } else { "ANY" };
    let text = format!(
        "(SELECT \"?left\" {sym} {quantifier} ({q}) FROM (SELECT {x} AS \"?left\") AS \"?in\")"
    );
    let e = sqlparser::parser::Parser::new(&PostgreSqlDialect {})
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| PlanError::new("XX000", format!("{text} does not parse: {e}")))?;
    cx.bind(&e)
}

/// `x op ANY|ALL (subquery)`. Equality ANY (IN) matches through an equi-join; other
/// comparisons pair each `x` with every row of its domain value's subquery result.
fn quantified_op(
    cx: &ExprContext<'_>,
    x: &Expr,
    func: BinaryFunc,
    sym: &str,
    q: &Query,
    all: bool,
) -> Result<Typed, PlanError> {
    let no_subqueries = ExprContext { host: None, ..*cx };
    if let Err(e) = no_subqueries.bind(x) {
        if e.no_subqueries_here() {
            return left_reads_subqueries(cx, x, sym, q, all);
        }
    }
    let x = cx.bind(x)?;
    let p = plan_for_host(cx, q)?;
    let [out] = p.outputs.items.as_slice() else {
        return Err(PlanError::syntax(if p.outputs.len() > 1 {
            "subquery has too many columns"
        } else {
            "subquery has too few columns"
        }));
    };
    let nd = p.nd;
    let v = Typed::new(ScalarExpr::Column(nd), out.ty.scalar, out.ty.nullable);
    let (x, v) = ops::unify_comparable(sym, x, v)?;
    if reads_subquery(&x.expr) {
        return Err(PlanError::unsupported(
            "a subquery in the left operand of IN/ANY/ALL with a subquery",
        ));
    }
    // The subquery's rows as (domain..., v).
    let width = nd + p.outputs.len();
    let rows = crate::query::project_exprs(p.plan, width, {
        let mut e = columns(0..nd);
        e.push(v.expr);
        e
    });
    let host = host(cx)?;
    if host.cx.raw {
        let kind = SubqueryKind::Quantified {
            left: Box::new(x.expr),
            op: func,
            all,
        };
        let node = raw(kind, Planned { plan: rows, ..p });
        return Ok(Typed::new(node, ScalarType::Bool, true));
    }
    let mut keys = p.keys.clone();
    keys.push(x.expr.clone());
    // (domain..., x) for every host row.
    let dx = host.domain(keys.clone());
    let dxw = nd + 1;
    let count = |expr: ScalarExpr| AggregateExpr {
        func: AggregateFunc::Count,
        expr,
        distinct: false,
    };
    let int = |n: i64| ScalarExpr::Literal(Datum::Int64(n));
    let null_bool = ScalarExpr::Literal(Datum::Null);
    let value = if func == BinaryFunc::Eq && !all {
        // matched: (domain, x) pairs with some v = x.
        let mut lk = null_safe(columns(0..nd));
        lk.push(ScalarExpr::Column(nd));
        let mut rk = null_safe(columns(0..nd));
        rk.push(ScalarExpr::Column(nd));
        let matched = Plan::Distinct {
            input: Box::new(Plan::Project {
                input: Box::new(Plan::Join {
                    left: Box::new(dx.clone()),
                    right: Box::new(rows.clone()),
                    left_key: lk,
                    right_key: rk,
                }),
                outputs: (0..dxw).collect(),
            }),
        };
        let matched = totalize(
            Plan::Map {
                input: Box::new(matched),
                exprs: vec![ScalarExpr::Literal(Datum::Bool(true))],
            },
            dxw,
            dx,
            vec![Datum::Bool(false)],
        );
        // Per domain value: rows, and rows with a non-NULL v.
        let stats = Plan::Reduce {
            input: Box::new(rows),
            group_key: columns(0..nd),
            aggregates: vec![
                count(ScalarExpr::literal_true()),
                count(ScalarExpr::Column(nd)),
            ],
        };
        let stats = totalize(
            stats,
            nd,
            p.full_domain,
            vec![Datum::Int64(0), Datum::Int64(0)],
        );
        // (domain, x, matched, domain, n, n_not_null)
        let joined = Plan::Join {
            left: Box::new(matched),
            right: Box::new(stats),
            left_key: null_safe(columns(0..nd)),
            right_key: null_safe(columns(0..nd)),
        };
        let (m, n, nn) = (dxw, dxw + 1 + nd, dxw + 2 + nd);
        let value = ScalarExpr::If {
            cond: Box::new(ScalarExpr::Column(m)),
            then: Box::new(ScalarExpr::Literal(Datum::Bool(true))),
            els: Box::new(ScalarExpr::If {
                cond: Box::new(ScalarExpr::Column(n).call_binary(BinaryFunc::Eq, int(0))),
                then: Box::new(ScalarExpr::Literal(Datum::Bool(false))),
                els: Box::new(ScalarExpr::If {
                    cond: Box::new(
                        ScalarExpr::Column(nd)
                            .call_unary(UnaryFunc::IsNull)
                            .call_binary(
                                BinaryFunc::Or,
                                ScalarExpr::Column(nn)
                                    .call_binary(BinaryFunc::Lt, ScalarExpr::Column(n)),
                            ),
                    ),
                    then: Box::new(null_bool),
                    els: Box::new(ScalarExpr::Literal(Datum::Bool(false))),
                }),
            }),
        };
        (joined, dxw + 2 + nd + 1, value)
    } else {
        // Every (domain, x) with every v of its domain value: count the comparisons that are
        // TRUE, FALSE and NULL.
        let pairs = Plan::Join {
            left: Box::new(dx.clone()),
            right: Box::new(rows),
            left_key: null_safe(columns(0..nd)),
            right_key: null_safe(columns(0..nd)),
        };
        let cmp = ScalarExpr::Column(nd).call_binary(func, ScalarExpr::Column(dxw + nd));
        let when = |cond: ScalarExpr| {
            count(ScalarExpr::If {
                cond: Box::new(cond),
                then: Box::new(ScalarExpr::literal_true()),
                els: Box::new(ScalarExpr::Literal(Datum::Null)),
            })
        };
        let counts = Plan::Reduce {
            input: Box::new(pairs),
            group_key: columns(0..dxw),
            aggregates: vec![
                when(cmp.clone()),
                when(cmp.clone().call_unary(UnaryFunc::Not)),
                when(cmp.call_unary(UnaryFunc::IsNull)),
            ],
        };
        let counts = totalize(counts, dxw, dx, vec![Datum::Int64(0); 3]);
        let (t, f, n) = (dxw, dxw + 1, dxw + 2);
        let positive = |c: usize| ScalarExpr::Column(c).call_binary(BinaryFunc::Gt, int(0));
        let (decisive, decided, undecided) = if all {
            (f, false, true)
        } else {
            (t, true, false)
        };
        let value = ScalarExpr::If {
            cond: Box::new(positive(decisive)),
            then: Box::new(ScalarExpr::Literal(Datum::Bool(decided))),
            els: Box::new(ScalarExpr::If {
                cond: Box::new(positive(n)),
                then: Box::new(null_bool),
                els: Box::new(ScalarExpr::Literal(Datum::Bool(undecided))),
            }),
        };
        (counts, dxw + 3, value)
    };
    let (rel, arity, value) = value;
    let rel = crate::query::project_exprs(rel, arity, {
        let mut e = columns(0..dxw);
        e.push(value);
        e
    });
    let col = host.join(keys, rel, 1).remove(0);
    Ok(Typed::new(col, ScalarType::Bool, true))
}
