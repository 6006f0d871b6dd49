//! Property tests: random update streams at random times — totally ordered `u64` and partially
//! ordered `Product<u64, u64>` — fed with random batch boundaries and random (antichain)
//! frontiers; the accumulated output of each operator at every time of a grid that contains the
//! join closure of the input times must equal a naive recomputation from the accumulated input.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use kpg_engine::{Collection, Data, Lattice};
use proptest::prelude::*;
use std::time::Instant;
use timely::communication::allocator::thread::Thread;
use timely::communication::Allocator;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::generic::operator::source;
use timely::dataflow::operators::CapabilitySet;
use timely::dataflow::Scope;
use timely::order::Product;
use timely::progress::frontier::Antichain;
use timely::progress::Timestamp;
use timely::worker::{Config as WorkerConfig, Worker};
use timely::PartialOrder;

type P = Product<u64, u64>;
/// `(side, key, val)`: side 0 and 1 are the two inputs of binary operators.
type Rec = (u8, u64, u64);

/// One step of the source: updates to send, then the frontier to downgrade to.
type Step<T> = (Vec<(Rec, T, i64)>, Antichain<T>);

/// Splits `updates` into steps along a random linear extension of the times (`order` keys), so
/// the source's frontier is the antichain of least times still to come after each step.
fn schedule<T: Timestamp + Lattice>(
    mut updates: Vec<(Rec, T, i64, u8)>,
    cuts: &[usize],
) -> Vec<Step<T>> {
    // A random linear extension of the times: repeatedly take, among the updates whose time has
    // no strictly smaller time left, the one with the least random byte.
    let mut ordered = Vec::with_capacity(updates.len());
    while !updates.is_empty() {
        let pick = (0..updates.len())
            .filter(|&i| {
                !updates
                    .iter()
                    .any(|u| u.1.less_equal(&updates[i].1) && u.1 != updates[i].1)
            })
            .min_by_key(|&i| updates[i].3)
            .expect("a finite partial order has a minimal element");
        ordered.push(updates.swap_remove(pick));
    }
    let updates = ordered;
    let mut steps = Vec::new();
    let mut rest: Vec<(Rec, T, i64)> = updates.into_iter().map(|(d, t, r, _)| (d, t, r)).collect();
    for &cut in cuts {
        if rest.is_empty() {
            break;
        }
        let take = cut.min(rest.len());
        let now: Vec<_> = rest.drain(..take).collect();
        let mut frontier = Antichain::new();
        for (_, t, _) in rest.iter() {
            frontier.insert_ref(t);
        }
        steps.push((now, frontier));
    }
    steps.push((rest, Antichain::new()));
    steps
}

/// Times the tests run at, with how to build a scope of them in a worker.
trait TestTime: Timestamp + Lattice {
    fn in_scope(worker: &mut Worker, build: impl for<'s> FnOnce(Scope<'s, Self>));
}

impl TestTime for u64 {
    fn in_scope(worker: &mut Worker, build: impl for<'s> FnOnce(Scope<'s, Self>)) {
        worker.dataflow::<u64, _, _>(build);
    }
}

/// Product times only exist inside an iterative scope; the source lives there.
impl TestTime for P {
    fn in_scope(worker: &mut Worker, build: impl for<'s> FnOnce(Scope<'s, Self>)) {
        worker.dataflow::<u64, _, _>(|outer| outer.iterative::<u64, _, _>(build));
    }
}

/// Runs `build` on the scheduled input in one worker; returns every output update.
fn run<T, O, F>(steps: Vec<Step<T>>, build: F) -> Vec<(O, T, i64)>
where
    T: TestTime,
    O: Data,
    F: for<'s> FnOnce(Collection<'s, T, Rec>) -> Collection<'s, T, O>,
{
    let output = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&output);
    let alloc = Allocator::Thread(Thread::default());
    let mut worker = Worker::new(WorkerConfig::default(), alloc, Some(Instant::now()));
    T::in_scope(&mut worker, move |scope| {
        let stream = source::<_, CapacityContainerBuilder<Vec<(Rec, T, i64)>>, _, _>(
            scope,
            "RandomSource",
            move |capability, info| {
                let activator = scope.activator_for(Rc::clone(&info.address));
                let mut caps = CapabilitySet::from_elem(capability);
                let mut steps = steps.into_iter();
                move |output| match steps.next() {
                    Some((updates, frontier)) => {
                        for update in updates {
                            let cap = caps.delayed(&update.1);
                            output.session(&cap).give(update);
                        }
                        caps.downgrade(frontier.iter());
                        activator.activate();
                    }
                    None => caps = CapabilitySet::new(),
                }
            },
        );
        build(Collection::new(stream)).inspect(move |u| sink.borrow_mut().push(u.clone()));
    });
    while worker.has_dataflows() {
        worker.step_or_park(None);
    }
    let result = output.borrow().clone();
    result
}

fn accumulate<D: Ord + Clone, T: PartialOrder>(
    updates: &[(D, T, i64)],
    at: &T,
) -> BTreeMap<D, i64> {
    let mut acc = BTreeMap::new();
    for (d, t, r) in updates {
        if t.less_equal(at) {
            *acc.entry(d.clone()).or_insert(0) += r;
        }
    }
    acc.retain(|_, r| *r != 0);
    acc
}

/// The naive results of every operator under test, from the accumulated input at one time.
fn reference(input: &BTreeMap<Rec, i64>, op: &str) -> BTreeMap<(u64, u64, i64), i64> {
    let mut out = BTreeMap::new();
    let side = |s: u8| input.iter().filter(move |((x, _, _), _)| *x == s);
    match op {
        "arrange" => {
            for ((_, k, v), r) in side(0) {
                out.insert((*k, *v, 0), *r);
            }
        }
        "join" => {
            for ((_, k1, v1), r1) in side(0) {
                for ((_, k2, v2), r2) in side(1) {
                    if k1 == k2 {
                        *out.entry((*k1, *v1, *v2 as i64)).or_insert(0) += r1 * r2;
                    }
                }
            }
        }
        "reduce" => {
            let mut per_key: BTreeMap<u64, Vec<(u64, i64)>> = BTreeMap::new();
            for ((_, k, v), r) in side(0) {
                per_key.entry(*k).or_default().push((*v, *r));
            }
            for (k, vals) in per_key {
                let max = vals.iter().filter(|(_, r)| *r > 0).map(|(v, _)| *v).max();
                let sum: i64 = vals.iter().map(|(v, r)| *v as i64 * r).sum();
                out.insert((k, max.unwrap_or(u64::MAX), sum), 1);
            }
        }
        "flat_map" => {
            for ((_, k, v), r) in side(0) {
                *out.entry((*k, *v, 0)).or_insert(0) += r;
                if v % 2 == 1 {
                    *out.entry((k + 10, *v, 1)).or_insert(0) += r;
                }
            }
        }
        "concat_negate" | "consolidate" => {
            for ((s, k, v), r) in input.iter() {
                let sign = match (op, s) {
                    (_, 0) => 1,
                    ("concat_negate", _) => -1,
                    _ => 0,
                };
                *out.entry((*k, *v, 0)).or_insert(0) += sign * r;
            }
        }
        "count" | "distinct" | "threshold" => {
            let mut counts: BTreeMap<u64, i64> = BTreeMap::new();
            for ((_, k, _), r) in side(0) {
                *counts.entry(*k).or_insert(0) += r;
            }
            for (k, c) in counts {
                match op {
                    "count" if c != 0 => *out.entry((k, 0, c)).or_insert(0) += 1,
                    "distinct" if c > 0 => *out.entry((k, 0, 0)).or_insert(0) += 1,
                    "threshold" if c % 3 != 0 => *out.entry((k, 0, 0)).or_insert(0) += c % 3,
                    _ => {}
                }
            }
        }
        _ => unreachable!("unknown operator {op}"),
    }
    out.retain(|_, r| *r != 0);
    out
}

fn build<'s, T: Timestamp + Lattice>(
    input: Collection<'s, T, Rec>,
    op: &str,
) -> Collection<'s, T, (u64, u64, i64)> {
    let side = |s: u8| {
        input
            .clone()
            .filter(move |(x, _, _)| *x == s)
            .map(|(_, k, v)| (k, v))
    };
    match op {
        "arrange" => side(0).arrange_by_key().as_collection(|k, v| (*k, *v, 0)),
        "join" => side(0)
            .arrange_by_key()
            .join_core(&side(1).arrange_by_key(), |k, v1, v2| {
                Some((*k, *v1, *v2 as i64))
            }),
        "reduce" => side(0)
            .arrange_by_key()
            .reduce_abelian("MaxSum", |_k, vals, out: &mut Vec<((u64, i64), i64)>| {
                let max = vals.iter().filter(|(_, r)| *r > 0).map(|(v, _)| **v).max();
                let sum = vals.iter().map(|(v, r)| **v as i64 * r).sum();
                out.push(((max.unwrap_or(u64::MAX), sum), 1));
            })
            .as_collection(|k, (m, s)| (*k, *m, *s)),
        "flat_map" => side(0).flat_map(|(k, v)| {
            let odd = (v % 2 == 1).then_some((k + 10, v, 1));
            std::iter::once((k, v, 0)).chain(odd)
        }),
        "concat_negate" => side(0).concat(side(1).negate()).map(|(k, v)| (k, v, 0)),
        "consolidate" => side(0).map(|(k, v)| (k, v, 0)).consolidate(),
        "count" => side(0).map(|(k, _)| k).count().map(|(k, c)| (k, 0, c)),
        "distinct" => side(0).map(|(k, _)| k).distinct().map(|k| (k, 0, 0)),
        "threshold" => side(0)
            .map(|(k, _)| k)
            .threshold(|_k, c| c % 3)
            .map(|k| (k, 0, 0)),
        _ => unreachable!("unknown operator {op}"),
    }
}

const OPS: [&str; 9] = [
    "flat_map",
    "concat_negate",
    "consolidate",
    "arrange",
    "join",
    "reduce",
    "count",
    "distinct",
    "threshold",
];

/// The specializations for totally ordered times, checked against the same references as the
/// general operators they replace.
const TOTAL_OPS: [&str; 3] = ["count_total", "distinct_total", "threshold_total"];

/// Builds `op`, including the total-order specializations (only for `u64` times).
fn build_total<'s>(
    input: Collection<'s, u64, Rec>,
    op: &str,
) -> Collection<'s, u64, (u64, u64, i64)> {
    let keys = || input.clone().filter(|(x, _, _)| *x == 0).map(|(_, k, _)| k);
    match op {
        "count_total" => keys().count_total().map(|(k, c)| (k, 0, c)),
        "distinct_total" => keys().distinct_total().map(|k| (k, 0, 0)),
        "threshold_total" => keys().threshold_total(|_k, c| c % 3).map(|k| (k, 0, 0)),
        _ => build(input, op),
    }
}

fn check<T: TestTime>(
    updates: Vec<(Rec, T, i64, u8)>,
    cuts: &[usize],
    grid: &[T],
    ops: &[&str],
    build: impl for<'s> Fn(Collection<'s, T, Rec>, &str) -> Collection<'s, T, (u64, u64, i64)>,
) {
    let input: Vec<(Rec, T, i64)> = updates
        .iter()
        .map(|(d, t, r, _)| (*d, t.clone(), *r))
        .collect();
    for op in ops {
        let got = run(schedule(updates.clone(), cuts), |c| build(c, op));
        for t in grid {
            let want = reference(&accumulate(&input, t), op.trim_end_matches("_total"));
            assert_eq!(accumulate(&got, t), want, "{op} differs at {t:?}");
        }
    }
}

fn rec() -> impl Strategy<Value = Rec> {
    (0u8..2, 0u64..4, 0u64..4)
}

fn diff() -> impl Strategy<Value = i64> {
    prop_oneof![Just(1i64), Just(-1), Just(2)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn operators_on_total_order(
        updates in prop::collection::vec((rec(), 0u64..8, diff(), any::<u8>()), 0..40),
        cuts in prop::collection::vec(1usize..12, 0..8),
    ) {
        let grid: Vec<u64> = (0..9).collect();
        let ops: Vec<&str> = OPS.iter().chain(TOTAL_OPS.iter()).copied().collect();
        check(updates, &cuts, &grid, &ops, build_total);
    }

    #[test]
    fn operators_on_product_order(
        updates in prop::collection::vec((rec(), (0u64..4, 0u64..4), diff(), any::<u8>()), 0..40),
        cuts in prop::collection::vec(1usize..12, 0..8),
    ) {
        let updates: Vec<(Rec, P, i64, u8)> = updates
            .into_iter()
            .map(|(d, (a, b), r, o)| (d, Product::new(a, b), r, o))
            .collect();
        let grid: Vec<P> = (0..5).flat_map(|a| (0..5).map(move |b| Product::new(a, b))).collect();
        check(updates, &cuts, &grid, &OPS, build);
    }
}

/// A case the product-order property test found in CI (2026-11-22): count and reduce gave wrong
/// output at (2, 3). Compaction to the frontier {(2, 2)} had advanced input at (0, 3) to (2, 3),
/// so the key's history and the new input at (2, 2) formed a chain, and reduce's chain fast path
/// evaluated only the new time, not the history time above it whose accumulation had changed.
#[test]
fn product_order_case_found_2026_11_22() {
    let raw: Vec<(Rec, (u64, u64), i64, u8)> = vec![
        ((0, 2, 0), (0, 0), 1, 0),
        ((1, 0, 0), (0, 0), 1, 0),
        ((0, 1, 0), (2, 2), 1, 0),
        ((0, 0, 0), (0, 0), 1, 71),
        ((1, 0, 2), (2, 2), 1, 238),
        ((0, 3, 1), (1, 1), 1, 58),
        ((1, 3, 0), (0, 3), 2, 222),
        ((1, 0, 2), (1, 2), 1, 89),
        ((1, 1, 0), (3, 1), 1, 85),
        ((1, 3, 2), (1, 0), 1, 108),
        ((0, 1, 2), (0, 3), 1, 121),
        ((0, 3, 1), (2, 0), -1, 9),
        ((0, 3, 2), (3, 3), 2, 238),
        ((1, 2, 0), (0, 3), 1, 108),
        ((0, 0, 0), (3, 0), 1, 13),
        ((0, 1, 3), (0, 2), 2, 100),
        ((1, 0, 2), (1, 2), 2, 68),
        ((1, 0, 3), (2, 0), -1, 250),
        ((1, 2, 0), (1, 3), 1, 213),
    ];
    let updates: Vec<(Rec, P, i64, u8)> = raw
        .into_iter()
        .map(|(d, (a, b), r, o)| (d, Product::new(a, b), r, o))
        .collect();
    let grid: Vec<P> = (0..5)
        .flat_map(|a| (0..5).map(move |b| Product::new(a, b)))
        .collect();
    check(updates, &[9, 4, 4, 9, 6, 10], &grid, &OPS, build);
}
