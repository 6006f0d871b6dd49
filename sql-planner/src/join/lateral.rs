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
    /// Adds `LATERAL (subquery) AS alias` (inner: a comma or CROSS JOIN item).
    pub(super) fn add_lateral(
        &mut self,
        subquery: &Query,
        alias: &TableAlias,
    ) -> Result<(), PlanError> {
        let before_items: Vec<ScopeItem> = self
            .scope
            .items
            .iter()
            .map(|i| ScopeItem {
                level: i.level + 1,
                ..i.clone()
            })
            .collect();
        let probe = Plan::Constant { rows: Vec::new() };
        let read = reads_of(self.cx, probe, before_items.clone(), subquery)?;
        let used: Vec<usize> = (0..read.len()).filter(|&i| read[i]).collect();
        if used.is_empty() {
            // It reads nothing before it: an ordinary derived table.
            let (plan, scope) = plan_subquery(&self.cx.uncorrelated(), subquery)?;
            let scope = aliased(scope, Some(alias), &fold(&alias.name))?;
            return self.push_rel(plan, scope);
        }
        let arity = self.scope.len();
        let before = FromBuilder {
            cx: self.cx,
            rels: std::mem::take(&mut self.rels),
            scope: self.scope.clone(),
            names: Vec::new(),
            predicates: std::mem::take(&mut self.predicates),
            domain: self.domain,
            deferred_on: Vec::new(),
        }
        .build();
        let mut keys: Vec<ScalarExpr> = used.iter().map(|&c| ScalarExpr::Column(c)).collect();
        let mut items: Vec<ScopeItem> = used.iter().map(|&c| before_items[c].clone()).collect();
        crate::subquery::add_texts(&mut keys, &mut items);
        let nk = keys.len();
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
        let (plan, scope) = plan_subquery(&inner, subquery)?;
        let own = Scope {
            items: scope.items[nk..].to_vec(),
        };
        let nout = own.len();
        let own = aliased(own, Some(alias), &fold(&alias.name))?;
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
}
