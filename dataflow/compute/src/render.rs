//! Rendering: turns a `Plan` into engine collections inside one dataflow.
//!
//! Every plan node renders to a pair of collections, `oks` (rows) and `errs` (evaluation errors),
//! as in Materialize: bad data becomes an error a reader sees, never a panic in a worker. Errors
//! flow through joins and reductions untouched, so a view holds an error exactly as long as the
//! input that caused it. `Get` imports the arrangement of an existing table or view as of the
//! dataflow's `as_of`, so a new dataflow replays compacted history instead of recomputing it.
//! A one-shot read (an ad hoc SELECT: read once at its time, then dropped) renders its joins,
//! reductions, DISTINCT and set operations through the engine's snapshot operators — hash
//! tables built once the inputs are complete at that time — instead of arrangements it would
//! never read again (`Renderer::read_once_at`); a join reading an index keyed by the join key,
//! or two `Let` values, still goes through arrangements (`hashed_in_one_shot`).

mod accumulate;
mod classes;
mod flat_map;
mod join;
mod mfp;
mod recursive;
mod temporal;
mod top_k;
mod window;

use std::collections::HashMap;

use kpg_engine::Collection;
use kpg_types::{
    expr_list, AggregateExpr, Datum, EvalError, GlobalId, MapFilterProject, Plan, Row, RowExprs,
    ScalarExpr,
};
use timely::dataflow::Scope;
use timely::progress::Antichain;

use crate::introspection::{ArrangementProbe, HeapSize};
use crate::trace_catalog::{self, import_errs, ImportedRows, TraceCatalog};
use crate::typedefs::{empty_errs, source_rows, Errs, KeyedArrangement, Oks};

/// What a reduction's logic outputs for one group: its row (or the error computing it).
type GroupOutputs = Vec<(Result<Row, EvalError>, i64)>;

/// The collections a plan node produces.
#[derive(Clone)]
pub struct Rendered<'s> {
    pub oks: Oks<'s>,
    pub errs: Errs<'s>,
}

/// Renders plans within one dataflow scope, importing the traces it reads once each.
pub struct Renderer<'a, 's> {
    scope: Scope<'s, u64>,
    as_of: u64,
    traces: &'a mut TraceCatalog,
    /// Collections imported so far, still arranged, and whether their rows end with positions.
    imported: HashMap<GlobalId, (ImportedRows<'s>, Errs<'s>, bool)>,
    /// Indexes imported so far: a dataflow reading one index twice (a self-join) imports it once.
    imported_indexes: HashMap<GlobalId, (KeyedArrangement<'s>, Errs<'s>)>,
    /// The arrangements this dataflow builds for itself (for introspection).
    pub arrangements: Vec<ArrangementProbe>,
    /// The values of the `Let`s being rendered, by local id.
    locals: HashMap<u64, Rendered<'s>>,
    /// Arrangements of `Let` values by a join key: every join that reads one value by one key
    /// shares a single arrangement, as joins share an imported index.
    local_arrangements: HashMap<(u64, Vec<ScalarExpr>), (KeyedArrangement<'s>, Errs<'s>)>,
    /// The one time a one-shot read reads the result at, if this dataflow is one: its joins
    /// need no arrangements (`snapshot_join`).
    pub(crate) read_once_at: Option<u64>,
}

/// A render failure: the plan names a collection this worker does not have. The coordinator
/// checks dependencies before it sends a dataflow, so this means a broken invariant.
#[derive(Debug)]
pub struct MissingCollection(pub GlobalId);

impl<'a, 's> Renderer<'a, 's> {
    pub fn new(scope: Scope<'s, u64>, as_of: u64, traces: &'a mut TraceCatalog) -> Self {
        Renderer {
            scope,
            as_of,
            traces,
            imported: HashMap::new(),
            imported_indexes: HashMap::new(),
            arrangements: Vec::new(),
            locals: HashMap::new(),
            local_arrangements: HashMap::new(),
            read_once_at: None,
        }
    }

    /// Renders a dataflow whose result is read at `time` only and then dropped (a peek): its
    /// joins compute their result at `time` through hash tables instead of arranging their
    /// inputs, except where an input is already arranged by the join key.
    pub fn read_once_at(mut self, time: u64) -> Self {
        self.read_once_at = Some(time);
        self
    }

    pub fn render(&mut self, plan: &Plan) -> Result<Rendered<'s>, MissingCollection> {
        Ok(match plan {
            Plan::Get { id } => self.read(*id, false, MapFilterProject::new())?,
            Plan::GetWithPosition { id } => self.read(*id, true, MapFilterProject::new())?,
            Plan::IndexedGet { index, .. } => {
                let (arranged, errs) = self.import_index(*index)?;
                Rendered {
                    oks: arranged.as_collection(|_key: &Row, row: &Row| row.clone()),
                    errs,
                }
            }
            Plan::Constant { rows } => Rendered {
                oks: source_rows(self.scope, self.as_of, rows.clone()),
                errs: empty_errs(self.scope),
            },
            // A chain of them renders as one operator (`render/mfp.rs`).
            Plan::Map { .. } | Plan::Filter { .. } | Plan::Project { .. } => {
                let (input, mfp) = mfp::peel(plan).expect("a map, filter or project node");
                match input {
                    // Read from the imported arrangement in place.
                    Plan::Get { id } => return self.read(*id, false, mfp),
                    Plan::GetWithPosition { id } => return self.read(*id, true, mfp),
                    // Evaluated over each matching pair in place (`render/join.rs`).
                    Plan::Join {
                        left,
                        right,
                        left_key,
                        right_key,
                    } => return self.join(left, right, left_key, right_key, mfp),
                    _ => {}
                }
                let input = self.render(input)?;
                let (oks, errs) = mfp::render_mfp(input.oks, mfp);
                Rendered {
                    oks,
                    errs: input.errs.concat(errs),
                }
            }
            Plan::TemporalFilter {
                input,
                lower,
                upper,
            } => {
                let input = self.render(input)?;
                temporal::render_temporal_filter(input, lower.clone(), upper.clone())
            }
            Plan::Join {
                left,
                right,
                left_key,
                right_key,
            } => self.join(left, right, left_key, right_key, MapFilterProject::new())?,
            Plan::Reduce {
                input,
                group_key,
                aggregates,
            } => {
                let input = self.render(input)?;
                render_reduce(input, group_key.clone(), aggregates.clone(), self)
            }
            Plan::Distinct { input } => {
                let input = self.render(input)?;
                // Dataflow times are totally ordered here: no output arrangement needed.
                let oks = match self.read_once_at {
                    Some(time) => {
                        classes::threshold_once(input.oks, time, |m| (m.count() > 0).into())
                    }
                    None => {
                        let (oks, trace) = classes::distinct_total(input.oks);
                        self.register("distinct input", "(all columns)".into(), &trace);
                        oks
                    }
                };
                Rendered {
                    oks,
                    errs: input.errs,
                }
            }
            Plan::Union { inputs } => {
                let mut rendered = inputs
                    .iter()
                    .map(|i| self.render(i))
                    .collect::<Result<Vec<_>, _>>()?
                    .into_iter();
                let first = rendered.next().expect("union of at least one input");
                rendered.fold(first, |acc, r| Rendered {
                    oks: acc.oks.concat(r.oks),
                    errs: acc.errs.concat(r.errs),
                })
            }
            Plan::Negate { input } => {
                let input = self.render(input)?;
                Rendered {
                    oks: input.oks.negate(),
                    errs: input.errs,
                }
            }
            Plan::Threshold { input } => {
                let input = self.render(input)?;
                let oks = match self.read_once_at {
                    Some(time) => classes::threshold_once(input.oks, time, |m| m.count().max(0)),
                    None => {
                        let (oks, trace) =
                            classes::threshold_total(input.oks, |m| m.count().max(0));
                        self.register("threshold input", "(all columns)".into(), &trace);
                        oks
                    }
                };
                Rendered {
                    oks,
                    errs: input.errs,
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
                debug_assert!(counts.is_none(), "a TopK's counts are bound before it runs");
                let input = self.render(input)?;
                Rendered {
                    oks: top_k::render_top_k(
                        input.oks,
                        group_key.clone(),
                        order_by.clone(),
                        *limit,
                        *offset,
                        self,
                    ),
                    errs: input.errs,
                }
            }
            Plan::FlatMap {
                input,
                func,
                exprs,
                ordinality,
            } => {
                let input = self.render(input)?;
                flat_map::render_flat_map(input, *func, exprs.clone(), *ordinality)
            }
            Plan::Window {
                input,
                partition_by,
                order_by,
                funcs,
            } => {
                let input = self.render(input)?;
                window::render_window(
                    input,
                    partition_by.clone(),
                    order_by.clone(),
                    funcs.clone(),
                    self,
                )
            }
            Plan::Recursive {
                id,
                base,
                step,
                distinct,
            } => recursive::render_recursive(self, *id, base, step, *distinct)?,
            // Read only inside its `Recursive` node's step, which `recursive.rs` renders.
            Plan::RecursiveGet { id } => return Err(MissingCollection(*id)),
            // A shared subplan: rendered once, its collections read by every `LocalGet`.
            Plan::Let { id, value, body } => {
                let value = self.render(value)?;
                self.locals.insert(*id, value);
                let body = self.render(body);
                self.locals.remove(id);
                self.local_arrangements.retain(|(local, _), _| local != id);
                body?
            }
            Plan::LocalGet { id } => self.locals.get(id).cloned().ok_or(MissingCollection(*id))?,
        })
    }

    /// `left` and `right` joined on their keys, through `mfp` (`render/join.rs`).
    fn join(
        &mut self,
        left: &Plan,
        right: &Plan,
        left_key: &[ScalarExpr],
        right_key: &[ScalarExpr],
        mfp: MapFilterProject,
    ) -> Result<Rendered<'s>, MissingCollection> {
        if let Some(time) = self.read_once_at {
            if hashed_in_one_shot(left, left_key, right, right_key) {
                let left = self.render(left)?;
                let right = self.render(right)?;
                let (l_keyed, l_key_errs) = keyed(left.oks, left_key.to_vec());
                let (r_keyed, r_key_errs) = keyed(right.oks, right_key.to_vec());
                let (oks, mfp_errs) = join::render_snapshot_join(l_keyed, r_keyed, time, mfp);
                let errs = (left.errs.concat(l_key_errs)).concat(right.errs.concat(r_key_errs));
                return Ok(Rendered {
                    oks,
                    errs: match mfp_errs {
                        Some(e) => errs.concat(e),
                        None => errs,
                    },
                });
            }
        }
        let (l_arr, l_errs) = self.arranged(left, left_key)?;
        let (r_arr, r_errs) = self.arranged(right, right_key)?;
        let (oks, mfp_errs) = join::render_join(&l_arr, &r_arr, mfp);
        let errs = l_errs.concat(r_errs);
        Ok(Rendered {
            oks,
            errs: match mfp_errs {
                Some(e) => errs.concat(e),
                None => errs,
            },
        })
    }

    /// The plan's rows arranged by `key`: an existing index when the plan reads one with exactly
    /// this key, the arrangement an earlier join made when the plan reads the same `Let` value
    /// by the same key, otherwise a new arrangement.
    fn arranged(
        &mut self,
        plan: &Plan,
        key: &[ScalarExpr],
    ) -> Result<(KeyedArrangement<'s>, Errs<'s>), MissingCollection> {
        if let Some(index) = plan.reads_index_keyed_by(key) {
            return self.import_index(index);
        }
        let shared = match plan {
            Plan::LocalGet { id } => Some((*id, key.to_vec())),
            _ => None,
        };
        if let Some(found) = shared.as_ref().and_then(|k| self.local_arrangements.get(k)) {
            return Ok(found.clone());
        }
        let rendered = self.render(plan)?;
        let (keyed_rows, key_errs) = keyed(rendered.oks, key.to_vec());
        let arranged = keyed_rows.arrange_by_key();
        self.register("join input", expr_list(key), &arranged.trace);
        let result = (arranged, rendered.errs.concat(key_errs));
        if let Some(k) = shared {
            self.local_arrangements.insert(k, result.clone());
        }
        Ok(result)
    }

    /// Remembers an arrangement this dataflow built, numbered in render order (the same on
    /// every worker, so the workers' shards line up).
    fn register<V: kpg_engine::Data + HeapSize, R: kpg_engine::Semigroup>(
        &mut self,
        what: &str,
        key: String,
        trace: &kpg_engine::TraceAgent<Row, V, u64, R>,
    ) {
        let name = format!("{} {what}", self.arrangements.len() + 1);
        self.arrangements
            .push(ArrangementProbe::new(name, key, trace.liveness()));
    }

    fn import_index(
        &mut self,
        index: GlobalId,
    ) -> Result<(KeyedArrangement<'s>, Errs<'s>), MissingCollection> {
        if let Some((arranged, errs)) = self.imported_indexes.get(&index) {
            return Ok((arranged.clone(), errs.clone()));
        }
        let traces = self
            .traces
            .indexes
            .get_mut(&index)
            .ok_or(MissingCollection(index))?;
        let frontier = Antichain::from_elem(self.as_of);
        let arranged = traces.oks.import_frontier(self.scope, frontier.borrow());
        let errs = import_errs(&mut traces.errs, self.scope, self.as_of);
        self.imported_indexes
            .insert(index, (arranged.clone(), errs.clone()));
        Ok((arranged, errs))
    }

    /// The rows of collection `id` through `mfp`, read from its imported arrangement (imported
    /// once per dataflow); a table's rows keep their positions only if `with_positions`.
    fn read(
        &mut self,
        id: GlobalId,
        with_positions: bool,
        mfp: MapFilterProject,
    ) -> Result<Rendered<'s>, MissingCollection> {
        if !self.imported.contains_key(&id) {
            let traces = self
                .traces
                .collections
                .get_mut(&id)
                .ok_or(MissingCollection(id))?;
            let (rows, errs) = traces.import(self.scope, self.as_of);
            self.imported.insert(id, (rows, errs, traces.positions));
        }
        let (imported, errs, positions) = &self.imported[&id];
        let (oks, mfp_errs) = trace_catalog::rows(imported, *positions, with_positions, mfp);
        Ok(Rendered {
            oks,
            errs: errs.clone().concat(mfp_errs),
        })
    }
}

/// Whether a join of a one-shot read goes through hash tables (`snapshot_join`) rather than
/// arrangements: unless an input is an index keyed by the join key (read in place; hashing it
/// would copy all of it) or both are `Let` values (each arranged once by a key for every join
/// that reads it by that key). A `Let` value joined with any other input is hashed with it:
/// sharing the value's arrangement would mean arranging the other input for this join alone,
/// and that input is often the large one (the line items TPC-H Q7 joins with a 25-row nation
/// table twice). Measured over the 22 queries ad hoc in `BENCHMARKS.md` (twenty-eighth
/// session): Q7, Q11 and Q21 about half the time, Q2 a fifth slower.
fn hashed_in_one_shot(
    left: &Plan,
    left_key: &[ScalarExpr],
    right: &Plan,
    right_key: &[ScalarExpr],
) -> bool {
    let indexed = |plan: &Plan, key: &[ScalarExpr]| plan.reads_index_keyed_by(key).is_some();
    let local = |plan: &Plan| matches!(plan, Plan::LocalGet { .. });
    !(indexed(left, left_key) || indexed(right, right_key) || (local(left) && local(right)))
}

/// Evaluates key expressions for each row: `(key, row)` pairs, and errors from evaluating them.
/// Rows with a NULL in the key never match in an equi-join, so they are dropped here.
fn keyed<'s>(oks: Oks<'s>, key: Vec<ScalarExpr>) -> (Collection<'s, u64, (Row, Row)>, Errs<'s>) {
    keyed_rows(oks, key, true)
}

/// Evaluates key expressions for each row: `(key, row)` pairs, and errors from evaluating them;
/// rows whose key holds a NULL are dropped if `drop_null_keys` (an index keeps them). Keys are
/// canonical (`Datum::canonical`), so SQL-equal keys meet. Generic over the time, for joins
/// inside an iteration too (`render/recursive.rs`).
#[allow(clippy::type_complexity)]
pub fn keyed_rows<'s, T: timely::progress::Timestamp + kpg_engine::Lattice>(
    oks: Collection<'s, T, Row, i64>,
    key: Vec<ScalarExpr>,
    drop_null_keys: bool,
) -> (
    Collection<'s, T, (Row, Row), i64>,
    Collection<'s, T, EvalError, i64>,
) {
    let mut exprs = RowExprs::new(key, drop_null_keys, true);
    mfp::fallible_flat_map(oks, move |row: Row| match exprs.eval(&row) {
        Ok(Some(key)) => Some(Ok((key, row))),
        Ok(None) => None,
        Err(e) => Some(Err(e)),
    })
}

/// Group by the key expressions; each group's output row is the key followed by the aggregates,
/// maintained by the engine's reduce: from one accumulated difference per group when every
/// aggregate is accumulable (`accumulate.rs`), otherwise from all of the group's values.
fn render_reduce<'s>(
    input: Rendered<'s>,
    group_key: Vec<ScalarExpr>,
    aggregates: Vec<AggregateExpr>,
    renderer: &mut Renderer<'_, 's>,
) -> Rendered<'s> {
    let key_text = expr_list(&group_key);
    let agg_inputs: Vec<ScalarExpr> = aggregates.iter().map(|a| a.expr.clone()).collect();
    // Each reads only the columns it needs; a plain column is copied as bytes.
    let mut keys = RowExprs::new(group_key, false, false);
    let mut args = RowExprs::new(agg_inputs, false, false);
    let (results, eval_errs) = if AggregateExpr::all_accumulable(&aggregates) {
        accumulate::render_accumulable(input.oks, keys, args, aggregates, key_text, renderer)
    } else {
        let (pairs, eval_errs) = mfp::fallible_flat_map(input.oks, move |row: Row| {
            let pair = keys.eval(&row).and_then(|k| Ok((k, args.eval(&row)?)));
            match pair {
                Ok((Some(k), Some(a))) => Some(Ok((k, a))),
                // Only lists that drop NULLs end a row early.
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            }
        });
        (
            reduce_values(pairs, aggregates, key_text, renderer),
            eval_errs,
        )
    };
    let oks = results.clone().flat_map(|r| r.ok());
    let agg_errs = results.flat_map(|r| r.err());
    Rendered {
        oks,
        errs: input.errs.concat(eval_errs).concat(agg_errs),
    }
}

/// Groups `(key, aggregate arguments)` pairs by key and computes each group's aggregates from
/// all of its values, whenever any changes (min, max, DISTINCT and floating-point sums).
/// Groups are SQL-equal classes of keys (`classes.rs`): a value whose key is not canonical
/// carries its key after the arguments, so the group can show one of its own keys.
fn reduce_values<'s>(
    pairs: Collection<'s, u64, (Row, Row), i64>,
    aggregates: Vec<AggregateExpr>,
    key_text: String,
    renderer: &mut Renderer<'_, 's>,
) -> Collection<'s, u64, Result<Row, EvalError>, i64> {
    let aggs = aggregates;
    let arity = aggs.len();
    let pairs = pairs.map(|(key, args): (Row, Row)| match key.canonical() {
        None => (key, args),
        Some(canonical) => (canonical, args.concat(&key)),
    });
    let logic = reduce_group(aggs, arity);
    if let Some(time) = renderer.read_once_at {
        return pairs
            .snapshot_reduce("Reduce", time, logic)
            .map(|(_key, val)| val);
    }
    let arranged = pairs.arrange_by_key();
    renderer.register("reduce input", key_text.clone(), &arranged.trace);
    let reduced = arranged.reduce_abelian("Reduce", logic);
    renderer.register("reduce output", key_text, &reduced.trace);
    reduced.as_collection(|_key: &Row, val: &Result<Row, EvalError>| val.clone())
}

/// A group's output row from all of its values: one of the group's own keys (the canonical
/// key, or the smallest original key carried after the arguments), then each aggregate's value.
fn reduce_group(
    aggs: Vec<AggregateExpr>,
    arity: usize,
) -> impl FnMut(&Row, &[(&Row, i64)], &mut GroupOutputs) + 'static {
    move |key, vals, output| {
        let present = || vals.iter().filter(|(_, n)| *n > 0).map(|(r, _)| *r);
        let shown = if present().any(|r| r.len() == arity) {
            key.clone()
        } else {
            match present().map(|r| r.datums()[arity..].to_vec()).min() {
                Some(own) => Row::new(own),
                None => return,
            }
        };
        let mut out = shown.into_datums();
        out.reserve(aggs.len());
        for (i, agg) in aggs.iter().enumerate() {
            let column: Vec<(Datum, i64)> = vals
                .iter()
                .map(|(row, n)| (row.get(i).to_datum(), *n))
                .collect();
            match agg
                .func
                .eval(column.iter().map(|(d, n)| (d, *n)), agg.distinct)
            {
                Ok(d) => out.push(d),
                Err(e) => {
                    output.push((Err(e), 1));
                    return;
                }
            }
        }
        output.push((Ok(Row::new(out)), 1));
    }
}
