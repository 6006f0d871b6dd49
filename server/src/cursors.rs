//! Cursors of one session: `DECLARE c CURSOR FOR SUBSCRIBE ... | <query>`, `FETCH [n | ALL] c
//! [WITH (TIMEOUT = ...)]`, `CLOSE c | ALL` — the way Materialize's clients read a subscription
//! through an ordinary driver, without COPY.
//!
//! As in PostgreSQL, cursors live inside a transaction block and end with it. A subscription
//! cursor holds the running subscription; FETCH waits until at least one row is there (or the
//! timeout passes, or the client cancels), then returns up to `n` rows that are ready without
//! waiting further. Its rows are `mz_timestamp`, [`mz_progressed`,] `mz_diff` and the relation's
//! columns; progress rows (with PROGRESS) carry NULLs after `mz_progressed`. A query cursor
//! holds the query's result at the time it was declared.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use kpg_sql::ParsedStatement;
use kpg_types::{ColumnType, Datum, RelationDesc, Row, ScalarType};

use crate::coord::{Coordinator, ExecuteResult, SubscribeEvent, Subscription};
use crate::error::ExecError;

/// The open cursors of one connection.
pub type Cursors = tokio::sync::Mutex<HashMap<String, Cursor>>;

pub struct Cursor {
    desc: RelationDesc,
    rows: VecDeque<Row>,
    /// The subscription still feeding `rows`, if the cursor reads one and it has not ended.
    subscription: Option<Subscription>,
}

/// The columns of a subscription's rows.
fn subscribe_desc(desc: &RelationDesc, progress: bool) -> RelationDesc {
    let mut columns = vec![(
        "mz_timestamp".to_string(),
        ColumnType::new(ScalarType::Int64, false),
    )];
    if progress {
        columns.push((
            "mz_progressed".to_string(),
            ColumnType::new(ScalarType::Bool, false),
        ));
    }
    columns.push((
        "mz_diff".to_string(),
        ColumnType::new(ScalarType::Int64, progress),
    ));
    for (name, ty) in &desc.columns {
        columns.push((name.clone(), ColumnType::new(ty.scalar, true)));
    }
    RelationDesc::new(columns)
}

impl Cursor {
    /// Runs the declared statement: starts its subscription, or reads its query's result.
    pub async fn declare(
        coord: &Arc<Coordinator>,
        target: &ParsedStatement,
    ) -> Result<Cursor, ExecError> {
        match coord.execute(target).await? {
            ExecuteResult::Subscription { desc, subscription } => Ok(Cursor {
                desc: subscribe_desc(&desc, subscription.progress),
                rows: VecDeque::new(),
                subscription: Some(subscription),
            }),
            ExecuteResult::Rows { desc, rows } => Ok(Cursor {
                desc,
                rows: rows.into(),
                subscription: None,
            }),
            ExecuteResult::Command(_) | ExecuteResult::Written { .. } => Err(ExecError::new(
                "42601",
                "DECLARE CURSOR needs a SELECT or SUBSCRIBE",
            )),
        }
    }

    /// Up to `count` rows (all with `None`); for a subscription, waits for the first row until
    /// `timeout` (forever with `None`; a CancelRequest drops the waiting statement).
    pub async fn fetch(
        &mut self,
        count: Option<u64>,
        timeout: Option<Duration>,
    ) -> Result<(RelationDesc, Vec<Row>), ExecError> {
        let limit = count.map_or(usize::MAX, |n| n as usize);
        if self.rows.is_empty() && limit > 0 {
            if let Some(sub) = self.subscription.as_mut() {
                match wait(sub.rx.recv(), timeout).await {
                    Waited::Event(event) => self.take(event)?,
                    Waited::TimedOut => {}
                }
            }
        }
        // Whatever else is ready, without waiting.
        while self.rows.len() < limit {
            let Some(sub) = self.subscription.as_mut() else {
                break;
            };
            match sub.rx.try_recv() {
                Ok(event) => self.take(Some(event))?,
                Err(tokio::sync::mpsc::error::TryRecvError::Empty) => break,
                Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => self.take(None)?,
            }
        }
        let n = limit.min(self.rows.len());
        Ok((self.desc.clone(), self.rows.drain(..n).collect()))
    }

    /// Adds a subscription event's rows; `None` means the subscription ended.
    fn take(&mut self, event: Option<SubscribeEvent>) -> Result<(), ExecError> {
        let progress = self.subscription.as_ref().is_some_and(|s| s.progress);
        match event {
            Some(SubscribeEvent::Updates(updates)) => {
                for (time, diff, row) in updates {
                    let mut datums = vec![Datum::Int64(time as i64)];
                    if progress {
                        datums.push(Datum::Bool(false));
                    }
                    datums.push(Datum::Int64(diff));
                    datums.extend(row.iter().cloned());
                    self.rows.push_back(Row::new(datums));
                }
            }
            Some(SubscribeEvent::Progress(time)) => {
                let mut datums = vec![Datum::Int64(time as i64), Datum::Bool(true)];
                datums.resize(self.desc.arity(), Datum::Null);
                self.rows.push_back(Row::new(datums));
            }
            Some(SubscribeEvent::Error(e)) => return Err(ExecError::from(e)),
            None => self.subscription = None,
        }
        Ok(())
    }
}

enum Waited {
    Event(Option<SubscribeEvent>),
    TimedOut,
}

async fn wait(
    next: impl std::future::Future<Output = Option<SubscribeEvent>>,
    timeout: Option<Duration>,
) -> Waited {
    match timeout {
        Some(t) => match tokio::time::timeout(t, next).await {
            Ok(e) => Waited::Event(e),
            Err(_) => Waited::TimedOut,
        },
        None => Waited::Event(next.await),
    }
}

/// Runs a cursor statement for a session; `None` if `stmt` is not one. `in_block` says whether
/// a transaction block is open.
pub async fn run(
    stmt: &ParsedStatement,
    cursors: &Cursors,
    coord: &Arc<Coordinator>,
    in_block: bool,
) -> Option<Result<ExecuteResult, ExecError>> {
    Some(match stmt {
        ParsedStatement::Declare { name, target } => {
            if !in_block {
                return Some(Err(ExecError::new(
                    "25P01",
                    "DECLARE CURSOR can only be used in transaction blocks",
                )));
            }
            if cursors.lock().await.contains_key(name) {
                return Some(Err(ExecError::new(
                    "42P03",
                    format!("cursor \"{name}\" already exists"),
                )));
            }
            match Cursor::declare(coord, target).await {
                Ok(cursor) => {
                    cursors.lock().await.insert(name.clone(), cursor);
                    Ok(ExecuteResult::Command("DECLARE CURSOR".into()))
                }
                Err(e) => Err(e),
            }
        }
        ParsedStatement::Fetch {
            name,
            count,
            timeout,
        } => {
            let mut cursors = cursors.lock().await;
            let Some(cursor) = cursors.get_mut(name) else {
                return Some(Err(ExecError::new(
                    "34000",
                    format!("cursor \"{name}\" does not exist"),
                )));
            };
            cursor
                .fetch(*count, *timeout)
                .await
                .map(|(desc, rows)| ExecuteResult::Rows { desc, rows })
        }
        ParsedStatement::Close { name } => {
            let mut cursors = cursors.lock().await;
            match name {
                None => cursors.clear(),
                Some(name) => {
                    if cursors.remove(name).is_none() {
                        return Some(Err(ExecError::new(
                            "34000",
                            format!("cursor \"{name}\" does not exist"),
                        )));
                    }
                }
            }
            Ok(ExecuteResult::Command("CLOSE CURSOR".into()))
        }
        _ => return None,
    })
}
