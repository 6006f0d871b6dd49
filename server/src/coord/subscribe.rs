//! Subscriptions: a maintained dataflow over a query whose changes stream to one session, from
//! a snapshot at its start time (the current read time, or AS OF) on; the dispatcher
//! (`dispatch.rs`) releases them in timestamp order.

use std::sync::Arc;

use kpg_types::{DataflowDescription, DataflowSink, Plan};
use tokio::sync::mpsc;

use super::{dispatch, Coordinator, DataflowGuard, State, Subscription};
use crate::error::ExecError;

impl Coordinator {
    /// The earliest time at which `plan`'s inputs are all readable (not compacted away, and
    /// existing).
    pub(super) fn read_since(state: &State, plan: &Plan) -> u64 {
        let mut since = state.since;
        plan.visit(&mut |p| {
            let id = match p {
                Plan::Get { id } => *id,
                Plan::IndexedGet { index, .. } => *index,
                _ => return,
            };
            since = since.max(state.object_since.get(&id).copied().unwrap_or(0));
        });
        since
    }

    /// Starts a subscription to `plan`: a snapshot at its start time (the current read time
    /// unless AS OF says otherwise), then every change.
    pub(super) fn subscribe(
        self: &Arc<Self>,
        plan: Plan,
        options: kpg_sql::SubscribeOptions,
    ) -> Result<Subscription, ExecError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut state = self.lock();
        let mut plan = Self::optimize(&state, plan)?;
        Self::check_imports(&state, &plan)?;
        Self::check_maintainable(&plan)?;
        // A subscription lives with its session: it follows the session's zone.
        plan.bind_session_zone(&crate::statement_context::time_zone());
        let valid_from = Self::read_since(&state, &plan);
        let as_of = match options.as_of {
            None => state.upper - 1,
            Some(t) if options.at_least => t.max(valid_from),
            Some(t) if t < valid_from => {
                return Err(ExecError::new(
                    "22023",
                    format!(
                        "Timestamp ({t}) is not valid for all inputs: the earliest readable \
                         time is {valid_from}"
                    ),
                ))
            }
            Some(t) => t,
        };
        let id = state.transient.allocate();
        let progress = options.progress;
        state.subscribes.insert(
            id,
            dispatch::SubscribeState::new(self.compute.workers(), tx, as_of, options),
        );
        let desc = DataflowDescription {
            name: format!("subscribe-{}", crate::catalog::ids::shown(id)),
            plan,
            as_of,
            sink: DataflowSink::Subscribe { subscribe_id: id },
        };
        self.install(&mut state, id, desc);
        Ok(Subscription {
            rx,
            progress,
            _guard: DataflowGuard {
                coord: Arc::clone(self),
                id,
            },
        })
    }
}
