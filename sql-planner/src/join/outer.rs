//! Join lists with outer joins: each join planned as it is written, its ON condition evaluated
//! with it (`joined`), and the preserved sides' unmatched rows padded with NULLs
//! (`outer_join`). Inside a correlated subquery such a list may read the enclosing queries'
//! columns; it is then planned per outer value (`factor_per_domain`, `push_per_domain`).

use super::*;

/// A domain column's copy in a FROM item planned per outer value: hidden from names and `*`.
pub(super) fn domain_copy(item: &ScopeItem) -> ScopeItem {
    ScopeItem {
        table: None,
        name: DOMAIN_COPY.to_string(),
        level: HIDDEN,
        used: UseMark::default(),
        ..item.clone()
    }
}

impl FromBuilder<'_> {
    /// A derived table that reads the enclosing queries' columns, planned per outer value: its
    /// output leads with the domain's columns, hidden in its scope.
    pub(super) fn derived_per_domain(
        &self,
        subquery: &Query,
        alias: &TableAlias,
    ) -> Result<(Plan, Scope, Vec<usize>), PlanError> {
        let nd = self.cx.outer.as_ref().map_or(0, |o| o.scope.len());
        let (plan, scope) = plan_subquery(self.cx, subquery)?;
        debug_assert_eq!(scope.outer_prefix(), nd);
        let mut items: Vec<ScopeItem> = scope.items[..nd].iter().map(domain_copy).collect();
        let own = Scope {
            items: scope.items[nd..].to_vec(),
        };
        items.extend(aliased(own, Some(alias), &fold(&alias.name))?.items);
        Ok((plan, Scope { items }, (0..nd).collect()))
    }

    /// A FROM item planned per outer value (`dcols`: where its copies of the domain's columns
    /// are), joined to this query's domain on them, NULL-safely.
    pub(super) fn push_per_domain(
        &mut self,
        plan: Plan,
        scope: Scope,
        dcols: &[usize],
    ) -> Result<(), PlanError> {
        let start = self.scope.len();
        self.push_rel(plan, scope)?;
        let domain = null_safe((0..dcols.len()).map(ScalarExpr::Column).collect());
        let copies = null_safe(
            dcols
                .iter()
                .map(|c| ScalarExpr::Column(start + c))
                .collect(),
        );
        for (d, c) in domain.into_iter().zip(copies) {
            self.predicates.push(d.call_binary(BinaryFunc::Eq, c));
        }
        Ok(())
    }

    /// One FROM item of a join list planned per outer value, leading with its copies of the
    /// domain's columns: a derived table reading the enclosing queries' columns is planned with
    /// them, a parenthesized join per outer value in turn, anything else crossed with the
    /// domain (each outer value sees all of its rows).
    pub(super) fn factor_per_domain(
        &self,
        factor: &TableFactor,
    ) -> Result<(Plan, Scope, Vec<usize>), PlanError> {
        match factor {
            // First in its join list, a LATERAL item can read only the enclosing queries.
            TableFactor::Derived {
                lateral: _,
                subquery,
                alias: Some(alias),
                sample: None,
            } if reads_outer(self.cx, subquery)? => self.derived_per_domain(subquery, alias),
            TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => self.joined(table_with_joins, true),
            // A function call reading the domain (a join list planned per value of FROM items
            // before it): applied to each outer value.
            f @ (TableFactor::Table { args: Some(_), .. }
            | TableFactor::Function { .. }
            | TableFactor::UNNEST { .. })
                if self.factor(f).is_err() =>
            {
                let nd = self.cx.outer.as_ref().map_or(0, |o| o.scope.len());
                let mut b = FromBuilder::new(self.cx);
                b.add_twj(&TableWithJoins {
                    relation: f.clone(),
                    joins: Vec::new(),
                })?;
                let (plan, scope) = b.finish()?;
                let mut items: Vec<ScopeItem> = scope.items[..nd].iter().map(domain_copy).collect();
                items.extend_from_slice(&scope.items[nd..]);
                Ok((plan, Scope { items }, (0..nd).collect()))
            }
            _ => {
                let outer = self.cx.outer.as_ref().expect("planned per domain");
                let nd = outer.scope.len();
                let (plan, scope) = self.factor(factor)?;
                let plan = Plan::Join {
                    left: Box::new(outer.plan.clone()),
                    right: Box::new(plan),
                    left_key: Vec::new(),
                    right_key: Vec::new(),
                };
                let items = outer.scope.items.iter().map(domain_copy).collect();
                Ok((plan, Scope { items }.concat(scope), (0..nd).collect()))
            }
        }
    }

    /// A join list with outer joins, planned as one relation from left to right: each join's
    /// ON condition is evaluated with the join, not moved past it.
    ///
    /// `per_domain` plans it per outer value of a correlated subquery, so that its FROM items
    /// and ON conditions may read the enclosing queries' columns: each item leads with copies
    /// of the domain's columns (`factor_per_domain`), each join also matches them NULL-safely,
    /// and the joined row's copies are COALESCE of the sides' (a side padded with NULLs has
    /// NULL copies; where both are NULL the outer value is NULL). Also returns where the
    /// copies are (none without `per_domain`).
    pub(super) fn joined(
        &self,
        twj: &TableWithJoins,
        per_domain: bool,
    ) -> Result<(Plan, Scope, Vec<usize>), PlanError> {
        let item = |f: &TableFactor| {
            if per_domain {
                self.factor_per_domain(f)
            } else {
                self.factor(f).map(|(p, s)| (p, s, Vec::new()))
            }
        };
        let (mut plan, mut scope, mut dcols) = item(&twj.relation)?;
        for join in &twj.joins {
            let (kind, constraint) = match &join.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinKind::Inner, Some(c)),
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinKind::Left, Some(c)),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinKind::Right, Some(c)),
                JoinOperator::FullOuter(c) => (JoinKind::Full, Some(c)),
                JoinOperator::CrossJoin(JoinConstraint::None) => (JoinKind::Inner, None),
                other => return Err(PlanError::unsupported(format!("join {other:?}"))),
            };
            // A LATERAL subquery reading the left side: planned per value of what it reads,
            // matched on hidden copies of those values (inner and left joins only). Per outer
            // value, it also sees the enclosing queries' columns (the left side's copies).
            let lateral = match &join.relation {
                f @ (TableFactor::Derived {
                    lateral: true,
                    alias: Some(_),
                    sample: None,
                    ..
                }
                | TableFactor::Table { args: Some(_), .. }
                | TableFactor::Function { .. }
                | TableFactor::UNNEST { .. }) => self.lateral_item(&plan, &scope, &dcols, f)?,
                _ => None,
            };
            let mut lateral_on = Vec::new();
            let (rplan, rscope, rdcols) = match lateral {
                Some((rplan, rscope, on, rdcols)) => {
                    if matches!(kind, JoinKind::Right | JoinKind::Full) {
                        return Err(PlanError::new(
                            "42P10",
                            "invalid reference to FROM-clause entry for a LATERAL item: the \
                             combining JOIN type must be INNER or LEFT for a LATERAL reference",
                        ));
                    }
                    lateral_on = on;
                    (rplan, rscope, rdcols)
                }
                None => item(&join.relation)?,
            };
            if let Some(t) = rscope.items.iter().find_map(|r| {
                r.table
                    .as_ref()
                    .filter(|t| scope.items.iter().any(|l| l.table.as_ref() == Some(t)))
            }) {
                return Err(PlanError::new(
                    "42712",
                    format!("table name \"{t}\" specified more than once"),
                ));
            }
            let nl = scope.len();
            let using = match constraint {
                Some(JoinConstraint::Using(names)) => {
                    let names = names
                        .iter()
                        .map(|n| match n.0.as_slice() {
                            [sqlparser::ast::ObjectNamePart::Identifier(id)] => Ok(fold(id)),
                            _ => Err(PlanError::syntax(format!("USING column {n}"))),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Some(using_columns(&scope, &rscope, Some(names))?)
                }
                Some(JoinConstraint::Natural) => Some(using_columns(&scope, &rscope, None)?),
                _ => None,
            };
            let (lscope, rscope_kept) = (scope.clone(), rscope.clone());
            let both = scope.clone().concat(rscope);
            let mut on_host: Option<Host<'_>> = None;
            let mut on_subqueries: Vec<ScalarExpr> = Vec::new();
            let mut on = match constraint {
                None => Vec::new(),
                Some(JoinConstraint::On(on)) if per_domain => {
                    // The enclosing queries' columns are read from the left side's copies.
                    let np = dcols.len();
                    let mut items = self.scope.items[..np].to_vec();
                    items.extend_from_slice(&both.items);
                    let pred = ExprContext::new(&Scope { items }, "JOIN conditions")
                        .with_catalog(self.cx.catalog)
                        .bind_condition(on)?;
                    let mut e = pred.expr;
                    e.map_columns(&|c| if c < np { dcols[c] } else { c - np });
                    conjuncts(vec![e])
                }
                Some(JoinConstraint::On(on)) => {
                    match ExprContext::new(&both, "JOIN conditions")
                        .with_catalog(self.cx.catalog)
                        .bind_condition(on)
                    {
                        Ok(pred) => conjuncts(vec![pred.expr]),
                        // It reads subqueries: their values are joined to the candidate
                        // pairs, which the conjuncts reading them then filter.
                        Err(e) if e.no_subqueries_here() => {
                            let host = on_host.insert(Host::new(self.cx, None));
                            let pred = ExprContext::new(&both, "JOIN conditions")
                                .with_host(host)
                                .bind_condition(on)?;
                            let (reading, plain): (Vec<_>, Vec<_>) = conjuncts(vec![pred.expr])
                                .into_iter()
                                .partition(reads_subquery);
                            on_subqueries = reading;
                            plain
                        }
                        Err(e) => return Err(e),
                    }
                }
                Some(JoinConstraint::Using(_) | JoinConstraint::Natural) => using
                    .as_ref()
                    .expect("resolved above")
                    .condition(&lscope, &rscope_kept)?,
                Some(JoinConstraint::None) => {
                    return Err(PlanError::syntax(
                        "syntax error: JOIN requires an ON condition",
                    ))
                }
            };
            on.extend(lateral_on);
            let copies: Vec<(usize, usize)> = dcols
                .iter()
                .zip(&rdcols)
                .map(|(&l, &r)| (l, nl + r))
                .collect();
            let (lcopies, rcopies): (Vec<_>, Vec<_>) = copies
                .iter()
                .map(|&(l, r)| (ScalarExpr::Column(l), ScalarExpr::Column(r)))
                .unzip();
            for (l, r) in null_safe(lcopies).into_iter().zip(null_safe(rcopies)) {
                on.push(l.call_binary(BinaryFunc::Eq, r));
            }
            let types: Vec<ScalarType> = both.items.iter().map(|i| i.ty.scalar).collect();
            if kind != JoinKind::Inner
                && on
                    .iter()
                    .chain(&on_subqueries)
                    .any(ScalarExpr::draws_per_call)
            {
                // The matched pairs and each side's unmatched rows are computed apart (the
                // rewrites may make their copies of the inner join differ), so a value drawn
                // at each call would be drawn once for each: a row could be both or neither.
                return Err(PlanError::unsupported(
                    "an outer join whose ON condition draws a new value at each call \
                     (random(), gen_random_uuid(), clock_timestamp())",
                ));
            }
            let subqueries = on_host.as_ref().map(|h| (h, on_subqueries));
            plan = outer_join(kind, (plan, rplan), &types, nl, on, subqueries);
            let mut items = both.items;
            if per_domain {
                // The joined row's copies of the domain columns, appended.
                let n = items.len();
                plan = Plan::Map {
                    input: Box::new(plan),
                    exprs: copies
                        .iter()
                        .map(|&(l, r)| ScalarExpr::Variadic {
                            func: VariadicFunc::Coalesce,
                            exprs: vec![ScalarExpr::Column(l), ScalarExpr::Column(r)],
                        })
                        .collect(),
                };
                let merged: Vec<ScopeItem> =
                    copies.iter().map(|&(l, _)| items[l].clone()).collect();
                items.extend(merged);
                dcols = (n..n + copies.len()).collect();
            }
            for (i, item) in items.iter_mut().enumerate() {
                let padded = match kind {
                    JoinKind::Inner => false,
                    JoinKind::Left => i >= nl,
                    JoinKind::Right => i < nl,
                    JoinKind::Full => true,
                };
                item.ty.nullable |= padded;
            }
            scope = Scope { items };
            if let Some(using) = using {
                let merge = match kind {
                    JoinKind::Inner => Merge::Either,
                    JoinKind::Left => Merge::Left,
                    JoinKind::Right => Merge::Right,
                    JoinKind::Full => Merge::Coalesce,
                };
                let right = Scope {
                    items: scope.items.split_off(nl),
                };
                let before = nl + right.len();
                (plan, scope) = using.finish(plan, scope, right, merge)?;
                // The merged USING columns come first.
                let shift = scope.len() - before;
                dcols.iter_mut().for_each(|c| *c += shift);
            }
        }
        Ok((plan, scope, dcols))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
}

/// `l JOIN r ON on` (columns of `l` then `r`, of the types `types`): the inner join
/// (equalities across the sides as keys, the rest as a filter), plus for an outer join the rows
/// of the preserved side(s) that matched nothing, padded with NULLs. A side's unmatched rows are
/// the side minus its rows that matched (the matched rows, distinct, joined back to the side on
/// all columns NULL-safely, which keeps each row's multiplicity). Keys compare by SQL equality,
/// so a column whose equal values can print differently is keyed by its text too: an ON that
/// reads the text (`l.x::text = r.x::text`) may match `3.0` and not `3.00`.
pub(super) fn outer_join(
    kind: JoinKind,
    (l, r): (Plan, Plan),
    types: &[ScalarType],
    nl: usize,
    on: Vec<ScalarExpr>,
    subqueries: Option<(&Host<'_>, Vec<ScalarExpr>)>,
) -> Plan {
    let nr = types.len() - nl;
    let mut left_key = Vec::new();
    let mut right_key = Vec::new();
    let mut rest = Vec::new();
    for p in on {
        match equi_key(&p, nl, nl + nr) {
            Some((a, b)) => {
                left_key.push(a);
                right_key.push(b);
            }
            None => rest.push(p),
        }
    }
    // Whether each side's matches are decided by its key alone: see `keyed_unmatched`.
    let by_key =
        subqueries.is_none() && keyed_unmatched_applies(&left_key, &right_key, &rest, types, nl);
    let (left_only, right_only): (Vec<_>, Vec<_>) = match by_key {
        true => rest
            .iter()
            .cloned()
            .partition(|p| p.support().iter().all(|&c| c < nl)),
        false => (Vec::new(), Vec::new()),
    };
    let right_only: Vec<ScalarExpr> = right_only
        .into_iter()
        .map(|mut p| {
            p.map_columns(&|c| c - nl);
            p
        })
        .collect();
    let keyed_sides = by_key.then(|| {
        (
            (left_key.clone(), left_only.clone()),
            (right_key.clone(), right_only.clone()),
        )
    });
    let mut inner = filter(
        Plan::Join {
            left: Box::new(l.clone()),
            right: Box::new(r.clone()),
            left_key,
            right_key,
        },
        rest,
    );
    if let Some((host, after)) = subqueries {
        // ON conjuncts reading subqueries: their values join the candidate pairs first.
        let arity = types.len();
        let (plan, with_subqueries) = host.finish(inner, arity);
        let after = after
            .into_iter()
            .map(|mut p| {
                place(&mut p, arity);
                p
            })
            .collect();
        inner = filter_host(plan, with_subqueries, arity, after);
    }
    let unmatched = |side: Plan, cols: std::ops::Range<usize>| {
        let n = cols.len();
        // The side's columns, then the texts of those whose equal values may differ in text.
        let key: Vec<ScalarExpr> = (0..n)
            .map(ScalarExpr::Column)
            .chain(
                types[cols.clone()]
                    .iter()
                    .enumerate()
                    .filter(|(_, ty)| ty.equal_values_differ_in_text())
                    .map(|(c, _)| {
                        ScalarExpr::Column(c).call_unary(UnaryFunc::Cast(ScalarType::Text))
                    }),
            )
            .collect();
        let mut matched = Plan::Project {
            input: Box::new(inner.clone()),
            outputs: cols.collect(),
        };
        if key.len() > n {
            matched = Plan::Map {
                input: Box::new(matched),
                exprs: key[n..].to_vec(),
            };
        }
        let matched = Plan::Distinct {
            input: Box::new(matched),
        };
        let columns = (0..key.len()).map(ScalarExpr::Column).collect();
        let matched_rows = Plan::Project {
            input: Box::new(Plan::Join {
                left: Box::new(side.clone()),
                right: Box::new(matched),
                left_key: null_safe(key),
                right_key: null_safe(columns),
            }),
            outputs: (0..n).collect(),
        };
        Plan::Union {
            inputs: vec![
                side,
                Plan::Negate {
                    input: Box::new(matched_rows),
                },
            ],
        }
    };
    let nulls = |n: usize| vec![ScalarExpr::Literal(kpg_types::Datum::Null); n];
    let mut inputs = vec![inner.clone()];
    if matches!(kind, JoinKind::Left | JoinKind::Full) {
        let rows = match &keyed_sides {
            Some((left, right)) => keyed_unmatched((l.clone(), nl), left, r.clone(), right),
            None => unmatched(l.clone(), 0..nl),
        };
        inputs.push(Plan::Map {
            input: Box::new(rows),
            exprs: nulls(nr),
        });
    }
    if matches!(kind, JoinKind::Right | JoinKind::Full) {
        let rows = match &keyed_sides {
            Some((left, right)) => keyed_unmatched((r, nr), right, l, left),
            None => unmatched(r, nl..nl + nr),
        };
        inputs.push(Plan::Project {
            input: Box::new(Plan::Map {
                input: Box::new(rows),
                exprs: nulls(nl),
            }),
            outputs: (nr..nr + nl).chain(0..nr).collect(),
        });
    }
    if inputs.len() == 1 {
        inner
    } else {
        Plan::Union { inputs }
    }
}

/// Whether `outer_join` may find a side's unmatched rows by key (`keyed_unmatched`): every ON
/// conjunct that is not a key equality reads one side only and cannot fail (so evaluating it on
/// rows the inner join never pairs raises nothing), and the keys are plain columns of types
/// whose equal values are one value (so distinct keys are distinct join keys, and a row of the
/// side meets each at most once).
fn keyed_unmatched_applies(
    left_key: &[ScalarExpr],
    right_key: &[ScalarExpr],
    rest: &[ScalarExpr],
    types: &[ScalarType],
    nl: usize,
) -> bool {
    let plain = |key: &ScalarExpr, offset: usize| match key {
        ScalarExpr::Column(c) => types
            .get(offset + c)
            .is_some_and(|ty| !ty.equal_values_differ_in_text()),
        _ => false,
    };
    !left_key.is_empty()
        && left_key.iter().all(|k| plain(k, 0))
        && right_key.iter().all(|k| plain(k, nl))
        && rest.iter().all(|p| {
            let support = p.support();
            p.cannot_fail() && (support.iter().all(|&c| c < nl) || support.iter().all(|&c| c >= nl))
        })
}

/// The rows of `side` that match no row of `other` in the inner join, when matching is decided
/// by keys (`keyed_unmatched_applies`): a row matched iff its own ON conjuncts hold and its key
/// is among the keys of the rows of `other` whose own conjuncts hold. So the side minus its
/// rows joined with those keys, distinct — the other side's keys only, where `unmatched`
/// deduplicates the matched pairs' whole rows and joins them back on every column.
fn keyed_unmatched(
    (side, n_side): (Plan, usize),
    (side_key, side_preds): &(Vec<ScalarExpr>, Vec<ScalarExpr>),
    other: Plan,
    (other_key, other_preds): &(Vec<ScalarExpr>, Vec<ScalarExpr>),
) -> Plan {
    let key_columns = other_key
        .iter()
        .map(|k| match k {
            ScalarExpr::Column(c) => *c,
            _ => unreachable!("keyed_unmatched_applies checked plain columns"),
        })
        .collect();
    let keys = Plan::Distinct {
        input: Box::new(Plan::Project {
            input: Box::new(filter(other, other_preds.clone())),
            outputs: key_columns,
        }),
    };
    let matched = Plan::Project {
        input: Box::new(filter(
            Plan::Join {
                left: Box::new(side.clone()),
                right: Box::new(keys),
                left_key: side_key.clone(),
                right_key: (0..other_key.len()).map(ScalarExpr::Column).collect(),
            },
            side_preds.clone(),
        )),
        outputs: (0..n_side).collect(),
    };
    Plan::Union {
        inputs: vec![
            side,
            Plan::Negate {
                input: Box::new(matched),
            },
        ],
    }
}
