//! Shared subplans: a subtree that occurs more than once in the plan the runtime renders is
//! bound once with `Plan::Let` and read through `Plan::LocalGet`, so its dataflow (and its
//! arrangements) exist once.
//!
//! Owns: [`share_common`]. Decorrelation copies a query's host into every subquery's domain
//! and a subquery's relation into its totalization, so a query with nested subqueries holds
//! the same subtree many times (the random test's largest query had 22,000 lines of physical
//! plan). Sharing happens last, after every rewrite, because the rewrites (pushdown, pruning,
//! join ordering, index reuse) treat each copy on its own and may make copies differ; what
//! they leave identical is computed once. Invariants: the result computes the same rows as the
//! input; only the maximal repeated subtrees are bound (a subtree repeated only inside copies of
//! a repeated parent is not); leaves (reads of catalog objects, constants) are never bound; and
//! nothing inside a `Recursive` node is bound or replaced, because its step is rendered in the
//! loop's own scope.

use std::collections::{HashMap, HashSet};

use kpg_types::Plan;

/// `plan` with each maximal subtree that occurs more than once computed once.
pub fn share_common(plan: Plan) -> Plan {
    let mut counts: HashMap<&Plan, usize> = HashMap::new();
    count(&plan, &mut counts);
    let repeated: HashSet<&Plan> = counts
        .into_iter()
        .filter(|(p, n)| *n > 1 && !is_leaf(p))
        .map(|(p, _)| p)
        .collect();
    if repeated.is_empty() {
        return plan;
    }
    let mut sharing = Sharing {
        repeated,
        ids: HashMap::new(),
        bindings: Vec::new(),
    };
    let body = sharing.rewrite(&plan);
    // Bindings are in dependency order (a value only reads earlier ones): the first is outermost.
    sharing
        .bindings
        .into_iter()
        .rev()
        .fold(body, |body, (id, value)| Plan::Let {
            id,
            value: Box::new(value),
            body: Box::new(body),
        })
}

/// Counts occurrences of each subtree; a subtree's children are counted on its first occurrence
/// only, so they count as repeated only if they also occur outside copies of it.
fn count<'p>(plan: &'p Plan, counts: &mut HashMap<&'p Plan, usize>) {
    let n = counts.entry(plan).or_insert(0);
    *n += 1;
    if *n > 1 || matches!(plan, Plan::Recursive { .. }) {
        return;
    }
    for child in plan.children() {
        count(child, counts);
    }
}

fn is_leaf(plan: &Plan) -> bool {
    plan.children().is_empty()
}

struct Sharing<'p> {
    /// The subtrees to bind.
    repeated: HashSet<&'p Plan>,
    /// The ids of those bound so far, numbered in the order they are bound (so a plan's text
    /// is the same in every run).
    ids: HashMap<&'p Plan, u64>,
    /// `(id, value)` in the order made: each value reads only ids made before it.
    bindings: Vec<(u64, Plan)>,
}

impl<'p> Sharing<'p> {
    fn rewrite(&mut self, plan: &'p Plan) -> Plan {
        if !self.repeated.contains(plan) {
            return self.rewrite_children(plan);
        }
        if let Some(&id) = self.ids.get(plan) {
            return Plan::LocalGet { id };
        }
        let value = self.rewrite_children(plan);
        let id = self.bindings.len() as u64;
        self.ids.insert(plan, id);
        self.bindings.push((id, value));
        Plan::LocalGet { id }
    }

    /// `plan` with its children rewritten (a `Recursive` node is kept whole).
    fn rewrite_children(&mut self, plan: &'p Plan) -> Plan {
        if matches!(plan, Plan::Recursive { .. }) {
            return plan.clone();
        }
        let mut rewritten = plan
            .children()
            .into_iter()
            .map(|c| self.rewrite(c))
            .collect::<Vec<_>>()
            .into_iter();
        plan.clone().map_inputs(|_| {
            rewritten
                .next()
                .expect("map_inputs visits the inputs `children` lists")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::ScalarExpr;

    fn get(id: u64) -> Plan {
        Plan::Get { id }
    }
    fn distinct(p: Plan) -> Plan {
        Plan::Distinct { input: Box::new(p) }
    }
    fn project(p: Plan, outputs: Vec<usize>) -> Plan {
        Plan::Project {
            input: Box::new(p),
            outputs,
        }
    }
    fn join(l: Plan, r: Plan) -> Plan {
        Plan::Join {
            left: Box::new(l),
            right: Box::new(r),
            left_key: vec![ScalarExpr::Column(0)],
            right_key: vec![ScalarExpr::Column(0)],
        }
    }

    /// Every non-leaf subtree occurring twice in `plan` (outside `Recursive` nodes).
    fn repeats(plan: &Plan) -> usize {
        let mut counts: HashMap<&Plan, usize> = HashMap::new();
        fn walk<'p>(p: &'p Plan, counts: &mut HashMap<&'p Plan, usize>) {
            *counts.entry(p).or_insert(0) += 1;
            if !matches!(p, Plan::Recursive { .. }) {
                p.children().into_iter().for_each(|c| walk(c, counts));
            }
        }
        walk(plan, &mut counts);
        counts
            .iter()
            .filter(|(p, n)| **n > 1 && !is_leaf(p))
            .count()
    }

    #[test]
    fn the_largest_repeated_subtree_is_bound_once() {
        // x = Distinct(Project(Get 1)) three times; its inner Project only inside x.
        let x = distinct(project(get(1), vec![0]));
        let plan = Plan::Union {
            inputs: vec![join(x.clone(), get(2)), x.clone(), project(x, vec![0])],
        };
        let shared = share_common(plan);
        let Plan::Let { id, value, body } = &shared else {
            panic!("one binding expected:\n{shared}")
        };
        assert_eq!(**value, distinct(project(get(1), vec![0])));
        let mut reads = 0;
        body.visit(&mut |p| reads += matches!(p, Plan::LocalGet { id: i } if i == id) as usize);
        assert_eq!(reads, 3, "{shared}");
        assert!(
            !matches!(**body, Plan::Let { .. }),
            "the inner Project repeats only inside x and is not bound:\n{shared}"
        );
        assert_eq!(repeats(&shared), 0, "{shared}");
    }

    #[test]
    fn inner_repeats_outside_the_outer_ones_are_bound_first() {
        // y repeats inside x and also on its own; x repeats too.
        let y = project(get(1), vec![1, 0]);
        let x = distinct(join(y.clone(), get(2)));
        let plan = Plan::Union {
            inputs: vec![x.clone(), x, distinct(y)],
        };
        let shared = share_common(plan);
        let Plan::Let {
            id: outer,
            value,
            body,
        } = &shared
        else {
            panic!("{shared}")
        };
        assert_eq!(
            **value,
            project(get(1), vec![1, 0]),
            "y is bound first:\n{shared}"
        );
        let Plan::Let { value: x_value, .. } = &**body else {
            panic!("x is bound inside y's binding:\n{shared}")
        };
        let mut reads_y = false;
        x_value.visit(&mut |p| reads_y |= matches!(p, Plan::LocalGet { id } if id == outer));
        assert!(reads_y, "x reads y through its binding:\n{shared}");
        assert_eq!(repeats(&shared), 0, "{shared}");
    }

    #[test]
    fn nothing_inside_a_recursion_is_shared_and_plans_without_repeats_are_kept() {
        let x = distinct(project(get(1), vec![0]));
        let rec = Plan::Recursive {
            id: 7,
            base: Box::new(x.clone()),
            step: Box::new(Plan::Union {
                inputs: vec![x.clone(), Plan::RecursiveGet { id: 7 }],
            }),
            distinct: true,
        };
        assert_eq!(share_common(rec.clone()), rec);
        let plain = join(x, get(3));
        assert_eq!(share_common(plain.clone()), plain);
    }
}
