//! A session: what kpg keeps for one connection — its session variables, its transaction
//! block, its cursors, a COPY FROM in progress, its prepared statements and portals — and
//! the sequencer (`sequence.rs`) that runs each of its statements and says what came of it
//! (`Outcome`), which the wire protocol layer (`pgwire_server.rs`) only encodes.

pub(crate) mod float_digits;
pub mod portals;
mod sequence;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use kpg_types::RelationDesc;

use crate::coord::ExecuteResult;
use crate::copy_in::CopyIn;
use crate::cursors::Cursors;
use crate::error::ExecError;
use crate::session_vars::SessionVars;
use crate::txn::{SharedTxn, Txn, TxnOutcome};

/// What came of one statement, for the wire protocol to encode.
pub enum Outcome {
    /// A result (rows, a command tag, a subscription); `binary`: a FETCH from a BINARY cursor,
    /// whose rows go in binary even where text was asked for; `fetch`: tagged `FETCH n`.
    Result {
        result: ExecuteResult,
        binary: bool,
        fetch: bool,
    },
    /// COPY FROM STDIN has started: the client sends lines of `width` fields.
    CopyIn {
        width: usize,
    },
    /// COPY TO STDOUT: the data lines of a result of `desc`'s columns.
    CopyOut {
        desc: RelationDesc,
        lines: Vec<String>,
    },
    /// BEGIN.
    TransactionStart,
    /// COMMIT or ROLLBACK, with the tag that ended it.
    TransactionEnd(&'static str),
    /// A command that returns only its tag (SAVEPOINT, RELEASE, ROLLBACK TO).
    Tag(&'static str),
    Error(ExecError),
}

impl Outcome {
    /// A plain result.
    pub fn of(result: ExecuteResult) -> Outcome {
        Outcome::Result {
            result,
            binary: false,
            fetch: false,
        }
    }
}

/// The state kpg keeps per connection: the user it connected as, its transaction block, a
/// COPY FROM in progress, its prepared statements and portals, its cursors and its session
/// variables.
pub struct Session {
    /// The user named in the startup message (`current_user`, `session_user`); any user may
    /// connect, and every object is owned by the one role `kpg`.
    user: Arc<str>,
    /// The statement context last computed from the session's date settings, with the
    /// settings it was computed from (parsing them took ~5% of a small INSERT's session time).
    context: Arc<Mutex<Option<CachedContext>>>,
    /// The output style last computed from the session's variables, with the values it was
    /// computed from (`SessionVars::output_settings`; parsing them cost ~3% of the session's
    /// time of a small INSERT, once or twice per statement).
    output: Arc<Mutex<Option<CachedStyle>>>,
    pub(crate) txn: SharedTxn,
    pub(crate) copy: Arc<Mutex<Option<CopyIn>>>,
    /// Its prepared statements and portals, as the wire protocol layer makes them.
    pub(crate) portals: Arc<Mutex<crate::pgwire_server::Portals>>,
    pub(crate) cursors: Arc<Cursors>,
    pub(crate) vars: Arc<Mutex<SessionVars>>,
    /// The variables as they were at BEGIN, restored if the block rolls back.
    pub(crate) vars_at_begin: Arc<Mutex<Option<SessionVars>>>,
    /// Set when an extended-protocol COPY FROM STDIN ended well: pgwire then waits for Sync as
    /// it does after an error, and the Sync must not take it for one.
    pub(crate) copy_ended: Arc<AtomicBool>,
}

/// An output style and the values it was made of (`SessionVars::output_settings`).
type CachedStyle = ([String; 5], kpg_types::OutputStyle);

impl Session {
    /// The session's output style (`SessionVars::output_style`), made again only when one of
    /// the variables it is made of changed.
    pub fn output_style(&self) -> kpg_types::OutputStyle {
        let vars = self.vars.lock().expect("session variables");
        let settings = vars.output_settings();
        let mut cached = self.output.lock().expect("output style");
        match cached.as_ref() {
            Some((made_of, style)) if *made_of == settings => style.clone(),
            _ => {
                let style = vars.output_style();
                *cached = Some((settings.map(str::to_string), style.clone()));
                style
            }
        }
    }
}

/// A statement context and the `TimeZone`, `DateStyle` and `IntervalStyle` values it was
/// computed from.
struct CachedContext {
    settings: [String; 3],
    context: crate::statement_context::StatementContext,
}

impl Session {
    /// What planning and running a statement read of this session (`statement_context.rs`).
    pub fn statement_context(&self) -> crate::statement_context::StatementContext {
        let start = self.txn.lock().expect("txn").started_at();
        let vars = self.vars.lock().expect("session variables");
        let settings = [vars.time_zone(), vars.datestyle(), vars.interval_style()];
        let mut cached = self.context.lock().expect("statement context");
        match cached.as_ref() {
            Some(c) if c.settings == settings => crate::statement_context::StatementContext {
                user: Arc::clone(&self.user),
                transaction_start: start,
                statement_start: chrono::Utc::now().naive_utc(),
                ..c.context.clone()
            },
            _ => {
                let mut context = crate::session_dates::statement_context(
                    settings[0],
                    settings[1],
                    settings[2],
                    start,
                );
                context.user = Arc::clone(&self.user);
                *cached = Some(CachedContext {
                    settings: settings.map(str::to_string),
                    context: context.clone(),
                });
                context
            }
        }
    }

    /// Saves the session variables at BEGIN; restores them when the block rolls back (also a
    /// COMMIT that fails or ends a failed block), forgets them at COMMIT.
    pub(crate) fn vars_follow_transaction(&self, outcome: &Result<TxnOutcome, ExecError>) {
        let mut saved = self.vars_at_begin.lock().expect("session variables");
        match outcome {
            Ok(TxnOutcome::Started) if saved.is_none() => {
                let mut vars = self.vars.lock().expect("session variables");
                *saved = Some(vars.clone());
                vars.begin_block();
            }
            Ok(TxnOutcome::Started) => {}
            Ok(TxnOutcome::Ended("COMMIT")) => {
                *saved = None;
                self.vars.lock().expect("session variables").end_block();
            }
            Ok(TxnOutcome::Ended(_)) | Err(_) => {
                if let Some(vars) = saved.take() {
                    // Saved inside a multi-statement string's implicit block, the copy says a
                    // block is open; none is once the explicit one has ended.
                    *self.vars.lock().expect("session variables") = outside_block(vars);
                }
            }
        }
    }
}

impl Session {
    /// A new session of `user` with the variables `vars` (its startup parameters).
    pub fn new(user: &str, vars: SessionVars) -> Session {
        Session {
            user: Arc::from(user),
            context: Arc::new(Mutex::new(None)),
            output: Arc::new(Mutex::new(None)),
            txn: Arc::new(Mutex::new(Txn::default())),
            copy: Arc::new(Mutex::new(None)),
            portals: Arc::new(Mutex::new(Default::default())),
            cursors: Arc::new(Cursors::default()),
            vars: Arc::new(Mutex::new(vars)),
            vars_at_begin: Arc::new(Mutex::new(None)),
            copy_ended: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A copy of the session's variables, outside any block.
    pub fn vars_now(&self) -> SessionVars {
        outside_block(self.vars.lock().expect("session variables").clone())
    }
}

/// `vars` with the block they were taken in (if any) ended.
pub fn outside_block(mut vars: SessionVars) -> SessionVars {
    if vars.in_block() {
        vars.end_block();
    }
    vars
}
