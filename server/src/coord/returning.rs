//! What a write answers: its command tag with the number of rows written, or with RETURNING
//! the rows its expressions make of each written row (the tag's count is then the number of
//! rows returned, which is the same number).
//!
//! Also UPDATE ... FROM and DELETE ... USING (`PlannedStatement::JoinedWrite`): the joined rows
//! are read once under the write lock, each stored row (known by its position) is changed once,
//! by the first joined row read for it, and the changes are checked and appended together.

use std::collections::BTreeMap;
use std::sync::Arc;

use kpg_sql::Returning;
use kpg_types::{Datum, GlobalId, Plan, Row};

use super::sequence::ExecuteResult;
use super::Coordinator;
use crate::error::ExecError;

/// The answer to a write of `rows` (each the row RETURNING reads) whose tag is `tag` followed
/// by the count.
pub(super) fn written(
    tag: &str,
    returning: Option<&Returning>,
    rows: impl Iterator<Item = (Vec<Datum>, i64)>,
) -> Result<ExecuteResult, ExecError> {
    match returning {
        None => {
            let count: i64 = rows.map(|(_, n)| n).sum();
            Ok(ExecuteResult::Command(format!("{tag} {count}")))
        }
        Some(r) => {
            let mut out = Vec::new();
            for (row, n) in rows {
                let returned = r.eval(&row)?;
                for _ in 0..n {
                    out.push(returned.clone());
                }
            }
            Ok(ExecuteResult::Written {
                tag: tag.to_string(),
                desc: r.desc.clone(),
                rows: out,
            })
        }
    }
}

/// Sorts rows read with their positions (the last column) into the order they were written,
/// the order PostgreSQL's scan meets them in.
pub(super) fn by_position(rows: &mut [(Row, i64)]) {
    rows.sort_by_key(|(r, _)| match r.datums().last() {
        Some(Datum::Int64(p)) => *p,
        _ => i64::MAX,
    });
}

impl Coordinator {
    /// UPDATE ... FROM (`update`) or DELETE ... USING of `table`, whose rows have `columns`
    /// columns.
    pub(super) async fn joined_write(
        self: &Arc<Self>,
        table: GlobalId,
        plan: Plan,
        columns: usize,
        update: bool,
        returning: Option<Returning>,
    ) -> Result<ExecuteResult, ExecError> {
        let joined = self.peek(plan).await?;
        // One joined row per stored row (by position), the first one read.
        let mut chosen: BTreeMap<i64, Row> = BTreeMap::new();
        for (row, _) in joined {
            let Some(Datum::Int64(position)) = row.datums().get(columns).cloned() else {
                return Err(ExecError::internal(
                    "UPDATE ... FROM read a row without its position",
                ));
            };
            chosen.entry(position).or_insert(row);
        }
        let mut updates = Vec::with_capacity(chosen.len() * 2);
        // What RETURNING reads: the (new) row, its position, the other items' columns.
        let mut returned_rows: Vec<Row> = Vec::with_capacity(chosen.len());
        for row in chosen.into_values() {
            let datums = row.datums();
            let old = Row::new(datums[..=columns].to_vec());
            updates.push((old, -1));
            if update {
                let new = &datums[columns + 1..2 * columns + 1];
                updates.push((Row::new(new.to_vec()), 1));
                if returning.is_some() {
                    let mut r = new.to_vec();
                    r.push(datums[columns].clone());
                    r.extend_from_slice(&datums[2 * columns + 1..]);
                    returned_rows.push(Row::new(r));
                }
            } else if returning.is_some() {
                returned_rows.push(row);
            }
        }
        let count = updates.iter().filter(|(_, n)| *n < 0).count();
        let writes = vec![(table, updates)];
        if update {
            self.check_writes(&writes).await?;
        }
        let tag = if update { "UPDATE" } else { "DELETE" };
        let result = match returning {
            None => ExecuteResult::Command(format!("{tag} {count}")),
            Some(_) => written(
                tag,
                returning.as_ref(),
                returned_rows.iter().map(|r| (r.datums(), 1)),
            )?,
        };
        self.append(writes);
        Ok(result)
    }
}
