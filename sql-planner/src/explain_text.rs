//! The text of EXPLAIN: a plan as an indented tree, one operator per line, children below
//! their parent. Columns are `#n` (position in the operator's input), objects by name; a join
//! shows the key of each input (`left=(#0) right=(#1)`: left #0 equals right #1), and its
//! output is the left input's columns followed by the right's.
//!
//! The physical form marks what the runtime builds, using the same rule the renderer uses
//! (`Plan::reads_index_keyed_by`): a join input is arranged by its key — `ArrangeBy ... [new]` —
//! unless it is read through an index keyed exactly that way, which is imported as it is;
//! `Reduce`, `Distinct` and `Threshold` arrange their input (and output). The footer lists the
//! imported indexes and counts the new arrangements.

use std::collections::HashSet;
use std::fmt::Write;

use kpg_types::{expr_list, AggregateExpr, BoundSubquery, GlobalId, Plan, ScalarExpr, OUTER_ROW};

use crate::catalog::Catalog;

/// The plan as a tree, with no physical annotations.
pub fn plan_text(plan: &Plan, index_key: Option<&[ScalarExpr]>, catalog: &dyn Catalog) -> String {
    let mut p = Printer {
        catalog,
        physical: false,
        out: String::new(),
        imported: Vec::new(),
        new_arrangements: 0,
        arranged_locals: HashSet::new(),
        subqueries: Vec::new(),
        in_loop: false,
    };
    let depth = p.index_sink(index_key);
    p.plan(plan, depth);
    p.out
}

/// The plan after index selection, with every new arrangement and imported index marked.
pub fn physical_text(
    plan: &Plan,
    index_key: Option<&[ScalarExpr]>,
    catalog: &dyn Catalog,
) -> String {
    let mut p = Printer {
        catalog,
        physical: true,
        out: String::new(),
        imported: Vec::new(),
        new_arrangements: 0,
        arranged_locals: HashSet::new(),
        subqueries: Vec::new(),
        in_loop: false,
    };
    let depth = p.index_sink(index_key);
    p.plan(plan, depth);
    p.out.push('\n');
    if p.imported.is_empty() {
        p.out.push_str("Used indexes: none\n");
    } else {
        p.out.push_str("Used indexes:\n");
        p.imported.sort();
        p.imported.dedup();
        for line in &p.imported {
            let _ = writeln!(p.out, "  - {line}");
        }
    }
    let _ = writeln!(p.out, "New arrangements: {}", p.new_arrangements);
    p.out
}

struct Printer<'a> {
    catalog: &'a dyn Catalog,
    physical: bool,
    out: String,
    imported: Vec<String>,
    new_arrangements: usize,
    /// The `Let` values arranged by a join key so far: later joins share the arrangement.
    arranged_locals: HashSet<(u64, Vec<ScalarExpr>)>,
    /// Subqueries in the expressions of the node being printed (a raw plan's), printed
    /// below its line, before its inputs.
    subqueries: Vec<BoundSubquery>,
    /// Printing a recursive query's step, where times are not totally ordered and a DISTINCT
    /// over the recursion keeps its output arranged too.
    in_loop: bool,
}

impl Printer<'_> {
    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "  ".repeat(depth));
        for s in std::mem::take(&mut self.subqueries) {
            self.line(
                depth + 1,
                &format!("Subquery {}", ScalarExpr::Subquery(Box::new(s.clone()))),
            );
            self.plan(&s.plan, depth + 2);
        }
    }

    fn name(&self, id: GlobalId) -> String {
        self.catalog.name_of(id).unwrap_or_else(|| format!("u{id}"))
    }

    /// An index's dataflow arranges the plan's result by the index key.
    fn index_sink(&mut self, index_key: Option<&[ScalarExpr]>) -> usize {
        let Some(key) = index_key else { return 0 };
        let mark = if self.physical {
            self.new_arrangements += 1;
            " [new, exported as the index]"
        } else {
            ""
        };
        self.line(0, &format!("ArrangeBy {}{mark}", exprs(key)));
        1
    }

    fn indexed_get(&mut self, depth: usize, id: GlobalId, index: GlobalId, key: &[ScalarExpr]) {
        let (obj, idx) = (self.name(id), self.name(index));
        self.line(
            depth,
            &format!("Get {obj} through index {idx} {}", exprs(key)),
        );
        if self.physical {
            self.imported.push(format!("{idx} on {obj} {}", exprs(key)));
        }
    }

    /// A join input: imported as it is when it is an index keyed by `key`, else arranged.
    fn join_input(&mut self, input: &Plan, key: &[ScalarExpr], depth: usize) {
        if self.physical {
            if let Some(index) = input.reads_index_keyed_by(key) {
                if let Plan::IndexedGet { id, key, .. } = input {
                    self.indexed_get(depth, *id, index, key);
                    return;
                }
            }
            if let Plan::LocalGet { id } = input {
                if !self.arranged_locals.insert((*id, key.to_vec())) {
                    let text = format!("ArrangeBy {} [shared with an earlier join]", exprs(key));
                    self.line(depth, &text);
                    self.plan(input, depth + 1);
                    return;
                }
            }
            self.new_arrangements += 1;
            self.line(depth, &format!("ArrangeBy {} [new]", exprs(key)));
            self.plan(input, depth + 1);
        } else {
            self.plan(input, depth);
        }
    }

    fn plan(&mut self, plan: &Plan, depth: usize) {
        self.subqueries = subqueries(plan);
        let arranges = |p: &mut Self, n: usize| {
            if p.physical {
                p.new_arrangements += n;
                if n == 1 {
                    " [new arrangement]"
                } else {
                    " [new arrangements: input by key, output]"
                }
            } else {
                ""
            }
        };
        match plan {
            Plan::Get { id: OUTER_ROW } => self.line(depth, "Get outer row"),
            Plan::Get { id } => {
                let name = self.name(*id);
                self.line(depth, &format!("Get {name}"));
            }
            Plan::GetWithPosition { id } => {
                let name = self.name(*id);
                self.line(depth, &format!("Get {name} with positions"));
            }
            Plan::IndexedGet { id, index, key } => self.indexed_get(depth, *id, *index, key),
            Plan::Constant { rows } => {
                let shown: Vec<String> = rows
                    .iter()
                    .take(3)
                    .map(|(r, n)| {
                        let vals: Vec<String> = r
                            .iter()
                            .map(|d| ScalarExpr::Literal(d.to_datum()).to_string())
                            .collect();
                        if *n == 1 {
                            format!("({})", vals.join(", "))
                        } else {
                            format!("({}) x {n}", vals.join(", "))
                        }
                    })
                    .collect();
                let text = match rows.len() {
                    0 => "Constant (empty)".to_string(),
                    1..=3 => format!("Constant {}", shown.join(", ")),
                    n => format!("Constant {}, ... ({n} rows)", shown.join(", ")),
                };
                self.line(depth, &text);
            }
            Plan::Map { input, exprs: es } => {
                self.line(depth, &format!("Map {}", exprs(es)));
                self.plan(input, depth + 1);
            }
            Plan::Filter { input, predicates } => {
                let preds: Vec<String> = predicates.iter().map(expr).collect();
                self.line(depth, &format!("Filter {}", preds.join(" AND ")));
                self.plan(input, depth + 1);
            }
            Plan::TemporalFilter {
                input,
                lower,
                upper,
            } => {
                // Each bound as the comparison it came from: mz_now() >= lower, < upper.
                let bounds: Vec<String> = lower
                    .iter()
                    .map(|e| format!("mz_now() >= {}", expr(e)))
                    .chain(upper.iter().map(|e| format!("mz_now() < {}", expr(e))))
                    .collect();
                self.line(depth, &format!("TemporalFilter {}", bounds.join(" AND ")));
                self.plan(input, depth + 1);
            }
            Plan::Project { input, outputs } => {
                let cols: Vec<String> = outputs.iter().map(|c| format!("#{c}")).collect();
                self.line(depth, &format!("Project ({})", cols.join(", ")));
                self.plan(input, depth + 1);
            }
            Plan::Join {
                left,
                right,
                left_key,
                right_key,
            } => {
                if left_key.is_empty() {
                    self.line(depth, "CrossJoin");
                } else {
                    self.line(
                        depth,
                        &format!("Join left={} right={}", exprs(left_key), exprs(right_key)),
                    );
                }
                self.join_input(left, left_key, depth + 1);
                self.join_input(right, right_key, depth + 1);
            }
            Plan::Reduce {
                input,
                group_key,
                aggregates,
            } => {
                let aggs: Vec<String> = aggregates.iter().map(|a| a.to_string()).collect();
                // Accumulated contributions need no output arrangement (times outside a
                // recursion are totally ordered, and a reduction is not rendered inside one).
                let n = if AggregateExpr::all_accumulable(aggregates) {
                    1
                } else {
                    2
                };
                let mark = arranges(self, n);
                self.line(
                    depth,
                    &format!(
                        "Reduce group_by={} aggregates=[{}]{mark}",
                        exprs(group_key),
                        aggs.join(", ")
                    ),
                );
                self.plan(input, depth + 1);
            }
            Plan::Distinct { input } => {
                // Inside a recursive step a DISTINCT over the recursion runs in the loop's
                // partially ordered times and keeps its output arranged too; the step's parts
                // that do not read the recursion are rendered outside, as anywhere else.
                let mut in_loop = false;
                input.visit(&mut |p| in_loop |= matches!(p, Plan::RecursiveGet { .. }));
                let n = if self.in_loop && in_loop { 2 } else { 1 };
                let mark = arranges(self, n);
                self.line(depth, &format!("Distinct{mark}"));
                self.plan(input, depth + 1);
            }
            Plan::Threshold { input } => {
                let mark = arranges(self, 1);
                self.line(depth, &format!("Threshold{mark}"));
                self.plan(input, depth + 1);
            }
            Plan::Negate { input } => {
                self.line(depth, "Negate");
                self.plan(input, depth + 1);
            }
            Plan::Union { inputs } => {
                self.line(depth, "Union");
                for i in inputs {
                    self.plan(i, depth + 1);
                }
            }
            Plan::TopK {
                input,
                group_key,
                order_by,
                limit,
                offset,
                counts,
            } => {
                // With a limit, a first stage cuts each group down in buckets (render/top_k.rs).
                let limited = limit.is_some() || counts.as_ref().is_some_and(|c| c[0].is_some());
                let mark = arranges(self, if limited { 4 } else { 2 });
                let group = columns_text(group_key);
                let order = order_text(order_by);
                let (limit, offset) = match counts.as_deref() {
                    // A prepared statement's, before its values are bound.
                    Some([l, o]) => (
                        l.as_ref().map_or("ALL".to_string(), expr),
                        o.as_ref().map_or("0".to_string(), expr),
                    ),
                    None => (
                        limit.map_or("ALL".to_string(), |l| l.to_string()),
                        offset.to_string(),
                    ),
                };
                self.line(
                    depth,
                    &format!(
                        "TopK group_by=({}) order_by=[{}] limit={limit} offset={offset}{mark}",
                        group, order
                    ),
                );
                self.plan(input, depth + 1);
            }
            Plan::FlatMap {
                input,
                func,
                exprs,
                ordinality,
            } => {
                let ord = if *ordinality { " WITH ORDINALITY" } else { "" };
                self.line(
                    depth,
                    &format!("FlatMap {func:?}({}){ord}", kpg_types::expr_list(exprs)),
                );
                self.plan(input, depth + 1);
            }
            Plan::Window {
                input,
                partition_by,
                order_by,
                funcs,
            } => {
                let mark = arranges(self, 2);
                let group = columns_text(partition_by);
                let order = order_text(order_by);
                let funcs: Vec<String> = funcs.iter().map(|f| format!("{:?}", f.func)).collect();
                self.line(
                    depth,
                    &format!(
                        "Window partition_by=({}) order_by=[{}] funcs=[{}]{mark}",
                        group,
                        order,
                        funcs.join(", ")
                    ),
                );
                self.plan(input, depth + 1);
            }
            Plan::Recursive {
                id,
                base,
                step,
                distinct,
            } => {
                // The step's inputs that do not read the recursion are arranged once, outside.
                let kind = if *distinct { "UNION" } else { "UNION ALL" };
                // Each round's rows are consolidated (UNION: made distinct, which keeps its
                // output arranged too).
                let mark = arranges(self, if *distinct { 2 } else { 1 });
                self.line(
                    depth,
                    &format!("Recursive r{id} ({kind}): base, then step{mark}"),
                );
                self.plan(base, depth + 1);
                let outer = std::mem::replace(&mut self.in_loop, true);
                self.plan(step, depth + 1);
                self.in_loop = outer;
            }
            Plan::RecursiveGet { id } => self.line(depth, &format!("RecursiveGet r{id}")),
            Plan::Let { id, value, body } => {
                // Computed once, read wherever `Get l{id}` appears in the body.
                self.line(depth, &format!("Let l{id} ="));
                self.plan(value, depth + 1);
                self.line(depth, "In");
                self.plan(body, depth + 1);
            }
            Plan::LocalGet { id } => self.line(depth, &format!("Get l{id}")),
        }
    }
}

/// The subqueries in a node's own expressions, outermost first, left to right.
fn subqueries(plan: &Plan) -> Vec<BoundSubquery> {
    let mut found = Vec::new();
    for e in plan.own_exprs() {
        e.visit(&mut |e| {
            if let ScalarExpr::Subquery(s) = e {
                found.push(s.as_ref().clone());
            }
        });
    }
    found
}

fn exprs(es: &[ScalarExpr]) -> String {
    expr_list(es)
}

fn expr(e: &ScalarExpr) -> String {
    e.to_string()
}

/// `#1, #3`: column numbers as EXPLAIN writes them.
fn columns_text(columns: &[usize]) -> String {
    let cols: Vec<String> = columns.iter().map(|c| format!("#{c}")).collect();
    cols.join(", ")
}

/// `#1 DESC NULLS FIRST, #2 NULLS LAST`: an ORDER BY as EXPLAIN writes it.
fn order_text(order_by: &[kpg_types::plan::ColumnOrder]) -> String {
    let items: Vec<String> = order_by
        .iter()
        .map(|o| {
            let dir = if o.desc { " DESC" } else { "" };
            let nulls = if o.nulls_last { "LAST" } else { "FIRST" };
            format!("#{}{dir} NULLS {nulls}", o.column)
        })
        .collect();
    items.join(", ")
}
