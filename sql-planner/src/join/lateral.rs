//! `LATERAL (subquery) AS alias` in a FROM list: a derived table that reads the columns of the
//! FROM items before it, decorrelated like any correlated subquery.
//!
//! The items before it are joined first (with the predicates that apply to them). The
//! subquery's *domain* is the distinct values of the columns it reads there (found by planning
//! it once with every earlier column in its outer scope and keeping those a reference resolved
//! to); it is planned once over that domain, its output led by the domain's columns, and
//! joined back to the earlier rows on them, NULL-safely. So each earlier row meets the
//! subquery's rows for its own values, as PostgreSQL's per-row evaluation gives, and the whole
//! is maintained incrementally like other decorrelated subqueries.

use super::*;
use crate::query::Outer;

impl FromBuilder<'_> {
    /// Which columns of `before` (a scope of the items before the LATERAL item) the subquery
    /// reads: planned once with all of them in its outer scope, their uses tracked.
    fn lateral_reads(&self, before: &Scope, subquery: &Query) -> Result<Vec<usize>, PlanError> {
        let items: Vec<ScopeItem> = before
            .items
            .iter()
            .map(|i| ScopeItem {
                level: i.level + 1,
                ..i.clone()
            })
            .collect();
        let probe = Plan::Constant { rows: Vec::new() };
        let read = reads_of(self.cx, probe, items, subquery)?;
        Ok((0..read.len()).filter(|&i| read[i]).collect())
    }

    /// The LATERAL subquery planned once over the distinct values of the `used` columns of
    /// `before` (a plan with `scope`'s columns): its output leads with those values (`nk`
    /// columns), followed by its own, whose scope it returns with the key expressions over
    /// `before` that those values are matched with.
    fn lateral_per_value(
        &self,
        before: &Plan,
        scope: &Scope,
        used: &[usize],
        subquery: &Query,
        alias: &TableAlias,
    ) -> Result<(Plan, Scope, Vec<ScalarExpr>, Vec<ColumnType>), PlanError> {
        let arity = scope.len();
        let mut keys: Vec<ScalarExpr> = used.iter().map(|&c| ScalarExpr::Column(c)).collect();
        let mut items: Vec<ScopeItem> = used
            .iter()
            .map(|&c| ScopeItem {
                level: scope.items[c].level + 1,
                ..scope.items[c].clone()
            })
            .collect();
        crate::subquery::add_texts(&mut keys, &mut items);
        let nk = keys.len();
        let key_types = items.iter().map(|i| i.ty).collect();
        let domain = Plan::Distinct {
            input: Box::new(Plan::Project {
                input: Box::new(Plan::Map {
                    input: Box::new(before.clone()),
                    exprs: keys.clone(),
                }),
                outputs: (arity..arity + nk).collect(),
            }),
        };
        let inner = QueryContext {
            catalog: self.cx.catalog,
            ctes: self.cx.ctes.clone(),
            raw: self.cx.raw,
            outer: Some(Outer {
                plan: domain,
                scope: Scope { items },
            }),
        };
        let (plan, out) = plan_subquery(&inner, subquery)?;
        let own = Scope {
            items: out.items[nk..].to_vec(),
        };
        let own = aliased(own, Some(alias), &fold(&alias.name))?;
        Ok((plan, own, keys, key_types))
    }

    /// Adds `LATERAL (subquery) AS alias` (inner: a comma or CROSS JOIN item).
    pub(super) fn add_lateral(
        &mut self,
        subquery: &Query,
        alias: &TableAlias,
    ) -> Result<(), PlanError> {
        let used = self.lateral_reads(&self.scope, subquery)?;
        if used.is_empty() {
            // It reads nothing before it: an ordinary derived table.
            let (plan, scope) = plan_subquery(&self.cx.uncorrelated(), subquery)?;
            let scope = aliased(scope, Some(alias), &fold(&alias.name))?;
            return self.push_rel(plan, scope);
        }
        let arity = self.scope.len();
        let before = self.take_joined();
        let (plan, own, keys, _) =
            self.lateral_per_value(&before, &self.scope, &used, subquery, alias)?;
        let nk = keys.len();
        let nout = own.len();
        let joined = Plan::Join {
            left: Box::new(before),
            right: Box::new(plan),
            left_key: null_safe(keys),
            right_key: null_safe((0..nk).map(ScalarExpr::Column).collect()),
        };
        let plan = Plan::Project {
            input: Box::new(joined),
            outputs: (0..arity).chain(arity + nk..arity + nk + nout).collect(),
        };
        self.rels = vec![(plan, arity + nout)];
        self.add_names(&own)?;
        self.scope = std::mem::take(&mut self.scope).concat(own);
        Ok(())
    }

    /// `[LEFT] JOIN LATERAL (subquery) AS alias ON ...` inside a join list planned as written
    /// (`joined`), to the left side `left` of scope `scope`: the subquery planned per value of
    /// the left columns it reads, its output led by hidden copies of those values, and the
    /// NULL-safe equalities that match them, to add to the join's ON. `None` when it reads
    /// nothing from the left (an ordinary derived table).
    pub(super) fn lateral_item(
        &self,
        left: &Plan,
        scope: &Scope,
        subquery: &Query,
        alias: &TableAlias,
    ) -> Result<Option<(Plan, Scope, Vec<ScalarExpr>)>, PlanError> {
        let used = self.lateral_reads(scope, subquery)?;
        if used.is_empty() {
            return Ok(None);
        }
        let nl = scope.len();
        let (plan, own, keys, key_types) =
            self.lateral_per_value(left, scope, &used, subquery, alias)?;
        let nk = keys.len();
        // Hidden from names and `*`, like a correlated FROM item's copies of its domain.
        let copies: Vec<ScopeItem> = key_types
            .into_iter()
            .map(|ty| ScopeItem {
                table: None,
                name: DOMAIN_COPY.to_string(),
                ty,
                level: HIDDEN,
                used: UseMark::default(),
            })
            .collect();
        let on = null_safe(keys)
            .into_iter()
            .zip(null_safe((nl..nl + nk).map(ScalarExpr::Column).collect()))
            .map(|(l, r)| l.call_binary(BinaryFunc::Eq, r))
            .collect();
        Ok(Some((plan, Scope { items: copies }.concat(own), on)))
    }
}
