//! Join ordering: the order and keys of a chain of inner equi-joins chosen so that as many join
//! inputs as possible are read through indexes the catalog already holds, and then, where the
//! catalog has statistics, so that the intermediate results are small.
//!
//! kpg renders a `Plan::Join` by arranging each input by its key, unless the input is an index
//! keyed exactly that way (`index_reuse.rs` makes an input read one where it fits). A tree of
//! inner joins (with filters between them) over n inputs is flattened here into its inputs and
//! one pool of predicates; every left-deep order whose joins all have keys (no cross product)
//! is considered, by dynamic programming over the sets of inputs joined so far. A left-deep
//! plan arranges each intermediate result once (n - 2 of them), plus every input not read
//! through an index keyed by the equalities that join it; for an input that has such an index
//! only those equalities form the key and the others filter right after the join. The cheapest
//! order is built — predicates placed after the first join that has their columns, a `Project`
//! restoring the original column order — and kept only when `use_indexes` then really builds
//! fewer arrangements than for the original tree, or as many with fewer cross products;
//! otherwise the tree stays as it was. Then, where the catalog has statistics of every input
//! (`estimate.rs`), the order the same search finds with estimated intermediate rows as the
//! second cost replaces that one when it builds no more arrangements and its estimated rows
//! (each tree costed by its joins' key equalities, `Tree`) are clearly fewer (`SMALLER`,
//! `MIN_SAVING`): TPC-H Q7's two nations meet supplier before lineitem does. Last, the order
//! that arranges the fewest estimated rows (inputs and intermediate results) replaces the
//! chosen one, even with more arrangements, when the rows its joins arrange and produce
//! (`join_work`) are clearly fewer: a filtered dimension read through its index is filtered
//! only after its join, so an order built around indexes can arrange every row of a large
//! table where arranging the dimension's few rows would have let the filter go first (Q11 with
//! the key indexes: supplier meets nation's GERMANY before partsupp, not after).
//!
//! Predicates move to other places in the tree, so they see other rows: a chain is reordered
//! only when all its multi-input predicates and keys are expressions that cannot fail
//! (columns, literals, comparisons, AND/OR/NOT, IS NULL, COALESCE, CASE), so no error appears
//! or disappears. Key equality and SQL `=` agree (`Datum` equality, NULL never matching), so an
//! equality moves between key and filter freely.

use kpg_types::{BinaryFunc, Plan, ScalarExpr};

use crate::catalog::Catalog;
use crate::estimate::{self, estimate, Estimate};
use crate::index_reuse::{plan_arity, use_indexes};

/// Chains with more inputs than this keep their order (the search is exponential).
const MAX_INPUTS: usize = 12;

/// An order that builds the same arrangements replaces the one chosen without estimates only
/// when its estimated intermediate rows are below this share of that one's, and fewer by
/// `MIN_SAVING`: estimates are rough, the written order is the user's, and it may be the
/// order another part of the plan joins the same inputs in (decorrelation copies a query's
/// joins into its subqueries), which is then computed once (`share.rs`).
const SMALLER: f64 = 0.5;
const MIN_SAVING: f64 = 10_000.0;

/// Reorders every chain of inner equi-joins in `plan` where that lets more inputs be read
/// through existing indexes, or makes the estimated intermediate results clearly smaller.
/// Call it before `use_indexes`.
pub fn order_joins(plan: Plan, catalog: &dyn Catalog) -> Plan {
    match plan {
        // A projection of a chain absorbs the projection restoring the chain's column order.
        Plan::Project { input, outputs } if is_chain(&input) => {
            match order_joins(*input, catalog) {
                Plan::Project {
                    input,
                    outputs: inner,
                } => Plan::Project {
                    input,
                    outputs: outputs.iter().map(|o| inner[*o]).collect(),
                },
                input => Plan::Project {
                    input: Box::new(input),
                    outputs,
                },
            }
        }
        plan if is_chain(&plan) => reorder_chain(&plan, catalog)
            .unwrap_or_else(|| plan.map_inputs(|p| order_joins(p, catalog))),
        plan => plan.map_inputs(|p| order_joins(p, catalog)),
    }
}

fn is_chain(plan: &Plan) -> bool {
    match plan {
        Plan::Join { .. } => true,
        Plan::Filter { input, .. } => matches!(**input, Plan::Join { .. }),
        _ => false,
    }
}

/// A flattened join tree: its inputs (in the tree's order), where each input's columns start,
/// and the predicates over all columns.
struct Chain {
    inputs: Vec<Plan>,
    offsets: Vec<usize>,
    predicates: Vec<ScalarExpr>,
}

impl Chain {
    fn flatten(&mut self, plan: &Plan, catalog: &dyn Catalog) -> Option<()> {
        let start = *self.offsets.last().expect("offsets start with 0");
        match plan {
            Plan::Join {
                left,
                right,
                left_key,
                right_key,
            } => {
                self.flatten(left, catalog)?;
                let mid = *self.offsets.last().expect("nonempty");
                self.flatten(right, catalog)?;
                for (l, r) in left_key.iter().zip(right_key) {
                    let (mut l, mut r) = (l.clone(), r.clone());
                    l.map_columns(&|c| c + start);
                    r.map_columns(&|c| c + mid);
                    self.predicates.push(l.call_binary(BinaryFunc::Eq, r));
                }
            }
            Plan::Filter { input, predicates } if matches!(**input, Plan::Join { .. }) => {
                self.flatten(input, catalog)?;
                for p in predicates {
                    let mut p = p.clone();
                    p.map_columns(&|c| c + start);
                    self.predicates.push(p);
                }
            }
            other => {
                let arity = plan_arity(other, catalog)?;
                self.inputs.push(other.clone());
                self.offsets.push(start + arity);
            }
        }
        Some(())
    }

    fn input_of(&self, column: usize) -> usize {
        self.offsets.partition_point(|&o| o <= column) - 1
    }

    /// The inputs an expression reads, as a bit set.
    fn inputs_read(&self, e: &ScalarExpr) -> u32 {
        e.support()
            .into_iter()
            .fold(0, |m, c| m | 1 << self.input_of(c))
    }

    fn arity(&self, input: usize) -> usize {
        self.offsets[input + 1] - self.offsets[input]
    }
}

/// An equality of the pool whose sides read disjoint sets of inputs.
struct Equality {
    /// Index of the predicate in the pool.
    predicate: usize,
    sides: [(ScalarExpr, u32); 2],
}

impl Equality {
    /// When this equality can key the join of the inputs `joined` with input `next`: the side
    /// over `joined` and the side over `next`.
    fn keys(&self, joined: u32, next: usize) -> Option<(&ScalarExpr, &ScalarExpr)> {
        self.between(joined, 1 << next)
    }

    /// When this equality can key a join of the inputs `left` with the inputs `right`: the
    /// side over `left` and the side over `right`.
    fn between(&self, left: u32, right: u32) -> Option<(&ScalarExpr, &ScalarExpr)> {
        let [(a, am), (b, bm)] = &self.sides;
        if am & !left == 0 && bm & !right == 0 {
            Some((a, b))
        } else if bm & !left == 0 && am & !right == 0 {
            Some((b, a))
        } else {
            None
        }
    }
}

/// How one input is joined: the equalities forming the key, in key order, and whether the
/// input is then read through an index.
#[derive(Clone, Debug)]
struct Step {
    input: usize,
    keys: Vec<usize>,
}

fn reorder_chain(plan: &Plan, catalog: &dyn Catalog) -> Option<Plan> {
    let mut chain = Chain {
        inputs: Vec::new(),
        offsets: vec![0],
        predicates: Vec::new(),
    };
    chain.flatten(plan, catalog)?;
    let n = chain.inputs.len();
    if !(2..=MAX_INPUTS).contains(&n) || !chain.predicates.iter().all(ScalarExpr::cannot_fail) {
        return None;
    }
    chain.inputs = std::mem::take(&mut chain.inputs)
        .into_iter()
        .map(|input| order_joins(input, catalog))
        .collect();
    let equalities: Vec<Equality> = chain
        .predicates
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            ScalarExpr::Binary {
                func: BinaryFunc::Eq,
                left,
                right,
            } => {
                let (lm, rm) = (chain.inputs_read(left), chain.inputs_read(right));
                (lm != 0 && rm != 0 && lm & rm == 0).then(|| Equality {
                    predicate: i,
                    sides: [(*left.clone(), lm), (*right.clone(), rm)],
                })
            }
            _ => None,
        })
        .collect();
    // The order with the fewest arrangements (the first found among equals), kept only when
    // it really builds fewer (counted after index selection) than the original tree, or as
    // many without the original's cross products.
    let original = plan_with_inputs(plan, &chain.inputs, &mut 0);
    let shape = |tree: &Plan| {
        (
            new_join_arrangements(&use_indexes(tree.clone(), catalog)),
            cross_products(tree),
        )
    };
    let fewest_steps =
        cheapest_order(&chain, &equalities, catalog, None, Objective::Arrangements)?.steps;
    let fewest = build(&chain, &equalities, &fewest_steps);
    let kept = shape(&fewest) >= shape(&original);
    let mut chosen = if kept { original } else { fewest };
    // Among orders that build as many arrangements, the one with the fewest estimated
    // intermediate rows replaces it when that is clearly fewer.
    let Some(estimates) = input_estimates(&chain, &equalities, catalog) else {
        return Some(chosen);
    };
    let old = match kept {
        true => Tree::of_plan(plan, &mut 0),
        false => Tree::left_deep(&fewest_steps),
    }
    .intermediate_rows(&estimates, &equalities);
    let search =
        |objective| cheapest_order(&chain, &equalities, catalog, Some(&estimates), objective);
    if let Some(order) = search(Objective::Arrangements) {
        let new = Tree::left_deep(&order.steps).intermediate_rows(&estimates, &equalities);
        let estimated = build(&chain, &equalities, &order.steps);
        if shape(&estimated) <= shape(&chosen) && new < old * SMALLER && old - new >= MIN_SAVING {
            chosen = estimated;
        }
    }
    // Fewer arrangements are not always less to arrange: reading a filtered dimension through
    // its index can put the filter after a join that arranged every row of the fact table,
    // where arranging the dimension's few rows anew would have let the filter go first. The
    // order that arranges the fewest estimated rows replaces the chosen one when it clearly
    // arranges fewer (`SMALLER`, `MIN_SAVING`), whatever the number of arrangements.
    if let Some(order) = search(Objective::Work) {
        let by_work = build(&chain, &equalities, &order.steps);
        let rows = |tree: &Plan| join_work(&use_indexes(tree.clone(), catalog), catalog);
        if let (Some(new), Some(old)) = (rows(&by_work), rows(&chosen)) {
            if new < old * SMALLER
                && old - new >= MIN_SAVING
                && cross_products(&by_work) <= cross_products(&chosen)
            {
                chosen = by_work;
            }
        }
    }
    Some(chosen)
}

/// The estimated rows `plan`'s joins arrange and produce: every input arranged anew, and
/// every join's result before the filters above it (a dimension read through an index and
/// filtered after the join produces the rows of all its values). `None` where one has no
/// estimate.
pub(crate) fn join_work(plan: &Plan, catalog: &dyn Catalog) -> Option<f64> {
    let mut rows = Some(0.0);
    let mut add = |p: &Plan| rows = rows.zip(estimate(p, catalog)).map(|(r, e)| r + e.rows);
    each_new_join_input(plan, &mut add);
    plan.visit(&mut |p| {
        if matches!(p, Plan::Join { .. }) {
            add(p);
        }
    });
    rows
}

/// The original join tree over the already reordered inputs.
fn plan_with_inputs(plan: &Plan, inputs: &[Plan], next: &mut usize) -> Plan {
    match plan {
        Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } => {
            let left = plan_with_inputs(left, inputs, next);
            let right = plan_with_inputs(right, inputs, next);
            Plan::Join {
                left: Box::new(left),
                right: Box::new(right),
                left_key: left_key.clone(),
                right_key: right_key.clone(),
            }
        }
        Plan::Filter { input, predicates } if matches!(**input, Plan::Join { .. }) => {
            Plan::Filter {
                input: Box::new(plan_with_inputs(input, inputs, next)),
                predicates: predicates.clone(),
            }
        }
        _ => {
            *next += 1;
            inputs[*next - 1].clone()
        }
    }
}

/// How many joins of `plan` have no key.
fn cross_products(plan: &Plan) -> usize {
    let mut n = 0;
    plan.visit(&mut |p| {
        if let Plan::Join { left_key, .. } = p {
            n += usize::from(left_key.is_empty());
        }
    });
    n
}

/// How many join inputs of `plan` are arranged anew (not read through an index keyed by the
/// join key, nor a shared value that another join arranges by the same key), as EXPLAIN
/// PHYSICAL and the renderer count them.
pub fn new_join_arrangements(plan: &Plan) -> usize {
    let mut n = 0;
    each_new_join_input(plan, |_| n += 1);
    n
}

/// Calls `f` with each join input of `plan` that is arranged anew, as `new_join_arrangements`
/// counts them.
fn each_new_join_input(plan: &Plan, mut f: impl FnMut(&Plan)) {
    let mut shared = std::collections::HashSet::new();
    plan.visit(&mut |p| {
        if let Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } = p
        {
            for (input, key) in [(left, left_key), (right, right_key)] {
                let new = match input.as_ref() {
                    Plan::LocalGet { id } => shared.insert((*id, key.clone())),
                    other => other.reads_index_keyed_by(key).is_none(),
                };
                if new {
                    f(input);
                }
            }
        }
    });
}

/// The keys (indices into the equalities, in an index's key order) under which `input` can be
/// read through an index, given the equalities `usable` that may join it (with each one's side
/// over the input, in the chain's columns): one per index that fits.
fn index_keys(
    chain: &Chain,
    input: usize,
    usable: &[(usize, &ScalarExpr)],
    catalog: &dyn Catalog,
) -> Vec<Vec<usize>> {
    let Some((id, columns)) = collection_columns(&chain.inputs[input], catalog) else {
        return Vec::new();
    };
    let offset = chain.offsets[input];
    // Each usable equality's side over the input, as an expression over the collection.
    let over_collection: Vec<(usize, ScalarExpr)> = usable
        .iter()
        .map(|(e, side)| {
            let mut side = (*side).clone();
            side.map_columns(&|c| columns[c - offset]);
            (*e, side)
        })
        .collect();
    catalog
        .indexes_on(id)
        .into_iter()
        .filter_map(|index| {
            index
                .key
                .iter()
                .map(|k| {
                    over_collection
                        .iter()
                        .find(|(_, s)| s == k)
                        .map(|(e, _)| *e)
                })
                .collect::<Option<Vec<usize>>>()
        })
        .filter(|keys| !keys.is_empty())
        .collect()
}

/// The collection an input reads through filters and projections, and for each of the input's
/// columns the collection's column holding it (the same peeling `index_reuse` does).
fn collection_columns(
    input: &Plan,
    catalog: &dyn Catalog,
) -> Option<(kpg_types::GlobalId, Vec<usize>)> {
    let mut projections = Vec::new();
    let mut leaf = input;
    loop {
        match leaf {
            Plan::Filter { input, .. } => leaf = input,
            Plan::Project { input, outputs } => {
                projections.push(outputs);
                leaf = input;
            }
            _ => break,
        }
    }
    let id = match leaf {
        Plan::Get { id } | Plan::IndexedGet { id, .. } => *id,
        _ => return None,
    };
    let mut columns: Vec<usize> = (0..plan_arity(leaf, catalog)?).collect();
    for outputs in projections.iter().rev() {
        columns = outputs.iter().map(|o| columns[*o]).collect();
    }
    Some((id, columns))
}

/// A left-deep order being built: the arrangements it makes, the rows of its intermediate
/// results (where estimated), its steps, and the estimate of what it has joined so far.
#[derive(Clone)]
struct Partial {
    arrangements: usize,
    rows: f64,
    /// The estimated rows of the inputs it arranges anew (its intermediate results are in
    /// `rows`).
    arranged_rows: f64,
    steps: Vec<Step>,
    joined: Option<Estimate>,
}

/// What a search minimizes: new arrangements, then estimated intermediate rows; or the
/// estimated rows it arranges, inputs and intermediate results together, then arrangements.
#[derive(Clone, Copy, PartialEq)]
enum Objective {
    Arrangements,
    Work,
}

impl Partial {
    fn cost(&self, objective: Objective) -> (f64, f64) {
        match objective {
            Objective::Arrangements => (self.arrangements as f64, self.rows),
            Objective::Work => (self.arranged_rows + self.rows, self.arrangements as f64),
        }
    }
}

/// The left-deep order (first two inputs, then one input per step) with the fewest new
/// arrangements and, given the inputs' estimates, among those the fewest estimated
/// intermediate rows (one estimate kept per set of inputs); `None` when every order needs a
/// cross product.
fn cheapest_order(
    chain: &Chain,
    equalities: &[Equality],
    catalog: &dyn Catalog,
    estimates: Option<&[Estimate]>,
    objective: Objective,
) -> Option<Partial> {
    let rows_of = |i: usize| estimates.map_or(0.0, |e| e[i].rows);
    let n = chain.inputs.len();
    let full = (1usize << n) - 1;

    let usable = |joined: u32, next: usize| -> Vec<(usize, &ScalarExpr)> {
        equalities
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.keys(joined, next).map(|(_, side)| (i, side)))
            .collect()
    };
    // The estimate of `joined` (over the inputs `mask`) joined with input `next`.
    let joined_with = |joined: &Option<Estimate>, mask: u32, next: usize| -> Option<Estimate> {
        let (joined, estimates) = (joined.as_ref()?, estimates?);
        let pairs: Vec<(&ScalarExpr, &ScalarExpr)> = equalities
            .iter()
            .filter_map(|e| e.keys(mask, next))
            .collect();
        Some(estimate::join(joined, &estimates[next], &pairs))
    };
    let all = |u: &[(usize, &ScalarExpr)]| u.iter().map(|(i, _)| *i).collect::<Vec<_>>();
    let mut best: Vec<Option<Partial>> = vec![None; 1 << n];
    let offer = |best: &mut [Option<Partial>], mask: usize, mut partial: Partial| {
        if mask != full {
            partial.rows += partial.joined.as_ref().map_or(0.0, |e| e.rows);
        }
        if best[mask]
            .as_ref()
            .is_none_or(|b| partial.cost(objective) < b.cost(objective))
        {
            best[mask] = Some(partial);
        }
    };
    // First joins: both inputs indexed by the same equalities, one of them, or neither.
    for i in 0..n {
        for j in i + 1..n {
            let ui = usable(1 << j, i);
            if ui.is_empty() {
                continue;
            }
            let uj = usable(1 << i, j);
            let ki = index_keys(chain, i, &ui, catalog);
            let kj = index_keys(chain, j, &uj, catalog);
            let mask = (1 << i) | (1 << j);
            let first = estimates.map(|e| e[i].clone());
            let joined = joined_with(&first, 1 << i, j);
            let pair = |keys: Vec<usize>, arrangements, arranged_rows| Partial {
                arrangements,
                rows: 0.0,
                arranged_rows,
                steps: vec![
                    Step {
                        input: i,
                        keys: keys.clone(),
                    },
                    Step { input: j, keys },
                ],
                joined: joined.clone(),
            };
            offer(&mut best, mask, pair(all(&ui), 2, rows_of(i) + rows_of(j)));
            for k in &ki {
                offer(&mut best, mask, pair(k.clone(), 1, rows_of(j)));
            }
            for k in &kj {
                offer(&mut best, mask, pair(k.clone(), 1, rows_of(i)));
            }
            if let Some(k) = ki.iter().find(|k| kj.contains(k)) {
                offer(&mut best, mask, pair(k.clone(), 0, 0.0));
            }
        }
    }
    // Then one input at a time: its intermediate input is arranged (1), the new input too
    // unless an index fits.
    for mask in 0..1usize << n {
        let Some(partial) = best[mask].clone() else {
            continue;
        };
        for j in (0..n).filter(|j| mask & (1 << j) == 0) {
            let u = usable(mask as u32, j);
            if u.is_empty() {
                continue;
            }
            let (keys, extra) = match index_keys(chain, j, &u, catalog).into_iter().next() {
                Some(k) => (k, 1),
                None => (all(&u), 2),
            };
            let mut next = partial.clone();
            next.arrangements += extra;
            if extra == 2 {
                next.arranged_rows += rows_of(j);
            }
            next.steps.push(Step { input: j, keys });
            next.joined = joined_with(&partial.joined, mask as u32, j);
            offer(&mut best, mask | (1 << j), next);
        }
    }
    best[full].take()
}

/// The estimates of a chain's inputs among the chain's columns, or `None` if one has none.
/// Columns the chain's equalities make equal (transitively) are taken to range over the
/// smallest of their domains whichever order joins them: `c_nationkey = s_nationkey =
/// n_nationkey` over nation's keys, even where customer meets supplier before nation.
fn input_estimates(
    chain: &Chain,
    equalities: &[Equality],
    catalog: &dyn Catalog,
) -> Option<Vec<Estimate>> {
    let width = *chain.offsets.last().expect("nonempty");
    let mut estimates: Vec<Estimate> = (0..chain.inputs.len())
        .map(|i| Some(estimate(&chain.inputs[i], catalog)?.placed(chain.offsets[i], width)))
        .collect::<Option<_>>()?;
    // Classes of equal columns (union-find over the column equalities).
    let mut class: Vec<usize> = (0..width).collect();
    fn root(class: &mut [usize], c: usize) -> usize {
        let mut r = c;
        while class[r] != r {
            r = class[r];
        }
        class[c] = r;
        r
    }
    for e in equalities {
        let [(a, _), (b, _)] = &e.sides;
        if let (Some(a), Some(b)) = (estimate::key_column_of(a), estimate::key_column_of(b)) {
            let (ra, rb) = (root(&mut class, a), root(&mut class, b));
            class[ra] = rb;
        }
    }
    let mut bound = vec![f64::INFINITY; width];
    for c in 0..width {
        if let Some(b) = estimates[chain.input_of(c)].bound_of(c) {
            let r = root(&mut class, c);
            bound[r] = bound[r].min(b);
        }
    }
    for c in 0..width {
        let r = root(&mut class, c);
        estimates[chain.input_of(c)].cap(c, bound[r]);
    }
    Some(estimates)
}

/// A join tree over a chain's inputs, as the estimates see it.
enum Tree {
    Input(usize),
    Join(Box<Tree>, Box<Tree>),
}

impl Tree {
    /// The tree of a chain as written, its inputs numbered as `Chain::flatten` numbers them.
    fn of_plan(plan: &Plan, next: &mut usize) -> Tree {
        match plan {
            Plan::Join { left, right, .. } => {
                let left = Tree::of_plan(left, next);
                Tree::Join(Box::new(left), Box::new(Tree::of_plan(right, next)))
            }
            Plan::Filter { input, .. } if matches!(**input, Plan::Join { .. }) => {
                Tree::of_plan(input, next)
            }
            _ => {
                *next += 1;
                Tree::Input(*next - 1)
            }
        }
    }

    fn left_deep(steps: &[Step]) -> Tree {
        let mut tree = Tree::Input(steps[0].input);
        for step in &steps[1..] {
            tree = Tree::Join(Box::new(tree), Box::new(Tree::Input(step.input)));
        }
        tree
    }

    /// The estimated rows of every join's result but the top one's (the intermediate results
    /// a left-deep plan arranges), by the equalities between each join's two sides.
    fn intermediate_rows(&self, estimates: &[Estimate], equalities: &[Equality]) -> f64 {
        fn walk(
            tree: &Tree,
            estimates: &[Estimate],
            equalities: &[Equality],
            sum: &mut f64,
        ) -> (Estimate, u32) {
            match tree {
                Tree::Input(i) => (estimates[*i].clone(), 1 << i),
                Tree::Join(left, right) => {
                    let (l, lm) = walk(left, estimates, equalities, sum);
                    let (r, rm) = walk(right, estimates, equalities, sum);
                    let pairs: Vec<(&ScalarExpr, &ScalarExpr)> = equalities
                        .iter()
                        .filter_map(|e| e.between(lm, rm))
                        .collect();
                    let joined = estimate::join(&l, &r, &pairs);
                    *sum += joined.rows;
                    (joined, lm | rm)
                }
            }
        }
        let mut sum = 0.0;
        let (top, _) = walk(self, estimates, equalities, &mut sum);
        sum - top.rows
    }
}

/// The left-deep tree for `steps`, with the original column order restored on top.
fn build(chain: &Chain, equalities: &[Equality], steps: &[Step]) -> Plan {
    let n = chain.inputs.len();
    // Where each input's columns start in the new order.
    let mut new_offset = vec![0; n];
    let mut at = 0;
    for s in steps {
        new_offset[s.input] = at;
        at += chain.arity(s.input);
    }
    let to_new = |c: usize| {
        let i = chain.input_of(c);
        new_offset[i] + c - chain.offsets[i]
    };
    let mut placed = vec![false; chain.predicates.len()];
    let mut acc = chain.inputs[steps[0].input].clone();
    let mut joined: u32 = 1 << steps[0].input;
    for (k, step) in steps.iter().enumerate().skip(1) {
        let j = step.input;
        let (mut left_key, mut right_key) = (Vec::new(), Vec::new());
        for &e in &step.keys {
            let (l, r) = equalities[e]
                .keys(joined, j)
                .expect("a step's keys join it to the inputs before it");
            let (mut l, mut r) = (l.clone(), r.clone());
            l.map_columns(&to_new);
            r.map_columns(&|c| c - chain.offsets[j]);
            left_key.push(l);
            right_key.push(r);
            placed[equalities[e].predicate] = true;
        }
        joined |= 1 << j;
        let mut after = Vec::new();
        for (p, pred) in chain.predicates.iter().enumerate() {
            let ready = chain.inputs_read(pred) & !joined == 0;
            if !placed[p] && (ready || k == steps.len() - 1) {
                placed[p] = true;
                let mut pred = pred.clone();
                pred.map_columns(&to_new);
                after.push(pred);
            }
        }
        acc = crate::join::filter(
            Plan::Join {
                left: Box::new(acc),
                right: Box::new(chain.inputs[j].clone()),
                left_key,
                right_key,
            },
            after,
        );
    }
    let total = *chain.offsets.last().expect("nonempty");
    let outputs: Vec<usize> = (0..total).map(to_new).collect();
    if outputs.iter().enumerate().all(|(i, o)| i == *o) {
        acc
    } else {
        Plan::Project {
            input: Box::new(acc),
            outputs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::{ColumnType, RelationDesc, ScalarType};

    use crate::catalog::{CatalogItem, IndexItem, ItemKind};

    /// Tables 1..=4 with three int4 columns each; indexes by (id, key column).
    struct Cat(Vec<(u64, usize)>);

    impl Catalog for Cat {
        fn resolve(&self, name: &str) -> Option<CatalogItem> {
            let id: u64 = name.strip_prefix('r')?.parse().ok()?;
            let col = |n: &str| (n.to_string(), ColumnType::new(ScalarType::Int32, true));
            Some(CatalogItem {
                id,
                name: name.into(),
                kind: ItemKind::Table,
                desc: RelationDesc::new(vec![col("a"), col("b"), col("c")]),
            })
        }
        fn name_of(&self, id: u64) -> Option<String> {
            Some(format!("r{id}"))
        }
        fn indexes_on(&self, id: u64) -> Vec<IndexItem> {
            self.0
                .iter()
                .filter(|(on, _)| *on == id)
                .map(|(on, c)| IndexItem {
                    id: 100 + on * 10 + *c as u64,
                    name: format!("i{on}_{c}"),
                    on: *on,
                    key: vec![ScalarExpr::Column(*c)],
                })
                .collect()
        }
    }

    fn get(id: u64) -> Box<Plan> {
        Box::new(Plan::Get { id })
    }

    fn col(c: usize) -> ScalarExpr {
        ScalarExpr::Column(c)
    }

    #[test]
    fn cross_product_is_removed_and_indexes_used() {
        // (r2 x r3) join r1 on r1.b = r2.a and r1.c = r3.a, indexes on r2.a and r3.a.
        let plan = Plan::Join {
            left: Box::new(Plan::Join {
                left: get(2),
                right: get(3),
                left_key: vec![],
                right_key: vec![],
            }),
            right: get(1),
            left_key: vec![col(0), col(3)],
            right_key: vec![col(1), col(2)],
        };
        let cat = Cat(vec![(2, 0), (3, 0)]);
        assert_eq!(new_join_arrangements(&use_indexes(plan.clone(), &cat)), 4);
        let ordered = use_indexes(order_joins(plan, &cat), &cat);
        // r1 and one intermediate are arranged; r2 and r3 are imported.
        assert_eq!(new_join_arrangements(&ordered), 2, "{ordered}");
        assert_eq!(ordered.index_imports(), vec![120, 130]);
        let Plan::Project { outputs, .. } = &ordered else {
            panic!("the column order is restored: {ordered}")
        };
        assert_eq!(outputs.len(), 9);
    }

    #[test]
    fn key_subset_matches_an_index() {
        // r1 join r2 on r1.a = r2.a and r1.b = r2.b; r2 indexed on a alone.
        let plan = Plan::Join {
            left: get(1),
            right: get(2),
            left_key: vec![col(0), col(1)],
            right_key: vec![col(0), col(1)],
        };
        let cat = Cat(vec![(2, 0)]);
        let ordered = use_indexes(order_joins(plan, &cat), &cat);
        assert_eq!(new_join_arrangements(&ordered), 1, "{ordered}");
        let Plan::Filter { predicates, .. } = &ordered else {
            panic!("the other equality filters: {ordered}")
        };
        assert_eq!(predicates.len(), 1);
    }

    #[test]
    fn nothing_better_keeps_the_tree() {
        let plan = Plan::Join {
            left: get(1),
            right: get(2),
            left_key: vec![col(0)],
            right_key: vec![col(1)],
        };
        let cat = Cat(vec![(2, 0)]);
        assert_eq!(order_joins(plan.clone(), &cat), plan);
        // A failing key expression (division) is never moved.
        let div = col(0).call_binary(BinaryFunc::Div, col(1));
        let plan = Plan::Join {
            left: Box::new(Plan::Join {
                left: get(2),
                right: get(3),
                left_key: vec![],
                right_key: vec![],
            }),
            right: get(1),
            left_key: vec![div, col(3)],
            right_key: vec![col(1), col(2)],
        };
        let cat = Cat(vec![(2, 0), (3, 0)]);
        assert_eq!(order_joins(plan.clone(), &cat), plan);
    }
}
