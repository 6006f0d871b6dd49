//! `GROUP BY GROUPING SETS (...)`, `ROLLUP (...)`, `CUBE (...)` and the `GROUPING(...)`
//! function.
//!
//! A query grouped by several sets is one reduction over the union of its input repeated once
//! per set: in the copy for set `s` the keys outside `s` are NULL and a last key holds `s`'s
//! number, so each set's groups stay apart (two sets with the same members too, as in
//! PostgreSQL, which returns their rows twice). Aggregate arguments still read the input's own
//! columns, so `sum(a)` in a group where `a` is rolled up sums the real values. An empty set
//! yields one row even over no input, as a global aggregate does. `GROUPING(a, b)` reads the
//! set number: bit `i` (from the right, last argument first) is 1 where argument `i` is not
//! in the row's set.

use kpg_types::{BinaryFunc, Datum, Plan, Row, ScalarExpr, ScalarType};
use sqlparser::ast::Expr;

use crate::aggregate::Grouping;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::types::Typed;

/// PostgreSQL's limit on the number of grouping sets.
const MAX_SETS: usize = 4096;

/// The GROUP BY of a query with grouping sets: its distinct expressions (as written; equal
/// ones are merged once bound), and each set as positions in that list.
pub struct Expanded<'e> {
    pub exprs: Vec<&'e Expr>,
    pub sets: Vec<Vec<usize>>,
}

/// The sets of a grouped query, once its keys are bound: which keys (after the domain's) each
/// set has, and the key column that holds the set's number.
#[derive(Debug, Clone)]
pub struct Sets {
    pub members: Vec<Vec<bool>>,
    /// Position of the first set key among the grouping keys (after a correlated subquery's
    /// domain columns).
    pub first: usize,
}

/// The grouping sets of a GROUP BY list, or `None` when it has no ROLLUP, CUBE or GROUPING
/// SETS item (an ordinary GROUP BY).
pub fn expand(group_by: &[Expr]) -> Result<Option<Expanded<'_>>, PlanError> {
    if !group_by
        .iter()
        .any(|e| matches!(e, Expr::Rollup(_) | Expr::Cube(_) | Expr::GroupingSets(_)))
    {
        return Ok(None);
    }
    let mut exprs: Vec<&Expr> = Vec::new();
    let mut position = |e| -> usize {
        match exprs.iter().position(|x| *x == e) {
            Some(i) => i,
            None => {
                exprs.push(e);
                exprs.len() - 1
            }
        }
    };
    let mut sets: Vec<Vec<usize>> = vec![Vec::new()];
    for item in group_by {
        let alternatives: Vec<Vec<usize>> = match item {
            Expr::Rollup(lists) => {
                let lists = element_lists(lists, &mut position)?;
                (0..=lists.len())
                    .rev()
                    .map(|k| lists[..k].concat())
                    .collect()
            }
            Expr::Cube(lists) => {
                let lists = element_lists(lists, &mut position)?;
                if lists.len() > 12 {
                    return Err(too_many());
                }
                (0..1usize << lists.len())
                    .rev()
                    .map(|mask| {
                        (0..lists.len())
                            .filter(|i| mask & (1 << (lists.len() - 1 - i)) != 0)
                            .flat_map(|i| lists[i].clone())
                            .collect()
                    })
                    .collect()
            }
            Expr::GroupingSets(lists) => element_lists(lists, &mut position)?,
            e => vec![vec![position(e)]],
        };
        let mut next = Vec::with_capacity(sets.len() * alternatives.len());
        for set in &sets {
            for alt in &alternatives {
                let mut s = set.clone();
                s.extend(alt.iter().copied().filter(|i| !set.contains(i)));
                next.push(s);
            }
        }
        if next.len() > MAX_SETS {
            return Err(too_many());
        }
        sets = next;
    }
    Ok(Some(Expanded { exprs, sets }))
}

fn too_many() -> PlanError {
    PlanError::new(
        "54001",
        format!("too many grouping sets present (maximum {MAX_SETS})"),
    )
}

/// The elements of a ROLLUP, CUBE or GROUPING SETS list, each a list of expression positions
/// (`(a, b)` is one element of two expressions; `()` one of none).
fn element_lists<'e>(
    lists: &'e [Vec<Expr>],
    position: &mut impl FnMut(&'e Expr) -> usize,
) -> Result<Vec<Vec<usize>>, PlanError> {
    lists
        .iter()
        .map(|list| {
            list.iter()
                .map(|e| match e {
                    Expr::Rollup(_) | Expr::Cube(_) | Expr::GroupingSets(_) => Err(nested()),
                    // sqlparser reads `ROLLUP (a, b)` inside GROUPING SETS as a function call.
                    Expr::Function(f) if is_nested_set(f) => Err(nested()),
                    e => Ok(position(e)),
                })
                .collect()
        })
        .collect()
}

fn nested() -> PlanError {
    PlanError::unsupported("ROLLUP, CUBE or GROUPING SETS nested in another")
}

/// Whether a call inside a grouping set's list is `ROLLUP (...)` or `CUBE (...)` as written
/// (unquoted).
fn is_nested_set(f: &sqlparser::ast::Function) -> bool {
    matches!(f.name.0.as_slice(), [sqlparser::ast::ObjectNamePart::Identifier(id)]
        if id.quote_style.is_none()
            && ["rollup", "cube"].contains(&id.value.to_lowercase().as_str()))
}

/// The key standing for the set number (the last grouping key): no expression a user writes
/// binds to this column.
pub fn set_key() -> Typed {
    Typed::new(ScalarExpr::Column(usize::MAX / 8), ScalarType::Int32, false)
}

/// The grouped query's input repeated once per set: its `arity` columns, then the set keys
/// (NULL outside the set) and the set number. Returns the plan and the reduction's keys over
/// it (the domain's keys unchanged).
pub fn repeat_input(
    input: Plan,
    arity: usize,
    grouping: &Grouping,
    sets: &Sets,
) -> (Plan, Vec<ScalarExpr>) {
    let set_keys = &grouping.keys[sets.first..grouping.keys.len() - 1];
    let copies = sets
        .members
        .iter()
        .enumerate()
        .map(|(s, members)| Plan::Map {
            input: Box::new(input.clone()),
            exprs: set_keys
                .iter()
                .zip(members)
                .map(|(k, &member)| match member {
                    true => k.expr.clone(),
                    false => ScalarExpr::Literal(Datum::Null),
                })
                .chain([ScalarExpr::Literal(Datum::Int32(s as i32))])
                .collect(),
        })
        .collect();
    let keys = grouping.keys[..sets.first]
        .iter()
        .map(|k| k.expr.clone())
        .chain((0..=set_keys.len()).map(|j| ScalarExpr::Column(arity + j)))
        .collect();
    (Plan::Union { inputs: copies }, keys)
}

/// `reduced` (keys, then aggregates) with one row of defaults for each empty set over no
/// input: the keys NULL, the set's number, each aggregate's value over no rows. In a correlated
/// subquery (`domain`: the outer values and their number, the first keys) that is one row per
/// outer value without rows, as for a global aggregate there.
pub fn empty_set_rows(
    reduced: Plan,
    sets: &Sets,
    nkeys: usize,
    defaults: &[Datum],
    domain: Option<(Plan, usize)>,
) -> Plan {
    let mut inputs = vec![reduced.clone()];
    let set_column = nkeys - 1;
    let nd = domain.as_ref().map_or(0, |(_, nd)| *nd);
    for (s, members) in sets.members.iter().enumerate() {
        if members.iter().any(|m| *m) {
            continue;
        }
        let this_set = Plan::Filter {
            input: Box::new(reduced.clone()),
            predicates: vec![ScalarExpr::Column(set_column)
                .call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int32(s as i32)))],
        };
        // The row after the outer values: NULL keys, the set, the defaults.
        let rest: Vec<Datum> = (nd..set_column)
            .map(|_| Datum::Null)
            .chain([Datum::Int32(s as i32)])
            .chain(defaults.iter().cloned())
            .collect();
        let without_rows = match &domain {
            // The outer values whose subquery has no row for this set.
            Some((values, nd)) => Plan::Union {
                inputs: vec![
                    values.clone(),
                    Plan::Negate {
                        input: Box::new(Plan::Project {
                            input: Box::new(this_set),
                            outputs: (0..*nd).collect(),
                        }),
                    },
                ],
            },
            // One empty row, unless the set has its row.
            None => Plan::Union {
                inputs: vec![
                    Plan::Constant {
                        rows: vec![(Row::empty(), 1)],
                    },
                    Plan::Negate {
                        input: Box::new(Plan::Project {
                            input: Box::new(this_set),
                            outputs: Vec::new(),
                        }),
                    },
                ],
            },
        };
        inputs.push(Plan::Map {
            input: Box::new(without_rows),
            exprs: rest.into_iter().map(ScalarExpr::Literal).collect(),
        });
    }
    Plan::Union { inputs }
}

/// `GROUPING(args)`: each argument must be a grouping key of this query.
pub fn bind_grouping(cx: &ExprContext<'_>, args: &[&Expr]) -> Result<Typed, PlanError> {
    let not_keys = || {
        PlanError::grouping(
            "arguments to GROUPING must be grouping expressions of the associated query level",
        )
    };
    let Some(grouping) = cx.grouping else {
        return Err(not_keys());
    };
    if args.len() > 31 {
        return Err(PlanError::new(
            "54023",
            "GROUPING must have fewer than 32 arguments",
        ));
    }
    let plain = cx.ungrouped();
    let mut positions = Vec::with_capacity(args.len());
    for a in args {
        let e = plain.bind(a)?.expr;
        let k = grouping
            .keys
            .iter()
            .position(|k| k.expr == e)
            .ok_or_else(not_keys)?;
        positions.push(k);
    }
    let Some(sets) = &grouping.sets else {
        return Ok(Typed::new(
            ScalarExpr::Literal(Datum::Int32(0)),
            ScalarType::Int32,
            false,
        ));
    };
    let set_column = ScalarExpr::Column(grouping.keys.len() - 1);
    let mask = |members: &[bool]| -> i32 {
        positions.iter().fold(0, |m, &k| {
            let absent = k >= sets.first && !members[k - sets.first];
            (m << 1) | i32::from(absent)
        })
    };
    let mut value = ScalarExpr::Literal(Datum::Int32(0));
    for (s, members) in sets.members.iter().enumerate().rev() {
        value = ScalarExpr::If {
            cond: Box::new(
                set_column
                    .clone()
                    .call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int32(s as i32))),
            ),
            then: Box::new(ScalarExpr::Literal(Datum::Int32(mask(members)))),
            els: Box::new(value),
        };
    }
    Ok(Typed::new(value, ScalarType::Int32, false))
}
