//! Iteration against naive references and against differential-dataflow: reachability and
//! connected components on random graphs whose edges are inserted and deleted over time, with
//! the edges entering the loop as a collection or as an arrangement (no copy), and mutual
//! recursion through two `Variable`s.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use differential_dataflow::operators::iterate::Iterate as DdIterate;
use kpg_engine::{Collection, Variable};
use timely::order::Product;

const ROUNDS: u64 = 12;
const NODES: u64 = 8;

fn graph_inputs(seed: u64) -> (Updates, Updates) {
    let mut rng = Rng::new(900 + seed);
    let edges = random_updates(&mut rng, ROUNDS, 8, NODES, NODES);
    let roots = random_updates(&mut rng, ROUNDS, 2, NODES, 1);
    (edges, roots)
}

fn present(updates: &Updates, time: u64) -> Vec<(u64, u64)> {
    accumulate(&as_triples(updates), time)
        .into_iter()
        .filter(|(_, r)| *r > 0)
        .map(|(kv, _)| kv)
        .collect()
}

fn reach_reference(edges: &[(u64, u64)], roots: &[(u64, u64)]) -> BTreeSet<u64> {
    let mut reach: BTreeSet<u64> = roots.iter().map(|(r, _)| *r).collect();
    loop {
        let next: BTreeSet<u64> = edges
            .iter()
            .filter(|(a, _)| reach.contains(a))
            .map(|(_, b)| *b)
            .collect();
        let before = reach.len();
        reach.extend(next);
        if reach.len() == before {
            return reach;
        }
    }
}

fn components_reference(edges: &[(u64, u64)]) -> BTreeMap<u64, u64> {
    let mut label: BTreeMap<u64, u64> = BTreeMap::new();
    for (a, b) in edges {
        label.insert(*a, *a);
        label.insert(*b, *b);
    }
    loop {
        let mut changed = false;
        for (a, b) in edges {
            let m = label[a].min(label[b]);
            for n in [a, b] {
                if label[n] > m {
                    label.insert(*n, m);
                    changed = true;
                }
            }
        }
        if !changed {
            return label;
        }
    }
}

fn over_time<O: Ord + Clone>(at: impl Fn(u64) -> BTreeSet<O>) -> Vec<(O, u64, i64)> {
    let mut result = Vec::new();
    let mut prev = BTreeSet::new();
    for t in 0..=ROUNDS {
        let now = at(t);
        result.extend(now.difference(&prev).map(|d| (d.clone(), t, 1)));
        result.extend(prev.difference(&now).map(|d| (d.clone(), t, -1)));
        prev = now;
    }
    result
}

fn reach_engine<'s>(
    edges: Collection<'s, u64, Kv>,
    roots: Collection<'s, u64, Kv>,
    arranged: bool,
) -> Collection<'s, u64, u64> {
    let roots = roots.map(|(r, _)| r);
    let edges_arranged = edges.clone().arrange_by_key();
    roots.clone().iterate(move |reach| {
        let inner = reach.scope();
        let edges = if arranged {
            edges_arranged.enter(inner)
        } else {
            edges.enter(inner).arrange_by_key()
        };
        reach
            .map(|n| (n, ()))
            .arrange_by_key()
            .join_core(&edges, |_n, _, dst| Some(*dst))
            .concat(roots.enter(inner))
            .distinct()
    })
}

fn components_engine<'s>(edges: Collection<'s, u64, Kv>) -> Collection<'s, u64, (u64, u64)> {
    let edges = edges.clone().concat(edges.map(|(a, b)| (b, a))).distinct();
    let nodes = edges.clone().map(|(a, _)| (a, a));
    let arranged = edges.arrange_by_key();
    nodes.clone().iterate(move |labels| {
        let inner = labels.scope();
        labels
            .arrange_by_key()
            .join_core(&arranged.enter(inner), |_n, label, dst| {
                Some((*dst, *label))
            })
            .concat(nodes.enter(inner))
            .arrange_by_key()
            .reduce_abelian("MinLabel", |_n, labels, out: &mut Vec<(u64, i64)>| {
                out.push((*labels[0].0, 1))
            })
            .as_collection(|n, l| (*n, *l))
    })
}

#[test]
fn reachability_matches_reference_and_differential() {
    for seed in 0..3u64 {
        let (edges, roots) = graph_inputs(seed);
        let want = over_time(|t| reach_reference(&present(&edges, t), &present(&roots, t)));
        for workers in [1, 2] {
            for arranged in [false, true] {
                let got = run_two(workers, seed, edges.clone(), roots.clone(), move |e, r| {
                    reach_engine(e, r, arranged)
                });
                assert_same_accumulation(&got, &want, ROUNDS + 1, "reachability");
            }
            let theirs = run_dd(ROUNDS, workers, edges.clone(), roots.clone(), |e, r| {
                let roots = r.map(|(r, _)| r);
                roots.clone().iterate(|scope, reach| {
                    let edges = e.enter(scope);
                    reach
                        .map(|n| (n, ()))
                        .join(edges)
                        .map(|(_, ((), d))| d)
                        .concat(roots.enter(scope))
                        .distinct_core::<i64>()
                })
            });
            assert_same_accumulation(&theirs, &want, ROUNDS + 1, "differential reachability");
        }
    }
}

#[test]
fn connected_components_match_reference_and_differential() {
    for seed in 0..3u64 {
        let (edges, _) = graph_inputs(10 + seed);
        let want = over_time(|t| {
            components_reference(&present(&edges, t))
                .into_iter()
                .collect()
        });
        for workers in [1, 2] {
            let got = run_two(workers, seed, edges.clone(), Vec::new(), |e, _| {
                components_engine(e)
            });
            assert_same_accumulation(&got, &want, ROUNDS + 1, "components");
            let theirs = run_dd(ROUNDS, workers, edges.clone(), Vec::new(), |e, _| {
                let edges = e
                    .clone()
                    .concat(e.map(|(a, b)| (b, a)))
                    .distinct_core::<i64>();
                let nodes = edges.clone().map(|(a, _)| (a, a));
                nodes.clone().iterate(|scope, labels| {
                    labels
                        .join(edges.enter(scope))
                        .map(|(_, (label, dst))| (dst, label))
                        .concat(nodes.enter(scope))
                        .reduce(|_n, labels, out: &mut Vec<(u64, i64)>| out.push((*labels[0].0, 1)))
                })
            });
            assert_same_accumulation(&theirs, &want, ROUNDS + 1, "differential components");
        }
    }
}

/// Nodes reachable from a root by a walk of odd length and of even length, as two mutually
/// recursive variables.
#[test]
fn mutual_recursion_with_two_variables() {
    for seed in 0..3u64 {
        let (edges, roots) = graph_inputs(20 + seed);
        let want = over_time(|t| {
            let (e, r) = (present(&edges, t), present(&roots, t));
            // BFS over (node, parity).
            let mut seen: BTreeSet<(u64, u64)> = r.iter().map(|(n, _)| (*n, 0)).collect();
            loop {
                let next: Vec<(u64, u64)> = e
                    .iter()
                    .flat_map(|(a, b)| {
                        seen.iter()
                            .filter(move |(n, _)| n == a)
                            .map(move |(_, p)| (*b, 1 - p))
                    })
                    .collect();
                let before = seen.len();
                seen.extend(next);
                if seen.len() == before {
                    break seen;
                }
            }
        });
        for workers in [1, 2] {
            let got = run_two(workers, seed, edges.clone(), roots.clone(), |e, r| {
                let outer = e.scope();
                outer.iterative::<u64, _, _>(|inner| {
                    let step = Product::new(0, 1);
                    let edges = e.enter(inner).arrange_by_key();
                    let roots = r.map(|(n, _)| n).enter(inner);
                    let even = Variable::new_from(roots.clone(), step);
                    let odd = Variable::new(inner, step);
                    let next_odd = even
                        .collection()
                        .clone()
                        .map(|n| (n, ()))
                        .arrange_by_key()
                        .join_core(&edges, |_, _, d| Some(*d))
                        .distinct();
                    let next_even = odd
                        .collection()
                        .clone()
                        .map(|n| (n, ()))
                        .arrange_by_key()
                        .join_core(&edges, |_, _, d| Some(*d))
                        .concat(roots)
                        .distinct();
                    let odd_out = odd.set(&next_odd).map(|n| (n, 1));
                    let even_out = even.set(&next_even).map(|n| (n, 0));
                    odd_out.concat(even_out).leave(outer)
                })
            });
            assert_same_accumulation(&got, &want, ROUNDS + 1, "mutual recursion");
        }
    }
}
