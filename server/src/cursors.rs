//! Cursors of one session: `DECLARE c [BINARY] [INSENSITIVE] [[NO] SCROLL] CURSOR [WITH[OUT]
//! HOLD] FOR SUBSCRIBE ... | <query>`, `FETCH | MOVE [direction] c [WITH (TIMEOUT = ...)]`,
//! `CLOSE c | ALL` — PostgreSQL's cursors over queries, and the way Materialize's clients read
//! a subscription through an ordinary driver, without COPY.
//!
//! As in PostgreSQL, a cursor lives inside its transaction block and ends with it, unless it
//! is WITH HOLD: then it may be declared outside a block, survives the COMMIT of the block that
//! declared it (not its ROLLBACK) and ends with CLOSE or the session.
//!
//! A query cursor holds the query's result at the time it was declared, and moves over it as
//! PostgreSQL's portal does ([`scroll`]). SCROLL lets it move backward; NO SCROLL refuses that
//! with PostgreSQL's error; neither lets it move backward when PostgreSQL's plan would (a plan
//! that can scan backward, decided there by plan details): kpg allows it over a plain read of
//! one table (filters, projections, ORDER BY and LIMIT over it), and refuses it, with the same
//! error and a detail saying why, over anything else (joins, grouping, DISTINCT, set
//! operations, VALUES, functions in FROM), where PostgreSQL's answer depends on its plan.
//!
//! A subscription cursor holds the running subscription and only moves forward (NEXT, FORWARD
//! n, n, ALL); FETCH waits until at least one row is there (or the timeout passes, or the
//! client cancels), then returns up to `n` rows that are ready without waiting further. Its
//! rows are `mz_timestamp`, [`mz_progressed`,] `mz_diff` and the relation's columns; progress
//! rows (with PROGRESS) carry NULLs after `mz_progressed`.

mod scroll;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use kpg_sql::{CursorOptions, Fetch, FetchDirection, ParsedStatement, PlannedStatement};
use kpg_types::{ColumnType, Datum, Plan, RelationDesc, Row, ScalarType};

use crate::coord::{Coordinator, ExecuteResult, Planned, SubscribeEvent, Subscription};
use crate::error::ExecError;

/// The open cursors of one connection.
pub type Cursors = tokio::sync::Mutex<HashMap<String, Cursor>>;

pub struct Cursor {
    desc: RelationDesc,
    options: CursorOptions,
    /// Declared in the open transaction block: ends with its ROLLBACK even if held.
    in_open_block: bool,
    source: Source,
}

enum Source {
    Query(scroll::Portal),
    Subscribe {
        rows: VecDeque<Row>,
        /// The subscription still feeding `rows`, unless it has ended.
        subscription: Option<Subscription>,
    },
}

/// The columns of a subscription's rows.
pub(crate) fn subscribe_desc(desc: &RelationDesc, progress: bool) -> RelationDesc {
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

/// PostgreSQL's checks of the options themselves (`transformDeclareCursorStmt`).
fn check_options(options: &CursorOptions) -> Result<(), ExecError> {
    if options.scroll && options.no_scroll {
        return Err(ExecError::new(
            "42P11",
            "cannot specify both SCROLL and NO SCROLL",
        ));
    }
    if options.asensitive && options.insensitive {
        return Err(ExecError::new(
            "42P11",
            "cannot specify both ASENSITIVE and INSENSITIVE",
        ));
    }
    Ok(())
}

/// Whether PostgreSQL surely scans `target` backward without SCROLL: a read of one table
/// (`SELECT ... FROM table`, no grouping), filtered, projected, ordered and limited.
fn plain_table_read(
    coord: &Coordinator,
    target: &ParsedStatement,
    planned: &PlannedStatement,
) -> bool {
    let Some(folded) = target.single_table_read() else {
        return false;
    };
    let Some(table) = coord
        .resolve(&folded)
        .filter(|item| item.kind == kpg_sql::ItemKind::Table)
    else {
        return false;
    };
    let PlannedStatement::Select { plan, .. } = planned else {
        return false;
    };
    fn reads(plan: &Plan, table: kpg_types::GlobalId) -> bool {
        match plan {
            Plan::Get { id } | Plan::GetWithPosition { id } | Plan::IndexedGet { id, .. } => {
                *id == table
            }
            Plan::Map { input, .. } | Plan::Filter { input, .. } | Plan::Project { input, .. } => {
                reads(input, table)
            }
            Plan::TopK {
                input, group_key, ..
            } => group_key.is_empty() && reads(input, table),
            _ => false,
        }
    }
    reads(plan, table.id)
}

impl Cursor {
    /// Runs the declared statement (planned as `planned`): starts its subscription, or reads
    /// its query's result.
    pub async fn declare(
        coord: &Arc<Coordinator>,
        options: CursorOptions,
        target: &ParsedStatement,
        planned: Planned,
        in_block: bool,
    ) -> Result<Cursor, ExecError> {
        if !matches!(
            planned.plan,
            PlannedStatement::Select { .. } | PlannedStatement::Subscribe { .. }
        ) {
            return Err(ExecError::new(
                "42601",
                "DECLARE CURSOR needs a SELECT or SUBSCRIBE",
            ));
        }
        let plain_table_read = plain_table_read(coord, target, &planned.plan);
        let (desc, source) = match coord.execute_planned(target, planned, None).await? {
            ExecuteResult::Subscription { desc, subscription } => {
                if options.scroll {
                    return Err(ExecError::unsupported("SCROLL cursors over SUBSCRIBE")
                        .with_detail("A subscription's changes are read once, forward."));
                }
                (
                    subscribe_desc(&desc, subscription.progress),
                    Source::Subscribe {
                        rows: VecDeque::new(),
                        subscription: Some(subscription),
                    },
                )
            }
            ExecuteResult::Rows { desc, rows } => {
                let no_scroll = if options.scroll || options.no_scroll {
                    options.no_scroll
                } else {
                    !plain_table_read
                };
                (desc, Source::Query(scroll::Portal::new(rows, no_scroll)))
            }
            ExecuteResult::Command(_) | ExecuteResult::Written { .. } => {
                return Err(ExecError::new(
                    "42601",
                    "DECLARE CURSOR needs a SELECT or SUBSCRIBE",
                ))
            }
        };
        Ok(Cursor {
            desc,
            options,
            in_open_block: in_block,
            source,
        })
    }

    /// FETCH (`is_move` false) or MOVE: the rows fetched, or how many rows MOVE passed. A
    /// subscription waits for its first row until `timeout` (forever with `None`; a
    /// CancelRequest drops the waiting statement).
    pub async fn fetch(
        &mut self,
        direction: FetchDirection,
        is_move: bool,
        timeout: Option<Duration>,
    ) -> Result<(Vec<Row>, u64), ExecError> {
        let implicit = !self.options.scroll && !self.options.no_scroll;
        match &mut self.source {
            Source::Query(portal) => match portal.fetch(direction, is_move) {
                Ok(f) => Ok((f.rows, f.count)),
                Err(e) if implicit => Err(e.with_detail(
                    "kpg lets a cursor declared without SCROLL move backward only over a plain \
                     read of one table; PostgreSQL decides it from its plan.",
                )),
                Err(e) => Err(e),
            },
            Source::Subscribe { .. } => {
                let limit = match direction {
                    FetchDirection::Forward(None) => usize::MAX,
                    FetchDirection::Forward(Some(n)) if n >= 0 => n as usize,
                    _ => {
                        return Err(scroll::only_forward().with_detail(
                            "A SUBSCRIBE cursor moves forward only: NEXT, FORWARD n, n or ALL.",
                        ))
                    }
                };
                let rows = self.next_updates(limit, timeout).await?;
                let n = rows.len() as u64;
                Ok((if is_move { Vec::new() } else { rows }, n))
            }
        }
    }

    /// Up to `limit` rows of a subscription, waiting for the first until `timeout`.
    async fn next_updates(
        &mut self,
        limit: usize,
        timeout: Option<Duration>,
    ) -> Result<Vec<Row>, ExecError> {
        if self.ready() == 0 && limit > 0 {
            if let Some(sub) = self.subscription() {
                match wait(sub.rx.recv(), timeout).await {
                    Waited::Event(event) => self.take(event)?,
                    Waited::TimedOut => {}
                }
            }
        }
        // Whatever else is ready, without waiting.
        while self.ready() < limit {
            let Some(sub) = self.subscription() else {
                break;
            };
            match sub.rx.try_recv() {
                Ok(event) => self.take(Some(event))?,
                Err(tokio::sync::mpsc::error::TryRecvError::Empty) => break,
                Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => self.take(None)?,
            }
        }
        let Source::Subscribe { rows, .. } = &mut self.source else {
            return Ok(Vec::new());
        };
        let n = limit.min(rows.len());
        Ok(rows.drain(..n).collect())
    }

    fn ready(&self) -> usize {
        match &self.source {
            Source::Subscribe { rows, .. } => rows.len(),
            Source::Query(_) => 0,
        }
    }

    fn subscription(&mut self) -> Option<&mut Subscription> {
        match &mut self.source {
            Source::Subscribe { subscription, .. } => subscription.as_mut(),
            Source::Query(_) => None,
        }
    }

    /// Adds a subscription event's rows; `None` means the subscription ended.
    fn take(&mut self, event: Option<SubscribeEvent>) -> Result<(), ExecError> {
        let arity = self.desc.arity();
        let Source::Subscribe { rows, subscription } = &mut self.source else {
            return Ok(());
        };
        let progress = subscription.as_ref().is_some_and(|s| s.progress);
        match event_rows(event, progress, arity)? {
            Some(new) => rows.extend(new),
            None => *subscription = None,
        }
        Ok(())
    }
}

/// The rows (of `subscribe_desc`'s columns, `arity` of them) a subscription's event adds:
/// one per update, or one progress row; `None` when the subscription ended.
pub(crate) fn event_rows(
    event: Option<SubscribeEvent>,
    progress: bool,
    arity: usize,
) -> Result<Option<Vec<Row>>, ExecError> {
    Ok(Some(match event {
        Some(SubscribeEvent::Updates(updates)) => updates
            .into_iter()
            .map(|(time, diff, row)| {
                let mut datums = vec![Datum::Int64(time as i64)];
                if progress {
                    datums.push(Datum::Bool(false));
                }
                datums.push(Datum::Int64(diff));
                datums.extend(row.datums());
                Row::new(datums)
            })
            .collect(),
        Some(SubscribeEvent::Progress(time)) => {
            let mut datums = vec![Datum::Int64(time as i64), Datum::Bool(true)];
            datums.resize(arity, Datum::Null);
            vec![Row::new(datums)]
        }
        Some(SubscribeEvent::Error(e)) => return Err(ExecError::from(e)),
        None => return Ok(None),
    }))
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

/// Ends the session's transaction block: held cursors outlive a COMMIT (and those declared
/// before the block a ROLLBACK), the others end.
pub async fn end_transaction(cursors: &Cursors, committed: bool) {
    let mut cursors = cursors.lock().await;
    cursors.retain(|_, c| c.options.hold && (committed || !c.in_open_block));
    for cursor in cursors.values_mut() {
        cursor.in_open_block = false;
    }
}

/// The columns of the cursor `name` and whether it is BINARY, if the session has it: a
/// cursor is a portal too, which a client may Describe by its name (psycopg's server-side
/// cursors do).
pub async fn portal_desc(name: &str, cursors: &Cursors) -> Option<(RelationDesc, bool)> {
    let cursors = cursors.lock().await;
    let cursor = cursors.get(name)?;
    Some((cursor.desc.clone(), cursor.options.binary))
}

/// Whether `stmt` is a FETCH from a BINARY cursor, whose rows go in binary where text was
/// asked for (the simple protocol).
pub async fn fetches_binary(planned: &PlannedStatement, cursors: &Cursors) -> bool {
    let PlannedStatement::Fetch(Fetch { name, .. }) = planned else {
        return false;
    };
    cursors
        .lock()
        .await
        .get(name)
        .is_some_and(|c| c.options.binary)
}

/// What Describe answers for a cursor statement of the extended protocol: `Some(Some(desc))`
/// for a FETCH (the cursor's columns; none if there is no such cursor yet, as the FETCH will
/// fail), `Some(None)` for DECLARE, MOVE and CLOSE (no rows), `None` for other statements.
pub async fn describe(
    planned: &PlannedStatement,
    cursors: &Cursors,
) -> Option<Option<RelationDesc>> {
    match planned {
        PlannedStatement::Fetch(Fetch {
            name,
            is_move: false,
            ..
        }) => Some(cursors.lock().await.get(name).map(|c| c.desc.clone())),
        PlannedStatement::Declare { .. }
        | PlannedStatement::Fetch(_)
        | PlannedStatement::Close { .. } => Some(None),
        _ => None,
    }
}

/// Runs a cursor statement (DECLARE, FETCH, MOVE, CLOSE), planned at catalog generation
/// `generation`, for a session; `None` if `planned` is not one. `in_block` says whether a
/// transaction block is open (the session refuses every cursor statement in a failed one, as
/// PostgreSQL does).
pub async fn run(
    planned: PlannedStatement,
    generation: u64,
    cursors: &Cursors,
    coord: &Arc<Coordinator>,
    in_block: bool,
) -> Option<Result<ExecuteResult, ExecError>> {
    Some(match planned {
        PlannedStatement::Declare {
            name,
            options,
            target,
            plan,
        } => {
            // PostgreSQL analyses the options and the query before it looks at the block and
            // the cursor's name.
            if let Err(e) = check_options(&options) {
                return Some(Err(e));
            }
            let planned = match plan {
                // Planned with the DECLARE's values, if it had parameters.
                Ok(plan) => Planned {
                    plan: *plan,
                    generation,
                    bound: None,
                },
                Err(e) => return Some(Err(e.into())),
            };
            if !in_block && !options.hold {
                return Some(Err(ExecError::new(
                    "25P01",
                    "DECLARE CURSOR can only be used in transaction blocks",
                )));
            }
            if cursors.lock().await.contains_key(&name) {
                return Some(Err(ExecError::new(
                    "42P03",
                    format!("cursor \"{name}\" already exists"),
                )));
            }
            match Cursor::declare(coord, options, &target, planned, in_block).await {
                Ok(cursor) => {
                    cursors.lock().await.insert(name, cursor);
                    Ok(ExecuteResult::Command("DECLARE CURSOR".into()))
                }
                Err(e) => Err(e),
            }
        }
        PlannedStatement::Fetch(Fetch {
            name,
            direction,
            is_move,
            timeout,
        }) => {
            let mut cursors = cursors.lock().await;
            let Some(cursor) = cursors.get_mut(&name) else {
                return Some(Err(ExecError::new(
                    "34000",
                    format!("cursor \"{name}\" does not exist"),
                )));
            };
            match cursor.fetch(direction, is_move, timeout).await {
                Ok((_, count)) if is_move => Ok(ExecuteResult::Command(format!("MOVE {count}"))),
                Ok((rows, _)) => Ok(ExecuteResult::Rows {
                    desc: cursor.desc.clone(),
                    rows,
                }),
                Err(e) => Err(e),
            }
        }
        PlannedStatement::Close { name } => {
            let mut cursors = cursors.lock().await;
            match &name {
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
            Ok(ExecuteResult::Command(
                if name.is_some() {
                    "CLOSE CURSOR"
                } else {
                    "CLOSE CURSOR ALL"
                }
                .into(),
            ))
        }
        _ => return None,
    })
}
