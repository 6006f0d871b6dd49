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

    /// The distinct values of the `used` columns of `before` (a plan with `scope`'s columns),
    /// as the outer scope of what is planned per value: the key expressions over `before`
    /// (with the text of columns whose equal values can print differently) and the domain.
    fn values_of(&self, before: &Plan, scope: &Scope, used: &[usize]) -> (Vec<ScalarExpr>, Outer) {
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
        let plan = Plan::Distinct {
            input: Box::new(Plan::Project {
                input: Box::new(Plan::Map {
                    input: Box::new(before.clone()),
                    exprs: keys.clone(),
                }),
                outputs: (arity..arity + nk).collect(),
            }),
        };
        (
            keys,
            Outer {
                plan,
                scope: Scope { items },
            },
        )
    }

    /// A context planning per value of `outer`.
    fn per_value(&self, outer: Outer) -> QueryContext<'_> {
        QueryContext {
            catalog: self.cx.catalog,
            ctes: self.cx.ctes.clone(),
            raw: self.cx.raw,
            outer: Some(outer),
        }
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
        let (keys, outer) = self.values_of(before, scope, used);
        let nk = keys.len();
        let key_types = outer.scope.items.iter().map(|i| i.ty).collect();
        let (plan, out) = plan_subquery(&self.per_value(outer), subquery)?;
        let own = Scope {
            items: out.items[nk..].to_vec(),
        };
        let own = aliased(own, Some(alias), &fold(&alias.name))?;
        Ok((plan, own, keys, key_types))
    }

    /// Replaces the items so far (`before`, their plan) with their join to `plan` (planned per
    /// value: its output led by the values, matched NULL-safely with `keys` over `before`),
    /// whose own columns (`own`) follow theirs.
    fn join_per_value(
        &mut self,
        before: Plan,
        keys: Vec<ScalarExpr>,
        plan: Plan,
        own: Scope,
    ) -> Result<(), PlanError> {
        let arity = self.scope.len();
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
        let before = self.take_joined();
        let (plan, own, keys, _) =
            self.lateral_per_value(&before, &self.scope, &used, subquery, alias)?;
        self.join_per_value(before, keys, plan, own)
    }

    /// Adds a join list (a comma item) with a LATERAL item that reads the FROM items before
    /// the list, as PostgreSQL lets it: the list is planned per value of the columns of those
    /// items that it reads (as a correlated subquery is), and joined back to them on those
    /// values. `unplanned` is the error of planning it on its own, returned if it reads none.
    pub(super) fn add_join_list_per_value(
        &mut self,
        twj: &TableWithJoins,
        unplanned: PlanError,
    ) -> Result<(), PlanError> {
        let used = self.join_list_reads(&self.scope, twj)?;
        if used.is_empty() {
            return Err(unplanned);
        }
        let before = self.take_joined();
        let (plan, own, keys, _) = self.list_per_value(&before, &self.scope, &used, twj)?;
        self.join_per_value(before, keys, plan, own)
    }

    /// The join list `twj` planned once over the distinct values of the `used` columns of
    /// `before` (a plan with `scope`'s columns), as `lateral_per_value` plans a subquery: its
    /// output leads with those values, followed by the list's own columns (their scope
    /// returned, with the key expressions over `before` and the values' types).
    fn list_per_value(
        &self,
        before: &Plan,
        scope: &Scope,
        used: &[usize],
        twj: &TableWithJoins,
    ) -> Result<(Plan, Scope, Vec<ScalarExpr>, Vec<ColumnType>), PlanError> {
        let (keys, outer) = self.values_of(before, scope, used);
        let nk = keys.len();
        let key_types = outer.scope.items.iter().map(|i| i.ty).collect();
        let cx = self.per_value(outer);
        let mut b = FromBuilder::new(&cx);
        b.add_twj(twj)?;
        let (plan, scope) = b.finish()?;
        let own = Scope {
            items: scope.items[nk..].to_vec(),
        };
        Ok((plan, own, keys, key_types))
    }

    /// Which columns of `before` (a scope of the items before it) the join list `twj` reads:
    /// planned once with all of them in its outer scope, their uses tracked.
    fn join_list_reads(
        &self,
        before: &Scope,
        twj: &TableWithJoins,
    ) -> Result<Vec<usize>, PlanError> {
        let marks: Vec<UseMark> = before.items.iter().map(|_| UseMark::tracked()).collect();
        let items = before
            .items
            .iter()
            .zip(&marks)
            .map(|(i, m)| ScopeItem {
                level: i.level + 1,
                used: m.clone(),
                ..i.clone()
            })
            .collect();
        let cx = self.per_value(Outer {
            plan: Plan::Constant { rows: Vec::new() },
            scope: Scope { items },
        });
        let mut b = FromBuilder::new(&cx);
        b.add_twj(twj)?;
        b.finish()?;
        Ok((0..marks.len()).filter(|&i| marks[i].is_set()).collect())
    }

    /// `[LEFT] JOIN LATERAL (subquery) AS alias ON ...`, or a function call reading the left
    /// side (implicitly lateral), inside a join list planned as written (`joined`), to the left
    /// side `left` of scope `scope`: the item planned per value of the left columns it reads,
    /// its output led by hidden copies of those values, and the NULL-safe equalities that
    /// match them, to add to the join's ON. `None` when it reads nothing from the left (an
    /// ordinary FROM item, or one planned per outer value).
    ///
    /// In a join list planned per outer value, `dcols` are where the left side holds its copies
    /// of the domain's columns: the item sees them under the enclosing queries' names, and
    /// its values always include them, so that its output carries copies of its own (the last
    /// value returned: where they are in its output).
    #[allow(clippy::type_complexity)]
    pub(super) fn lateral_item(
        &self,
        left: &Plan,
        scope: &Scope,
        dcols: &[usize],
        factor: &TableFactor,
    ) -> Result<Option<(Plan, Scope, Vec<ScalarExpr>, Vec<usize>)>, PlanError> {
        let mut view = scope.clone();
        for (j, &c) in dcols.iter().enumerate() {
            view.items[c] = self.scope.items[j].clone();
        }
        let subquery = match factor {
            TableFactor::Derived {
                subquery,
                alias: Some(alias),
                ..
            } => Some((subquery, alias)),
            _ => None,
        };
        let alone = TableWithJoins {
            relation: factor.clone(),
            joins: Vec::new(),
        };
        let mut used = match subquery {
            Some((q, _)) => self.lateral_reads(&view, q)?,
            None => self.join_list_reads(&view, &alone)?,
        };
        if used.iter().all(|c| dcols.contains(c)) {
            // It reads nothing of the left side (perhaps the enclosing queries).
            return Ok(None);
        }
        used.extend_from_slice(dcols);
        used.sort_unstable();
        used.dedup();
        let rdcols = dcols
            .iter()
            .map(|d| {
                used.iter()
                    .position(|u| u == d)
                    .expect("domain copies are read")
            })
            .collect();
        let nl = scope.len();
        let (plan, own, keys, key_types) = match subquery {
            Some((q, alias)) => self.lateral_per_value(left, &view, &used, q, alias)?,
            None => self.list_per_value(left, &view, &used, &alone)?,
        };
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
        Ok(Some((
            plan,
            Scope { items: copies }.concat(own),
            on,
            rdcols,
        )))
    }
}
