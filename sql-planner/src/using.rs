//! `JOIN ... USING (cols)` and `NATURAL JOIN`, with PostgreSQL's output columns.
//!
//! Each USING column (for NATURAL: each column name both sides have, in the left side's order)
//! must name exactly one visible column on each side. The join is the join ON `l.c = r.c` (both
//! converted to their common type), and its columns are the merged columns first, in USING
//! order, then the left side's columns, then the right side's. A merged column is the left
//! side's value (LEFT), the right side's (RIGHT), `COALESCE(l.c, r.c)` (FULL), or for INNER
//! the side whose value needs no conversion to the common type (the left if both or neither
//! do); it has no table name, so `c` names it while `l.c` and `r.c` still name the sides' own
//! columns.
//!
//! The sides' copies of the join columns stay in the scope for qualified references and `t.*`
//! but are hidden from unqualified names and from `*`: they sit at level `HIDDEN`, a level no
//! enclosing query reaches, so name resolution (which takes the innermost level that matches)
//! prefers the merged column, and `*` (which expands level 0) skips them.

use crate::error::PlanError;
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::types::{coerce_all, common_type, Typed};
use kpg_types::{BinaryFunc, ColumnType, Plan, ScalarExpr, VariadicFunc};

/// The scope level of a join column's side copies after USING/NATURAL merged it.
pub const HIDDEN: usize = usize::MAX / 4;

/// How a USING join fills the merged column.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Either side's (an inner join): the one that needs no conversion to the common type, the
    /// left if both or neither do, as PostgreSQL picks.
    Either,
    Left,
    Right,
    Coalesce,
}

/// The join columns: (left position, right position, common type), in output order.
pub struct UsingColumns {
    pairs: Vec<(usize, usize, kpg_types::ScalarType)>,
}

/// Resolves `USING (names)`, or the common names of a NATURAL join (`names` None).
pub fn using_columns(
    left: &Scope,
    right: &Scope,
    names: Option<Vec<String>>,
) -> Result<UsingColumns, PlanError> {
    let names = match names {
        Some(names) => {
            for (i, n) in names.iter().enumerate() {
                if names[..i].contains(n) {
                    return Err(PlanError::new(
                        "42701",
                        format!("column name \"{n}\" appears more than once in USING clause"),
                    ));
                }
            }
            names
        }
        None => {
            let mut common: Vec<String> = Vec::new();
            for item in left.items.iter().filter(|i| i.level == 0) {
                let in_right = right
                    .items
                    .iter()
                    .any(|r| r.level == 0 && r.name == item.name);
                if in_right && !common.contains(&item.name) {
                    common.push(item.name.clone());
                }
            }
            common
        }
    };
    let mut pairs = Vec::with_capacity(names.len());
    for name in &names {
        let l = side_column(left, name, "left")?;
        let r = side_column(right, name, "right")?;
        let ty = common_type(
            &[
                Some(left.items[l].ty.scalar),
                Some(right.items[r].ty.scalar),
            ],
            "JOIN/USING",
        )?;
        pairs.push((l, r, ty));
    }
    Ok(UsingColumns { pairs })
}

fn side_column(scope: &Scope, name: &str, side: &str) -> Result<usize, PlanError> {
    let found: Vec<usize> = (0..scope.len())
        .filter(|&i| scope.items[i].level == 0 && scope.items[i].name == name)
        .collect();
    match found.as_slice() {
        [i] => Ok(*i),
        [] => Err(PlanError::new(
            "42703",
            format!("column \"{name}\" specified in USING clause does not exist in {side} table"),
        )),
        _ => Err(PlanError::new(
            "42702",
            format!("common column name \"{name}\" appears more than once in {side} table"),
        )),
    }
}

impl UsingColumns {
    /// The join condition over the concatenated columns (left then right, `nl` left columns).
    pub fn condition(&self, left: &Scope, right: &Scope) -> Result<Vec<ScalarExpr>, PlanError> {
        let nl = left.len();
        let mut on = Vec::with_capacity(self.pairs.len());
        for &(l, r, ty) in &self.pairs {
            let lt = self.converted(left, l, 0, &ty)?;
            let rt = self.converted(right, r, nl, &ty)?;
            on.push(lt.call_binary(BinaryFunc::Eq, rt));
        }
        Ok(on)
    }

    fn converted(
        &self,
        scope: &Scope,
        i: usize,
        offset: usize,
        ty: &kpg_types::ScalarType,
    ) -> Result<ScalarExpr, PlanError> {
        let item = &scope.items[i];
        let t = Typed::new(
            ScalarExpr::Column(offset + i),
            item.ty.scalar,
            item.ty.nullable,
        );
        Ok(coerce_all(vec![t], ty, "JOIN/USING")?.remove(0).expr)
    }

    /// The joined plan (left columns then right) reshaped to PostgreSQL's columns: the merged
    /// columns, then the left side's, then the right side's, with the sides' join columns
    /// hidden from unqualified names.
    pub fn finish(
        &self,
        joined: Plan,
        left: Scope,
        right: Scope,
        merge: Merge,
    ) -> Result<(Plan, Scope), PlanError> {
        let nl = left.len();
        let n = nl + right.len();
        let mut exprs = Vec::with_capacity(self.pairs.len());
        let mut items = Vec::with_capacity(n + self.pairs.len());
        for &(l, r, ty) in &self.pairs {
            let lv = self.converted(&left, l, 0, &ty)?;
            let rv = self.converted(&right, r, nl, &ty)?;
            let (li, ri) = (&left.items[l], &right.items[r]);
            let (expr, nullable) = match merge {
                Merge::Either if !matches!(lv, ScalarExpr::Column(_)) => match rv {
                    ScalarExpr::Column(_) => (rv, ri.ty.nullable),
                    _ => (lv, li.ty.nullable),
                },
                Merge::Either | Merge::Left => (lv, li.ty.nullable),
                Merge::Right => (rv, ri.ty.nullable),
                Merge::Coalesce => (
                    ScalarExpr::Variadic {
                        func: VariadicFunc::Coalesce,
                        exprs: vec![lv, rv],
                    },
                    li.ty.nullable && ri.ty.nullable,
                ),
            };
            exprs.push(expr);
            items.push(ScopeItem {
                table: None,
                name: li.name.clone(),
                ty: ColumnType::new(ty, nullable),
                level: 0,
                used: UseMark::default(),
            });
        }
        let hide = |mut item: ScopeItem| {
            item.level = HIDDEN;
            item
        };
        for (i, item) in left.items.into_iter().enumerate() {
            let joined_column = self.pairs.iter().any(|p| p.0 == i);
            items.push(if joined_column { hide(item) } else { item });
        }
        for (i, item) in right.items.into_iter().enumerate() {
            let joined_column = self.pairs.iter().any(|p| p.1 == i);
            items.push(if joined_column { hide(item) } else { item });
        }
        let merged = exprs.len();
        let plan = Plan::Project {
            input: Box::new(Plan::Map {
                input: Box::new(joined),
                exprs,
            }),
            outputs: (n..n + merged).chain(0..n).collect(),
        };
        Ok((plan, Scope { items }))
    }
}
