//! The FROM clause and WHERE: relations, inner joins, and where each predicate is applied.
//!
//! Every FROM item (comma lists, `[INNER] JOIN ... ON`, `CROSS JOIN`, parenthesized joins)
//! is flattened into a list of input relations whose columns are concatenated in order; ON
//! conditions (bound against just the relations of their join, as PostgreSQL scopes them) and
//! WHERE conjuncts form one pool of predicates. The plan is then built left-deep in FROM order:
//! a predicate on one relation filters that relation before any join; an equality whose sides
//! each read only one side of a join becomes that join's key (`Plan::Join` compares keys with
//! SQL equality, NULL never matching); any other predicate filters right after the first join
//! that has all its columns. A join without keys is a cross join.
//!
//! A join list containing LEFT/RIGHT/FULL OUTER joins is planned as one relation, left to
//! right (`join/outer.rs`), and WHERE predicates are applied above it; so is a join list with
//! `USING` or `NATURAL` joins, whose columns `using.rs` reshapes as PostgreSQL does.

use crate::catalog::ItemKind;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::names::{fold, resolve_relation};
use crate::query::{plan_subquery, QueryContext};
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::subquery::{filter_host, null_safe, place, reads_of, reads_subquery, Host};
use crate::using::{using_columns, Merge, HIDDEN};
use kpg_types::{BinaryFunc, ColumnType, Plan, ScalarExpr, ScalarType, UnaryFunc, VariadicFunc};
use sqlparser::ast::{
    Expr, JoinConstraint, JoinOperator, Query, TableAlias, TableFactor, TableWithJoins,
};

mod functions;
mod lateral;
mod outer;
mod semi;

/// The relations of a FROM clause and the predicates over their concatenated columns.
struct FromBuilder<'a> {
    cx: &'a QueryContext<'a>,
    rels: Vec<(Plan, usize)>,
    scope: Scope,
    /// Names of the FROM items so far, to refuse duplicates as PostgreSQL does.
    names: Vec<String>,
    predicates: Vec<ScalarExpr>,
    /// Whether the first relation is a correlated subquery's domain of outer values.
    domain: bool,
    /// ON conditions that read subqueries: each with the scope positions it may see (the
    /// items of its join list, `start..end`, after the outer prefix); bound once the FROM is
    /// complete, against the host of its rows (`bind_deferred_on`).
    deferred_on: Vec<(Expr, usize, usize)>,
}

/// The name of the hidden scope item that holds a table row's position (no identifier can
/// spell it).
pub const POSITION: &str = "\0position";

/// The name of the hidden scope items that hold a correlated derived table's copies of the
/// domain columns.
const DOMAIN_COPY: &str = "\0domain";

/// Whether a join list has a LATERAL subquery or a function call (implicitly lateral) among
/// its items.
fn has_lateral(twj: &TableWithJoins) -> bool {
    std::iter::once(&twj.relation)
        .chain(twj.joins.iter().map(|j| &j.relation))
        .any(|f| {
            matches!(
                f,
                TableFactor::Derived { lateral: true, .. }
                    | TableFactor::Table { args: Some(_), .. }
                    | TableFactor::Function { .. }
                    | TableFactor::UNNEST { .. }
            )
        })
}

/// Whether the derived table `q`, inside a correlated subquery, reads columns of the queries
/// enclosing that subquery: planned once with the outer columns' uses tracked.
fn reads_outer(cx: &QueryContext<'_>, q: &Query) -> Result<bool, PlanError> {
    let Some(outer) = &cx.outer else {
        return Ok(false);
    };
    let read = reads_of(cx, outer.plan.clone(), outer.scope.items.clone(), q)?;
    Ok(read.into_iter().any(|r| r))
}

/// Plans `FROM from WHERE selection`, returning the plan and its scope.
///
/// With `positions`, a FROM that is one table read whole reads it with its rows' positions
/// (`Plan::GetWithPosition`): the scope ends with a hidden item named `POSITION`, which no
/// name reaches and `*` does not expand. An ad hoc SELECT orders by it, so a plain scan returns
/// rows in the order they were written, as PostgreSQL's heap scan does.
pub fn plan_from_where(
    cx: &QueryContext<'_>,
    from: &[TableWithJoins],
    selection: Option<&Expr>,
    positions: bool,
) -> Result<(Plan, Scope), PlanError> {
    let mut b = FromBuilder::new(cx);
    for twj in from {
        b.add_twj(twj)?;
    }
    if positions {
        b.read_positions();
    }
    // `x IN (subquery)` conjuncts as semi-joins (`join/semi.rs`); a FROM of one table read with
    // its positions keeps its rows' order through the general plan.
    let selection = match selection {
        Some(w) if !(positions && b.rels.len() == 1) => b.semi_joins(w),
        other => other.cloned(),
    };
    let scope = b.scope.clone();
    let host = Host::new(cx, None);
    let mut after = b.bind_deferred_on(&host)?;
    if let Some(w) = &selection {
        let pred = ExprContext::new(&scope, "WHERE")
            .with_host(&host)
            .bind_condition(w)?;
        // Conjuncts reading subquery values filter after the subqueries are joined; the
        // others are placed in the join as usual.
        for p in conjuncts(vec![pred.expr]) {
            if reads_subquery(&p) {
                after.push(p);
            } else {
                b.predicates.push(p);
            }
        }
    }
    Ok((b.build_with_host(&host, after), scope))
}

impl<'a> FromBuilder<'a> {
    /// A builder with no FROM items yet; in a correlated subquery (`cx.outer`), it reads its
    /// domain of outer values first.
    fn new(cx: &'a QueryContext<'a>) -> FromBuilder<'a> {
        let mut b = FromBuilder {
            cx,
            rels: Vec::new(),
            scope: Scope::empty(),
            names: Vec::new(),
            predicates: Vec::new(),
            domain: cx.outer.is_some(),
            deferred_on: Vec::new(),
        };
        if let Some(outer) = &cx.outer {
            b.rels.push((outer.plan.clone(), outer.scope.len()));
            b.scope = outer.scope.clone();
        }
        b
    }

    /// The plan of the items added (with ON conditions reading subqueries bound and applied)
    /// and its scope.
    fn finish(mut self) -> Result<(Plan, Scope), PlanError> {
        let scope = self.scope.clone();
        let host = Host::new(self.cx, None);
        let after = self.bind_deferred_on(&host)?;
        Ok((self.build_with_host(&host, after), scope))
    }
}

impl FromBuilder<'_> {
    /// Binds the deferred ON conditions (inner joins: each is a filter on the joined rows, as
    /// WHERE is) against `host`, over the whole FROM scope with the items an ON may not see
    /// hidden from names. Conjuncts that read subquery values are returned, to filter after
    /// the host joins them; the others join the predicates.
    fn bind_deferred_on(&mut self, host: &Host<'_>) -> Result<Vec<ScalarExpr>, PlanError> {
        let mut after = Vec::new();
        let np = self.scope.outer_prefix();
        for (on, start, end) in std::mem::take(&mut self.deferred_on) {
            let mut masked = self.scope.clone();
            for (i, item) in masked.items.iter_mut().enumerate() {
                if i >= np && !(start..end).contains(&i) {
                    item.table = None;
                    item.name = "\0not in this join".to_string();
                }
            }
            let pred = ExprContext::new(&masked, "JOIN conditions")
                .with_host(host)
                .bind_condition(&on)?;
            for p in conjuncts(vec![pred.expr]) {
                if reads_subquery(&p) {
                    after.push(p);
                } else {
                    self.predicates.push(p);
                }
            }
        }
        Ok(after)
    }

    /// The joined plan with `host`'s subquery values joined in and `after` (conjuncts over
    /// them) applied; its columns are the scope's.
    fn build_with_host(self, host: &Host<'_>, after: Vec<ScalarExpr>) -> Plan {
        let arity = self.scope.len();
        let (plan, with_subqueries) = host.finish(self.build(), arity);
        let after = after
            .into_iter()
            .map(|mut p| {
                place(&mut p, arity);
                p
            })
            .collect();
        filter_host(plan, with_subqueries, arity, after)
    }

    /// Reads the one table of the FROM with its positions, if the FROM is one table read whole.
    fn read_positions(&mut self) {
        let [(Plan::Get { id }, arity)] = self.rels.as_slice() else {
            return;
        };
        let (id, arity) = (*id, *arity);
        let catalog = self.cx.catalog;
        let is_table = catalog
            .name_of(id)
            .and_then(|n| catalog.resolve(&n))
            .is_some_and(|item| item.id == id && item.kind == ItemKind::Table);
        if !is_table || self.cx.outer.is_some() {
            return;
        }
        self.rels[0] = (Plan::GetWithPosition { id }, arity + 1);
        self.scope.items.push(ScopeItem {
            table: None,
            name: POSITION.to_string(),
            ty: ColumnType::new(ScalarType::Int64, false),
            level: HIDDEN,
            used: UseMark::default(),
        });
    }

    fn add_twj(&mut self, twj: &TableWithJoins) -> Result<(), PlanError> {
        if twj.joins.iter().any(|j| {
            matches!(
                j.join_operator,
                JoinOperator::Left(_)
                    | JoinOperator::LeftOuter(_)
                    | JoinOperator::Right(_)
                    | JoinOperator::RightOuter(_)
                    | JoinOperator::FullOuter(_)
                    | JoinOperator::Join(JoinConstraint::Using(_) | JoinConstraint::Natural)
                    | JoinOperator::Inner(JoinConstraint::Using(_) | JoinConstraint::Natural)
            )
        }) {
            let (plan, scope) = match self.joined(twj, false) {
                Ok((plan, scope, _)) => (plan, scope),
                // A LATERAL item in it may read the FROM items before the list.
                Err(e) if self.scope.len() > self.scope.outer_prefix() && has_lateral(twj) => {
                    return self.add_join_list_per_value(twj, e)
                }
                // Refused or unresolved apart from the domain: it may read the enclosing
                // query's columns, and planned per outer value it can (its error, if any,
                // is the one that saw every name).
                Err(_) if self.domain => {
                    let (plan, scope, dcols) = self.joined(twj, true)?;
                    return self.push_per_domain(plan, scope, &dcols);
                }
                Err(e) => return Err(e),
            };
            return self.push_rel(plan, scope);
        }
        let start = self.scope.len();
        self.add_factor(&twj.relation)?;
        for join in &twj.joins {
            let constraint = match &join.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => Some(c),
                JoinOperator::CrossJoin(JoinConstraint::None) => None,
                other => return Err(PlanError::unsupported(format!("join {other:?}"))),
            };
            self.add_factor(&join.relation)?;
            match constraint {
                None => {}
                Some(JoinConstraint::On(on)) => {
                    // ON sees the joined items, and a correlated subquery's outer columns.
                    let np = self.scope.outer_prefix();
                    let mut items = self.scope.items[..np].to_vec();
                    items.extend_from_slice(&self.scope.items[start..]);
                    let local = Scope { items };
                    let pred = match ExprContext::new(&local, "JOIN conditions")
                        .with_catalog(self.cx.catalog)
                        .bind_condition(on)
                    {
                        Ok(pred) => pred,
                        // It reads subqueries: bound once the FROM is complete.
                        Err(e) if e.no_subqueries_here() => {
                            self.deferred_on.push((on.clone(), start, self.scope.len()));
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    let mut e = pred.expr;
                    e.map_columns(&|c| if c < np { c } else { c - np + start });
                    self.predicates.push(e);
                }
                Some(JoinConstraint::Using(_) | JoinConstraint::Natural) => {
                    unreachable!("join lists with USING/NATURAL are planned by `joined`")
                }
                Some(JoinConstraint::None) => {
                    return Err(PlanError::syntax(
                        "syntax error: JOIN requires an ON condition",
                    ))
                }
            }
        }
        Ok(())
    }

    fn add_factor(&mut self, factor: &TableFactor) -> Result<(), PlanError> {
        if let TableFactor::NestedJoin {
            table_with_joins,
            alias: None,
        } = factor
        {
            return self.add_twj(table_with_joins);
        }
        if let TableFactor::Derived {
            lateral: false,
            subquery,
            alias: Some(alias),
            sample: None,
        } = factor
        {
            if self.domain && reads_outer(self.cx, subquery)? {
                return self.add_correlated_derived(subquery, alias);
            }
        }
        match factor {
            TableFactor::Derived {
                lateral: true,
                subquery,
                alias: Some(alias),
                sample: None,
            } => return self.add_lateral(subquery, alias),
            TableFactor::Table {
                name,
                alias,
                args: Some(args),
                with_ordinality,
                ..
            } => return self.add_function(name, &args.args, alias.as_ref(), *with_ordinality),
            TableFactor::Function {
                name,
                args,
                alias,
                with_ordinality,
                ..
            } => return self.add_function(name, args, alias.as_ref(), *with_ordinality),
            TableFactor::UNNEST {
                alias,
                array_exprs,
                with_offset: false,
                with_ordinality,
                ..
            } => {
                let (name, args) = functions::unnest_call(array_exprs);
                return self.add_function(&name, &args, alias.as_ref(), *with_ordinality);
            }
            _ => {}
        }
        let (plan, scope) = self.factor(factor)?;
        self.push_rel(plan, scope)
    }

    /// Adds a derived table that reads columns of the queries enclosing this (correlated)
    /// one: it is planned per outer value like any correlated subquery (its output leads with
    /// the domain's columns), and joined to this query's domain on them, NULL-safely. The
    /// copies of the domain columns stay in the scope, hidden from names and `*`.
    fn add_correlated_derived(
        &mut self,
        subquery: &Query,
        alias: &TableAlias,
    ) -> Result<(), PlanError> {
        let (plan, scope, dcols) = self.derived_per_domain(subquery, alias)?;
        self.push_per_domain(plan, scope, &dcols)
    }

    /// Adds a planned FROM item (possibly an outer join of several) as one relation.
    fn push_rel(&mut self, plan: Plan, scope: Scope) -> Result<(), PlanError> {
        self.add_names(&scope)?;
        self.rels.push((plan, scope.len()));
        self.scope = std::mem::take(&mut self.scope).concat(scope);
        Ok(())
    }

    /// The items added so far joined into one plan (with the predicates over them), taken out
    /// of the builder, whose scope still describes its columns: what a function or LATERAL
    /// subquery reading those items is applied to.
    fn take_joined(&mut self) -> Plan {
        FromBuilder {
            cx: self.cx,
            rels: std::mem::take(&mut self.rels),
            scope: self.scope.clone(),
            names: Vec::new(),
            predicates: std::mem::take(&mut self.predicates),
            domain: self.domain,
            deferred_on: Vec::new(),
        }
        .build()
    }

    /// Records the FROM item names of `scope`, refusing one named twice (42712).
    fn add_names(&mut self, scope: &Scope) -> Result<(), PlanError> {
        let mut tables: Vec<String> = scope.items.iter().filter_map(|i| i.table.clone()).collect();
        tables.dedup();
        for t in tables {
            if self.names.contains(&t) {
                return Err(PlanError::new(
                    "42712",
                    format!("table name \"{t}\" specified more than once"),
                ));
            }
            self.names.push(t);
        }
        Ok(())
    }

    /// Plans one FROM item on its own: a relation, a derived table, or a parenthesized join.
    fn factor(&self, factor: &TableFactor) -> Result<(Plan, Scope), PlanError> {
        Ok(match factor {
            TableFactor::Table {
                name,
                alias,
                args,
                with_hints,
                version,
                with_ordinality,
                partitions,
                json_path,
                sample,
                index_hints,
            } => {
                if let Some(args) = args {
                    return self.function_relation(
                        name,
                        &args.args,
                        alias.as_ref(),
                        *with_ordinality,
                    );
                }
                if !with_hints.is_empty()
                    || version.is_some()
                    || *with_ordinality
                    || !partitions.is_empty()
                    || json_path.is_some()
                    || sample.is_some()
                    || !index_hints.is_empty()
                {
                    return Err(PlanError::unsupported(format!("FROM item {factor}")));
                }
                if let [sqlparser::ast::ObjectNamePart::Identifier(id)] = name.0.as_slice() {
                    if let Some(cte) = self.cx.cte(&fold(id)) {
                        let scope = Scope {
                            items: cte
                                .scope
                                .items
                                .iter()
                                .map(|i| ScopeItem {
                                    table: None,
                                    ..i.clone()
                                })
                                .collect(),
                        };
                        return Ok((cte.plan.clone(), aliased(scope, alias.as_ref(), &cte.name)?));
                    }
                }
                let item = resolve_relation(self.cx.catalog, name)?;
                let scope = Scope::from_desc(Some(&item.name), &item.desc.value_types());
                (
                    crate::catalog::read_plan(self.cx.catalog, &item)?,
                    aliased(scope, alias.as_ref(), &item.name)?,
                )
            }
            // A LATERAL item that reads none of the items before it (`joined` and
            // `add_lateral` plan those that do) is an ordinary derived table.
            TableFactor::Derived {
                lateral: _,
                subquery,
                alias,
                sample,
            } => {
                if sample.is_some() {
                    return Err(PlanError::unsupported("TABLESAMPLE"));
                }
                let Some(alias) = alias else {
                    return Err(PlanError::syntax("subquery in FROM must have an alias"));
                };
                // Such a table is planned per outer value (`factor_per_domain`): planned here,
                // apart from the domain, it cannot be. The join list is planned again per
                // outer value on this error.
                if reads_outer(self.cx, subquery)? {
                    return Err(PlanError::unsupported(
                        "a subquery in FROM that reads an enclosing query's columns, planned \
                         apart from that query's values",
                    ));
                }
                let (plan, scope) = plan_subquery(&self.cx.uncorrelated(), subquery)?;
                let name = fold(&alias.name);
                (plan, aliased(scope, Some(alias), &name)?)
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => {
                // Its own list: it reads no domain (an enclosing query's columns make it
                // fail here, and the list is then planned per outer value).
                let mut b = FromBuilder {
                    cx: self.cx,
                    rels: Vec::new(),
                    scope: Scope::empty(),
                    names: Vec::new(),
                    predicates: Vec::new(),
                    domain: false,
                    deferred_on: Vec::new(),
                };
                b.add_twj(table_with_joins)?;
                b.finish()?
            }
            TableFactor::Function {
                name,
                args,
                alias,
                with_ordinality,
                ..
            } => return self.function_relation(name, args, alias.as_ref(), *with_ordinality),
            TableFactor::UNNEST {
                alias,
                array_exprs,
                with_offset: false,
                with_ordinality,
                ..
            } => {
                let (name, args) = functions::unnest_call(array_exprs);
                return self.function_relation(&name, &args, alias.as_ref(), *with_ordinality);
            }
            other => return Err(PlanError::unsupported(format!("FROM item {other}"))),
        })
    }

    /// Builds the left-deep join with predicates placed as early as they can be evaluated.
    fn build(self) -> Plan {
        let FromBuilder {
            rels, predicates, ..
        } = self;
        if rels.is_empty() {
            // SELECT without FROM reads one empty row.
            let one = Plan::Constant {
                rows: vec![(kpg_types::Row::empty(), 1)],
            };
            return filter(one, conjuncts(predicates));
        }
        let mut offsets = Vec::with_capacity(rels.len() + 1);
        let mut total = 0;
        for (_, arity) in &rels {
            offsets.push(total);
            total += arity;
        }
        offsets.push(total);
        let rel_of = |c: usize| offsets.partition_point(|&o| o <= c) - 1;
        let rels_of = |e: &ScalarExpr| -> Vec<usize> {
            let mut r: Vec<usize> = e.support().into_iter().map(rel_of).collect();
            r.dedup();
            r
        };

        let mut pending: Vec<ScalarExpr> = Vec::new();
        let mut inputs: Vec<Plan> = Vec::with_capacity(rels.len());
        let mut per_rel: Vec<Vec<ScalarExpr>> = vec![Vec::new(); rels.len()];
        for p in conjuncts(predicates) {
            match rels_of(&p).as_slice() {
                [r] => {
                    let mut p = p;
                    let off = offsets[*r];
                    p.map_columns(&|c| c - off);
                    per_rel[*r].push(p);
                }
                _ => pending.push(p),
            }
        }
        for ((plan, _), preds) in rels.into_iter().zip(per_rel) {
            inputs.push(filter(plan, preds));
        }
        let mut inputs = inputs.into_iter();
        let mut acc = inputs.next().expect("at least one relation");
        // Constant predicates (no columns) apply to the first relation; those that draw a
        // value at each call (random()) to the joined rows, one draw each, as PostgreSQL
        // evaluates them.
        let (constant, mut pending): (Vec<_>, Vec<_>) =
            pending.into_iter().partition(|p| p.support().is_empty());
        let (volatile, constant): (Vec<_>, Vec<_>) =
            constant.into_iter().partition(ScalarExpr::draws_per_call);
        acc = filter(acc, constant);
        for (i, right) in inputs.enumerate().map(|(i, r)| (i + 1, r)) {
            let off = offsets[i];
            let mut left_key = Vec::new();
            let mut right_key = Vec::new();
            let mut rest = Vec::new();
            let mut after = Vec::new();
            for p in pending {
                // An equality that draws a value at each call is evaluated per joined pair,
                // as PostgreSQL does, not per input row as a key would be.
                let key = match p.draws_per_call() {
                    true => None,
                    false => equi_key(&p, off, offsets[i + 1]),
                };
                if let Some((l, r)) = key {
                    left_key.push(l);
                    right_key.push(r);
                } else if rels_of(&p).iter().all(|&r| r <= i) {
                    after.push(p);
                } else {
                    rest.push(p);
                }
            }
            pending = rest;
            acc = filter(
                Plan::Join {
                    left: Box::new(acc),
                    right: Box::new(right),
                    left_key,
                    right_key,
                },
                after,
            );
        }
        assert!(
            pending.is_empty(),
            "every predicate is placed by the last join"
        );
        filter(acc, volatile)
    }
}

/// If `p` is `l = r` with one side reading only columns before `split` and the other only
/// columns in `split..end`, the two key expressions (the right one shifted to its relation).
pub fn equi_key(p: &ScalarExpr, split: usize, end: usize) -> Option<(ScalarExpr, ScalarExpr)> {
    let ScalarExpr::Binary {
        func: BinaryFunc::Eq,
        left,
        right,
    } = p
    else {
        return None;
    };
    let side = |e: &ScalarExpr| {
        let s = e.support();
        if s.is_empty() {
            None
        } else if s.iter().all(|&c| c < split) {
            Some(false)
        } else if s.iter().all(|&c| c >= split && c < end) {
            Some(true)
        } else {
            None
        }
    };
    let (l, r) = match (side(left)?, side(right)?) {
        (false, true) => (left.as_ref().clone(), right.as_ref().clone()),
        (true, false) => (right.as_ref().clone(), left.as_ref().clone()),
        _ => return None,
    };
    let mut r = r;
    r.map_columns(&|c| c - split);
    Some((l, r))
}

/// Splits predicates into their AND-ed conjuncts, dropping literal TRUEs. Conjuncts common to
/// every branch of an OR are factored out of it (`(a AND b) OR (a AND c)` gives `a` and
/// `b OR c`, equal in three-valued logic), so a join key written inside each branch of an OR
/// still becomes a join key rather than leaving a cross product behind a filter.
pub fn conjuncts(preds: Vec<ScalarExpr>) -> Vec<ScalarExpr> {
    fn split(e: ScalarExpr, out: &mut Vec<ScalarExpr>) {
        match e {
            ScalarExpr::Binary {
                func: BinaryFunc::And,
                left,
                right,
            } => {
                split(*left, out);
                split(*right, out);
            }
            ScalarExpr::Literal(kpg_types::Datum::Bool(true)) => {}
            or @ ScalarExpr::Binary {
                func: BinaryFunc::Or,
                ..
            } => factor_or(or, out),
            other => out.push(other),
        }
    }
    fn branches(e: ScalarExpr, out: &mut Vec<ScalarExpr>) {
        match e {
            ScalarExpr::Binary {
                func: BinaryFunc::Or,
                left,
                right,
            } => {
                branches(*left, out);
                branches(*right, out);
            }
            other => out.push(other),
        }
    }
    fn factor_or(or: ScalarExpr, out: &mut Vec<ScalarExpr>) {
        let mut ors = Vec::new();
        branches(or.clone(), &mut ors);
        let parts: Vec<Vec<ScalarExpr>> = ors
            .into_iter()
            .map(|b| {
                let mut p = Vec::new();
                split(b, &mut p);
                p
            })
            .collect();
        let mut common: Vec<ScalarExpr> = Vec::new();
        for c in &parts[0] {
            if !common.contains(c) && parts[1..].iter().all(|p| p.contains(c)) {
                common.push(c.clone());
            }
        }
        if common.is_empty() {
            out.push(or);
            return;
        }
        let and_all = |ps: Vec<ScalarExpr>| {
            ps.into_iter()
                .reduce(|a, b| a.call_binary(BinaryFunc::And, b))
        };
        let residual: Option<Vec<ScalarExpr>> = parts
            .into_iter()
            .map(|p| and_all(p.into_iter().filter(|c| !common.contains(c)).collect()))
            .collect();
        out.extend(common);
        // A branch that was nothing but common conjuncts makes the rest of the OR true.
        if let Some(residual) = residual {
            out.extend(and_all_or(residual));
        }
    }
    fn and_all_or(branches: Vec<ScalarExpr>) -> Option<ScalarExpr> {
        branches
            .into_iter()
            .reduce(|a, b| a.call_binary(BinaryFunc::Or, b))
    }
    let mut out = Vec::new();
    for p in preds {
        split(p, &mut out);
    }
    out
}

pub fn filter(plan: Plan, predicates: Vec<ScalarExpr>) -> Plan {
    if predicates.is_empty() {
        plan
    } else {
        Plan::Filter {
            input: Box::new(plan),
            predicates,
        }
    }
}

/// Applies a FROM item's alias: `AS x` renames the item, `AS x(a, b)` also its columns.
pub fn aliased(
    mut scope: Scope,
    alias: Option<&TableAlias>,
    default: &str,
) -> Result<Scope, PlanError> {
    let name = alias.map_or_else(|| default.to_string(), |a| fold(&a.name));
    if let Some(a) = alias {
        if a.columns.len() > scope.len() {
            return Err(PlanError::new(
                "42P10",
                format!(
                    "table \"{name}\" has {} columns available but {} columns specified",
                    scope.len(),
                    a.columns.len()
                ),
            ));
        }
        for (item, col) in scope.items.iter_mut().zip(&a.columns) {
            if col.data_type.is_some() {
                return Err(PlanError::unsupported("column definition lists"));
            }
            item.name = fold(&col.name);
        }
    }
    for item in &mut scope.items {
        *item = ScopeItem {
            table: Some(name.clone()),
            ..item.clone()
        };
    }
    Ok(scope)
}

#[cfg(test)]
mod conjunct_tests {
    use super::conjuncts;
    use kpg_types::{BinaryFunc, Datum, ScalarExpr};

    fn eq(c: usize, v: i32) -> ScalarExpr {
        ScalarExpr::Column(c).call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int32(v)))
    }

    #[test]
    fn common_conjuncts_leave_the_or() {
        let key = ScalarExpr::Column(0).call_binary(BinaryFunc::Eq, ScalarExpr::Column(1));
        let or = key
            .clone()
            .call_binary(BinaryFunc::And, eq(2, 1))
            .call_binary(
                BinaryFunc::Or,
                key.clone().call_binary(BinaryFunc::And, eq(2, 5)),
            );
        assert_eq!(
            conjuncts(vec![or]),
            vec![key.clone(), eq(2, 1).call_binary(BinaryFunc::Or, eq(2, 5))]
        );
        // A branch made only of common conjuncts makes the residual OR true.
        let or = key.clone().call_binary(
            BinaryFunc::Or,
            key.clone().call_binary(BinaryFunc::And, eq(2, 5)),
        );
        assert_eq!(conjuncts(vec![or]), vec![key]);
        // Nothing in common: the OR stays whole.
        let or = eq(1, 1).call_binary(BinaryFunc::Or, eq(2, 2));
        assert_eq!(conjuncts(vec![or.clone()]), vec![or]);
    }
}
