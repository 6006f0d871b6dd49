//! The crash test of issue 18: kpg is killed with SIGKILL at random moments under a mixed load,
//! restarted on the same data directory, and checked against a real PostgreSQL.
//!
//! Four writer connections run random INSERTs (multi-row, some meant to fail on a duplicate
//! key), UPDATE ... WHERE, DELETE ... WHERE, `COPY ... FROM STDIN` and BEGIN/INSERT/COMMIT
//! blocks on two tables with primary keys; each writer owns its rows (column `owner`), so the
//! writers' statements commute. A fifth connection creates and drops materialized views, plain
//! views and indexes, a sixth reads views, and a counter load generator runs. Every write is
//! logged with its outcome: acknowledged, refused (an error from kpg; PostgreSQL must refuse it
//! too), cut off before its commit point was sent (it must not be applied), or unknown (the
//! connection died while kpg may have committed it). After each restart, PostgreSQL is fed the
//! acknowledged writes (with the same row counts); each writer's rows in kpg must then equal
//! PostgreSQL's, either without or with its unknown write (all or nothing); acknowledged catalog
//! changes must be there and unacknowledged ones absent; whole tables, fixed views (joins,
//! aggregates, a view over a view), the surviving dynamic views and lookups through the
//! surviving indexes must equal PostgreSQL's plain views and queries; the load generator must
//! have resumed where it was (every value read before the kill still there, no gaps) and tick.
//!
//! `KPG_CRASH_KILLS` sets the number of kills (default 5, as in CI; `scripts/crash-test.sh` runs
//! 20), `KPG_CRASH_SEED` the seed (printed at the start, so a failure's statements can be
//! replayed; the kill moments still depend on timing).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use futures::SinkExt;
use kpg_tests::tokio_postgres::{Client, SimpleQueryMessage};
use kpg_tests::*;

/// Writer connections (each owns the rows with `owner` = its number).
const WRITERS: i64 = 4;
/// Longest a single statement may take before the test calls it hung.
const HANG: Duration = Duration::from_secs(30);

const SCHEMA: &[&str] = &[
    "CREATE TABLE items (id int4 PRIMARY KEY, owner int4 NOT NULL, batch int4 NOT NULL, \
     v int4, note text)",
    "CREATE TABLE links (id int4 PRIMARY KEY, owner int4 NOT NULL, batch int4 NOT NULL, \
     item int4, grp int4 NOT NULL, amount numeric(12,2))",
];

/// Views created once at the start: materialized on kpg, plain on PostgreSQL.
const FIXED_VIEWS: &[(&str, &str)] = &[
    (
        "mv_owner",
        "SELECT owner, count(*) AS n, sum(v) AS sv, min(note) AS lo, max(batch) AS mb \
         FROM items GROUP BY owner",
    ),
    (
        "mv_join",
        "SELECT i.owner, l.grp, count(*) AS n, sum(l.amount) AS amt, sum(i.v) AS sv \
         FROM items i JOIN links l ON l.item = i.id GROUP BY i.owner, l.grp",
    ),
    (
        "mv_orphans",
        "SELECT l.id, l.item, l.amount FROM links l LEFT JOIN items i ON i.id = l.item \
         WHERE i.id IS NULL",
    ),
    ("mv_mod3", "SELECT id, v, note FROM items WHERE v % 3 = 0"),
    ("mv_stack", "SELECT owner, n FROM mv_owner WHERE n > 2"),
    ("mv_grp", "SELECT DISTINCT grp, owner FROM links"),
];

/// Notes: quotes, backslashes, tabs, newlines, non-ASCII, the empty string, `NULL` and `\N`
/// as text, to exercise SQL literals and COPY's escapes.
const NOTES: &[&str] = &[
    "a",
    "b",
    "abc",
    "x y",
    "tab\there",
    "back\\slash",
    "line\nbreak",
    "quote'd",
    "é",
    "",
    "NULL",
    "\\N",
    "zz",
];

// ---------------------------------------------------------------------------------------------
// A small seeded random number generator (splitmix64)
// ---------------------------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn derive(seed: u64, a: u64, b: u64) -> Rng {
        let mut r = Rng(seed
            ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ b.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        r.next();
        r
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo) as u64) as i64
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() as i64) as usize]
    }
}

// ---------------------------------------------------------------------------------------------
// Writes and their outcomes
// ---------------------------------------------------------------------------------------------

/// One write as a client sends it.
#[derive(Clone, Debug)]
enum Write {
    /// One statement.
    Sql(String),
    /// `BEGIN`, these statements, `COMMIT`.
    Block(Vec<String>),
    /// `COPY table FROM STDIN` with this text-format data.
    Copy { table: &'static str, data: String },
}

impl std::fmt::Display for Write {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Write::Sql(sql) => write!(f, "{sql}"),
            Write::Block(stmts) => write!(f, "BEGIN; {}; COMMIT", stmts.join("; ")),
            Write::Copy { table, data } => write!(f, "COPY {table} FROM STDIN: {data:?}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    /// kpg acknowledged it (with this row count, for single statements and COPY).
    Acked(Option<u64>),
    /// kpg refused it with an error: it must not be applied.
    Refused(String),
    /// The connection died before the write reached its commit point: not applied.
    CutOff(String),
    /// The connection died after the commit point was sent: applied wholly or not at all.
    Unknown(String),
}

/// Whether an error ends the connection (a closed socket, or the server's FATAL "terminating
/// connection" on shutdown), leaving the statement's outcome unknown.
fn is_connection_error(e: &tokio_postgres::Error) -> bool {
    match e.as_db_error() {
        None => true,
        Some(db) => {
            let code = db.code().code();
            code.starts_with("57P") || code.starts_with("08")
        }
    }
}

fn count_of(msgs: &[SimpleQueryMessage]) -> Option<u64> {
    msgs.iter().rev().find_map(|m| match m {
        SimpleQueryMessage::CommandComplete(n) => Some(*n),
        _ => None,
    })
}

async fn copy_in(
    client: &Client,
    table: &str,
    data: &str,
) -> (bool, Result<u64, tokio_postgres::Error>) {
    let sink = match client.copy_in(&format!("COPY {table} FROM STDIN")).await {
        Ok(s) => s,
        Err(e) => return (false, Err(e)),
    };
    let mut sink = Box::pin(sink);
    if let Err(e) = sink
        .send(bytes::Bytes::copy_from_slice(data.as_bytes()))
        .await
    {
        return (false, Err(e));
    }
    // From here on the server may have the whole COPY (CopyDone is sent by `finish`).
    (true, sink.as_mut().finish().await)
}

/// Runs `write` on kpg and classifies the outcome.
async fn run_on_kpg(client: &Client, write: &Write) -> Outcome {
    let run = async {
        match write {
            Write::Sql(sql) => match client.simple_query(sql).await {
                Ok(msgs) => Outcome::Acked(count_of(&msgs)),
                Err(e) if is_connection_error(&e) => Outcome::Unknown(e.to_string()),
                Err(e) => Outcome::Refused(describe_error(&e)),
            },
            Write::Block(stmts) => {
                for sql in std::iter::once("BEGIN").chain(stmts.iter().map(String::as_str)) {
                    match client.simple_query(sql).await {
                        Ok(_) => {}
                        Err(e) if is_connection_error(&e) => {
                            return Outcome::CutOff(format!("at `{sql}`: {e}"))
                        }
                        Err(e) => {
                            let _ = client.simple_query("ROLLBACK").await;
                            return Outcome::Refused(format!("at `{sql}`: {}", describe_error(&e)));
                        }
                    }
                }
                match client.simple_query("COMMIT").await {
                    Ok(_) => Outcome::Acked(None),
                    Err(e) if is_connection_error(&e) => Outcome::Unknown(e.to_string()),
                    Err(e) => {
                        let _ = client.simple_query("ROLLBACK").await;
                        Outcome::Refused(format!("at COMMIT: {}", describe_error(&e)))
                    }
                }
            }
            Write::Copy { table, data } => match copy_in(client, table, data).await {
                (_, Ok(n)) => Outcome::Acked(Some(n)),
                (_, Err(e)) if !is_connection_error(&e) => Outcome::Refused(describe_error(&e)),
                (false, Err(e)) => Outcome::CutOff(e.to_string()),
                (true, Err(e)) => Outcome::Unknown(e.to_string()),
            },
        }
    };
    match tokio::time::timeout(HANG, run).await {
        Ok(outcome) => outcome,
        Err(_) => panic!("kpg did not answer `{write}` within {HANG:?}"),
    }
}

/// Runs `write` on PostgreSQL inside a transaction it opens and leaves open on success (the
/// caller commits or rolls back); on an error it rolls back.
async fn pg_begin_apply(pg: &Client, write: &Write) -> Result<Option<u64>, String> {
    pg.simple_query("BEGIN")
        .await
        .map_err(|e| describe_error(&e))?;
    let result = match write {
        Write::Sql(sql) => pg
            .simple_query(sql)
            .await
            .map(|m| count_of(&m))
            .map_err(|e| describe_error(&e)),
        Write::Block(stmts) => {
            let mut result = Ok(None);
            for sql in stmts {
                if let Err(e) = pg.simple_query(sql).await {
                    result = Err(describe_error(&e));
                    break;
                }
            }
            result
        }
        Write::Copy { table, data } => copy_in(pg, table, data)
            .await
            .1
            .map(Some)
            .map_err(|e| describe_error(&e)),
    };
    if result.is_err() {
        pg.simple_query("ROLLBACK")
            .await
            .expect("PostgreSQL ROLLBACK");
    }
    result
}

async fn pg_end(pg: &Client, commit: bool) {
    pg.simple_query(if commit { "COMMIT" } else { "ROLLBACK" })
        .await
        .expect("PostgreSQL COMMIT/ROLLBACK");
}

// ---------------------------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------------------------

/// What a writer keeps from one cycle to the next.
struct Writer {
    owner: i64,
    next_id: i64,
    next_batch: i64,
    /// Every item id it tried to insert (some were deleted or never applied).
    item_ids: Vec<i64>,
}

fn sql_text(s: Option<&str>) -> String {
    match s {
        None => "NULL".into(),
        Some(s) => format!("'{}'", s.replace('\'', "''")),
    }
}

fn copy_text(s: Option<&str>) -> String {
    match s {
        None => "\\N".into(),
        Some(s) => s
            .replace('\\', "\\\\")
            .replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r"),
    }
}

/// One row: its values as optional text, rendered for SQL or COPY.
type RowVals = Vec<Option<String>>;

fn values_sql(rows: &[RowVals], text_cols: &[usize]) -> String {
    rows.iter()
        .map(|r| {
            let vals: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    if text_cols.contains(&i) {
                        sql_text(v.as_deref())
                    } else {
                        v.clone().unwrap_or_else(|| "NULL".into())
                    }
                })
                .collect();
            format!("({})", vals.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn values_copy(rows: &[RowVals]) -> String {
    rows.iter()
        .map(|r| {
            let vals: Vec<String> = r.iter().map(|v| copy_text(v.as_deref())).collect();
            format!("{}\n", vals.join("\t"))
        })
        .collect()
}

impl Writer {
    fn new(owner: i64) -> Writer {
        Writer {
            owner,
            next_id: (owner + 1) * 10_000_000,
            next_batch: (owner + 1) * 10_000_000,
            item_ids: Vec::new(),
        }
    }

    fn batch(&mut self) -> i64 {
        self.next_batch += 1;
        self.next_batch
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// `n` new rows for `items`; with `dup`, the last repeats the id of the one before it.
    fn item_rows(&mut self, rng: &mut Rng, n: usize, dup: bool) -> Vec<RowVals> {
        let batch = self.batch();
        let mut rows = Vec::new();
        for i in 0..n {
            let id = if dup && i > 0 && i + 1 == n {
                self.next_id
            } else {
                let id = self.id();
                self.item_ids.push(id);
                id
            };
            let v = (!rng.chance(10)).then(|| rng.range(-20, 200).to_string());
            let note = (!rng.chance(10)).then(|| rng.pick(NOTES).to_string());
            rows.push(vec![
                Some(id.to_string()),
                Some(self.owner.to_string()),
                Some(batch.to_string()),
                v,
                note,
            ]);
        }
        rows
    }

    /// `n` new rows for `links`, pointing at items of this writer (possibly deleted ones).
    fn link_rows(&mut self, rng: &mut Rng, n: usize) -> Vec<RowVals> {
        let batch = self.batch();
        let mut rows = Vec::new();
        for _ in 0..n {
            let id = self.id();
            let item = if self.item_ids.is_empty() || rng.chance(10) {
                None
            } else {
                Some(rng.pick(&self.item_ids).to_string())
            };
            let amount = (!rng.chance(10))
                .then(|| format!("{}.{:02}", rng.range(-100, 1000), rng.range(0, 100)));
            rows.push(vec![
                Some(id.to_string()),
                Some(self.owner.to_string()),
                Some(batch.to_string()),
                item,
                Some(rng.range(0, 5).to_string()),
                amount,
            ]);
        }
        rows
    }

    fn insert_items(&mut self, rng: &mut Rng, dup: bool) -> String {
        let n = rng.range(if dup { 2 } else { 1 }, 6) as usize;
        let rows = self.item_rows(rng, n, dup);
        format!("INSERT INTO items VALUES {}", values_sql(&rows, &[4]))
    }

    fn insert_links(&mut self, rng: &mut Rng) -> String {
        let n = rng.range(1, 5) as usize;
        let rows = self.link_rows(rng, n);
        format!("INSERT INTO links VALUES {}", values_sql(&rows, &[]))
    }

    /// A random write on this writer's rows.
    fn next_write(&mut self, rng: &mut Rng) -> Write {
        let w = self.owner;
        let roll = rng.range(0, 100);
        match roll {
            0..=24 => {
                let dup = rng.chance(6);
                Write::Sql(self.insert_items(rng, dup))
            }
            25..=34 => Write::Sql(self.insert_links(rng)),
            35..=44 => {
                let b = self.batch();
                let (m, k) = (rng.range(2, 6), rng.range(-5, 10));
                let r = rng.range(0, m);
                Write::Sql(format!(
                    "UPDATE items SET v = v + {k}, batch = {b} WHERE owner = {w} AND id % {m} = {r}"
                ))
            }
            45..=49 => {
                let b = self.batch();
                let lo = rng.range(-20, 150);
                let note = sql_text(Some(*rng.pick(NOTES)));
                Write::Sql(format!(
                    "UPDATE items SET note = {note}, batch = {b} \
                     WHERE owner = {w} AND v BETWEEN {lo} AND {}",
                    lo + 30
                ))
            }
            50..=54 => {
                let b = self.batch();
                let m = rng.range(2, 5);
                let r = rng.range(0, m);
                Write::Sql(format!(
                    "UPDATE links SET amount = amount + 1.25, grp = (grp + 1) % 5, batch = {b} \
                     WHERE owner = {w} AND id % {m} = {r}"
                ))
            }
            55..=61 => {
                let m = rng.range(5, 12);
                let r = rng.range(0, m);
                Write::Sql(format!(
                    "DELETE FROM items WHERE owner = {w} AND id % {m} = {r}"
                ))
            }
            62..=64 => Write::Sql(format!(
                "DELETE FROM items WHERE owner = {w} AND (v IS NULL OR note = {})",
                sql_text(Some(*rng.pick(NOTES)))
            )),
            65..=69 => Write::Sql(format!(
                "DELETE FROM links WHERE owner = {w} AND (amount < {} OR amount IS NULL)",
                rng.range(-100, 100)
            )),
            70..=84 => {
                let (table, rows) = if rng.chance(70) {
                    let n = rng.range(2, 20) as usize;
                    let dup = rng.chance(6);
                    ("items", self.item_rows(rng, n, dup))
                } else {
                    let n = rng.range(2, 12) as usize;
                    ("links", self.link_rows(rng, n))
                };
                Write::Copy {
                    table,
                    data: values_copy(&rows),
                }
            }
            _ => {
                let n = rng.range(1, 4);
                let mut stmts = Vec::new();
                for _ in 0..n {
                    if rng.chance(60) {
                        stmts.push(self.insert_items(rng, false));
                    } else {
                        stmts.push(self.insert_links(rng));
                    }
                }
                if rng.chance(8) {
                    // A later statement repeating an id: the whole block is refused.
                    stmts.push(self.insert_items(rng, true));
                }
                Write::Block(stmts)
            }
        }
    }

    /// Runs random writes until the connection dies; the log of this cycle.
    async fn run(mut self, client: Client, mut rng: Rng) -> (Writer, Vec<(Write, Outcome)>) {
        let mut log = Vec::new();
        loop {
            let write = self.next_write(&mut rng);
            let outcome = run_on_kpg(&client, &write).await;
            let done = matches!(outcome, Outcome::Unknown(_) | Outcome::CutOff(_));
            log.push((write, outcome));
            if done {
                return (self, log);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Catalog changes
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    MaterializedView,
    View,
    Index,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Presence {
    Present,
    Absent,
    Unknown,
}

/// A dynamic catalog object: for views, their query; for indexes, their `ON` clause and a
/// lookup that may use them.
#[derive(Clone, Debug)]
struct Object {
    kind: Kind,
    sql: String,
    lookup: String,
    presence: Presence,
}

const VIEW_TEMPLATES: &[&str] = &[
    "SELECT owner, count(*) AS n FROM items WHERE v > {k} GROUP BY owner",
    "SELECT l.grp, max(i.note) AS mx, count(*) AS n FROM links l JOIN items i ON i.id = l.item \
     GROUP BY l.grp",
    "SELECT id, note FROM items WHERE note LIKE '%{c}%'",
    "SELECT grp, sum(amount) AS s, count(*) AS c FROM links GROUP BY grp HAVING count(*) > {m}",
    "SELECT i.id, i.v, l.amount FROM items i LEFT JOIN links l ON l.item = i.id WHERE i.v < {k}",
    "SELECT owner, count(DISTINCT v) AS dv FROM items GROUP BY owner",
];

const INDEX_TEMPLATES: &[(&str, &str)] = &[
    ("items (v)", "SELECT * FROM items WHERE v = {k}"),
    ("items (note)", "SELECT id, v FROM items WHERE note = 'a'"),
    ("links (grp)", "SELECT * FROM links WHERE grp = {m}"),
    (
        "links (item)",
        "SELECT l.id, i.v FROM links l JOIN items i ON l.item = i.id WHERE i.v = {k}",
    ),
];

fn fill(template: &str, rng: &mut Rng) -> String {
    template
        .replace("{k}", &rng.range(-10, 150).to_string())
        .replace("{m}", &rng.range(0, 4).to_string())
        .replace("{c}", ["a", "b", "e", "z"][rng.range(0, 4) as usize])
}

struct Ddl {
    next: u64,
    objects: BTreeMap<String, Object>,
}

impl Ddl {
    fn present(&self, kind: Kind) -> Vec<String> {
        self.objects
            .iter()
            .filter(|(_, o)| o.kind == kind && o.presence == Presence::Present)
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Creates and drops objects until the connection dies; the log of this cycle as
    /// (name, created?, statement, outcome).
    async fn run(
        mut self,
        client: Client,
        mut rng: Rng,
    ) -> (Ddl, Vec<(String, bool, String, Outcome)>) {
        let mut log = Vec::new();
        loop {
            tokio::time::sleep(Duration::from_millis(rng.range(5, 40) as u64)).await;
            let kind = *rng.pick(&[Kind::MaterializedView, Kind::View, Kind::Index]);
            let present = self.present(kind);
            let create = present.len() < 2 || (present.len() < 6 && rng.chance(55));
            let (name, sql) = if create {
                self.next += 1;
                let (prefix, object) = match kind {
                    Kind::Index => {
                        let (on, lookup) = rng.pick(INDEX_TEMPLATES);
                        let lookup = fill(lookup, &mut rng);
                        ("di", (on.to_string(), lookup))
                    }
                    _ => {
                        let template: &&str = rng.pick(VIEW_TEMPLATES);
                        let prefix = if kind == Kind::View { "pv" } else { "dv" };
                        (prefix, (fill(template, &mut rng), String::new()))
                    }
                };
                let name = format!("{prefix}_{}", self.next);
                let sql = match kind {
                    Kind::MaterializedView => {
                        format!("CREATE MATERIALIZED VIEW {name} AS {}", object.0)
                    }
                    Kind::View => format!("CREATE VIEW {name} AS {}", object.0),
                    Kind::Index => format!("CREATE INDEX {name} ON {}", object.0),
                };
                self.objects.insert(
                    name.clone(),
                    Object {
                        kind,
                        sql: object.0,
                        lookup: object.1,
                        presence: Presence::Absent,
                    },
                );
                (name, sql)
            } else {
                let name = rng.pick(&present).clone();
                let sql = match kind {
                    Kind::MaterializedView => format!("DROP MATERIALIZED VIEW {name}"),
                    Kind::View => format!("DROP VIEW {name}"),
                    Kind::Index => format!("DROP INDEX {name}"),
                };
                (name, sql)
            };
            let outcome = run_on_kpg(&client, &Write::Sql(sql.clone())).await;
            let object = self.objects.get_mut(&name).unwrap();
            match outcome {
                Outcome::Acked(_) => {
                    object.presence = if create {
                        Presence::Present
                    } else {
                        Presence::Absent
                    }
                }
                Outcome::Unknown(_) => object.presence = Presence::Unknown,
                _ => {}
            }
            let done = matches!(outcome, Outcome::Unknown(_) | Outcome::CutOff(_));
            log.push((name, create, sql, outcome));
            if done {
                return (self, log);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

async fn rows_of(client: &Client, sql: &str, what: &str) -> Rows {
    match simple(client, sql).await {
        Ok(r) => sorted(r.rows),
        Err(e) => panic!("{what} failed `{sql}`: {}", describe_error(&e)),
    }
}

/// The rows of one writer in both tables, tagged with the table.
async fn owner_rows(client: &Client, owner: i64, what: &str) -> Rows {
    let mut all = Vec::new();
    for table in ["items", "links"] {
        for mut r in rows_of(
            client,
            &format!("SELECT * FROM {table} WHERE owner = {owner}"),
            what,
        )
        .await
        {
            r.insert(0, Some(table.to_string()));
            all.push(r);
        }
    }
    all.sort();
    all
}

fn difference(a: &Rows, b: &Rows) -> String {
    let bs: BTreeSet<&Vec<Option<String>>> = b.iter().collect();
    let only: Rows = a.iter().filter(|r| !bs.contains(r)).cloned().collect();
    show(&only)
}

fn show_log(log: &[(Write, Outcome)]) -> String {
    log.iter()
        .enumerate()
        .map(|(i, (w, o))| format!("  {i:3} {o:?}: {w}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Names of the objects kpg lists with `show` (its first column).
async fn names(kpg: &Client, show_sql: &str) -> BTreeSet<String> {
    rows_of(kpg, show_sql, "kpg")
        .await
        .into_iter()
        .filter_map(|r| r[0].clone())
        .collect()
}

/// Compares a query's rows on kpg and PostgreSQL.
async fn same(kpg: &Client, pg: &Client, sql: &str, context: &str) {
    let k = rows_of(kpg, sql, "kpg").await;
    let p = rows_of(pg, sql, "PostgreSQL").await;
    if k != p {
        panic!(
            "{context}: `{sql}` differs from PostgreSQL\n--- only in kpg:\n{}\n--- only in \
             PostgreSQL:\n{}\n({} rows in kpg, {} in PostgreSQL)",
            difference(&k, &p),
            difference(&p, &k),
            k.len(),
            p.len()
        );
    }
}

/// Counts of what happened in a cycle, for the summary line.
#[derive(Default, Debug)]
struct Tally {
    acked: usize,
    acked_copies: usize,
    acked_blocks: usize,
    refused: usize,
    cut_off: usize,
    unknown_applied: usize,
    unknown_not_applied: usize,
    ddl_acked: usize,
    reads: usize,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.acked += other.acked;
        self.acked_copies += other.acked_copies;
        self.acked_blocks += other.acked_blocks;
        self.refused += other.refused;
        self.cut_off += other.cut_off;
        self.unknown_applied += other.unknown_applied;
        self.unknown_not_applied += other.unknown_not_applied;
        self.ddl_acked += other.ddl_acked;
        self.reads += other.reads;
    }

    fn summary(&self) -> String {
        format!(
            "{} writes acknowledged ({} COPY, {} blocks), {} refused, {} cut off, unknown {} \
             applied / {} not; {} catalog changes acknowledged; {} reads",
            self.acked,
            self.acked_copies,
            self.acked_blocks,
            self.refused,
            self.cut_off,
            self.unknown_applied,
            self.unknown_not_applied,
            self.ddl_acked,
            self.reads
        )
    }
}

/// Feeds PostgreSQL the writers' acknowledged statements, resolves unknown ones, and checks
/// each writer's rows in kpg against PostgreSQL's.
async fn check_writes(
    kpg: &Client,
    pg: &Client,
    logs: &[Vec<(Write, Outcome)>],
    context: &str,
    tally: &mut Tally,
) {
    for (owner, log) in logs.iter().enumerate() {
        let owner = owner as i64;
        let mut unknown = None;
        for (i, (write, outcome)) in log.iter().enumerate() {
            match outcome {
                Outcome::Acked(count) => {
                    tally.acked += 1;
                    match write {
                        Write::Copy { .. } => tally.acked_copies += 1,
                        Write::Block(_) => tally.acked_blocks += 1,
                        Write::Sql(_) => {}
                    }
                    let pg_count = match pg_begin_apply(pg, write).await {
                        Ok(n) => n,
                        Err(e) => panic!(
                            "{context}: PostgreSQL refuses `{write}`, which kpg acknowledged: \
                             {e}\nwriter {owner}'s log:\n{}",
                            show_log(log)
                        ),
                    };
                    pg_end(pg, true).await;
                    assert_eq!(
                        *count,
                        pg_count,
                        "{context}: kpg acknowledged `{write}` with row count {count:?}, \
                         PostgreSQL's is {pg_count:?} (kpg had different rows before it?)\n\
                         writer {owner}'s log:\n{}",
                        show_log(log)
                    );
                }
                Outcome::Refused(why) => {
                    tally.refused += 1;
                    if pg_begin_apply(pg, write).await.is_ok() {
                        pg_end(pg, false).await;
                        panic!(
                            "{context}: kpg refused `{write}` ({why}) but PostgreSQL accepts it"
                        );
                    }
                }
                Outcome::CutOff(_) => tally.cut_off += 1,
                Outcome::Unknown(_) => {
                    assert_eq!(i + 1, log.len(), "an unknown outcome ends a writer's cycle");
                    unknown = Some(write);
                }
            }
        }
        let k = owner_rows(kpg, owner, "kpg").await;
        let p = owner_rows(pg, owner, "PostgreSQL").await;
        if k == p {
            if unknown.is_some() {
                tally.unknown_not_applied += 1;
            }
            continue;
        }
        let diff_without = format!(
            "--- only in kpg:\n{}\n--- only in PostgreSQL:\n{}",
            difference(&k, &p),
            difference(&p, &k)
        );
        if let Some(write) = unknown {
            if pg_begin_apply(pg, write).await.is_ok() {
                let with = owner_rows(pg, owner, "PostgreSQL").await;
                if with == k {
                    pg_end(pg, true).await;
                    tally.unknown_applied += 1;
                    continue;
                }
                pg_end(pg, false).await;
                panic!(
                    "{context}: writer {owner}'s rows in kpg are neither PostgreSQL's after its \
                     acknowledged writes nor those plus its last, unknown write `{write}` \
                     (an acknowledged write lost, or a write half applied)\n\
                     without the unknown write:\n{diff_without}\n\
                     with it:\n--- only in kpg:\n{}\n--- only in PostgreSQL:\n{}\n\
                     writer {owner}'s log this cycle:\n{}",
                    difference(&k, &with),
                    difference(&with, &k),
                    show_log(log)
                );
            }
        }
        panic!(
            "{context}: writer {owner}'s rows in kpg differ from PostgreSQL's after the \
             acknowledged writes (an acknowledged write lost, or a refused or cut-off one \
             applied)\n{diff_without}\nwriter {owner}'s log this cycle:\n{}",
            show_log(log)
        );
    }
}

/// Resolves unknown catalog changes from kpg's catalog and checks the known ones.
async fn check_catalog(kpg: &Client, ddl: &mut Ddl, context: &str) {
    let fixed: BTreeSet<String> = FIXED_VIEWS
        .iter()
        .map(|(n, _)| n.to_string())
        .chain(["ctr_count".to_string()])
        .collect();
    let mvs = names(kpg, "SHOW MATERIALIZED VIEWS").await;
    let views = names(kpg, "SHOW VIEWS").await;
    let indexes = names(kpg, "SHOW INDEXES").await;
    assert!(
        fixed.is_subset(&mvs),
        "{context}: fixed materialized views missing: kpg has {mvs:?}"
    );
    for (listed, kind) in [
        (&mvs, Kind::MaterializedView),
        (&views, Kind::View),
        (&indexes, Kind::Index),
    ] {
        for name in listed.iter() {
            if fixed.contains(name) || name.ends_with("_pkey") {
                continue;
            }
            assert!(
                ddl.objects.get(name).is_some_and(|o| o.kind == kind),
                "{context}: kpg has {kind:?} {name}, which the test never created as such"
            );
        }
        for (name, object) in ddl.objects.iter_mut().filter(|(_, o)| o.kind == kind) {
            let there = listed.contains(name);
            match object.presence {
                Presence::Present => assert!(
                    there,
                    "{context}: {kind:?} {name} (`{}`) was created and acknowledged, but is gone \
                     after the restart",
                    object.sql
                ),
                Presence::Absent => assert!(
                    !there,
                    "{context}: {kind:?} {name} is there after the restart, but its creation was \
                     never acknowledged or its DROP was"
                ),
                Presence::Unknown => {
                    object.presence = if there {
                        Presence::Present
                    } else {
                        Presence::Absent
                    }
                }
            }
        }
    }
}

/// Brings PostgreSQL's dynamic views in line with kpg's, then compares tables, views and
/// lookups through kpg's indexes.
async fn check_contents(
    kpg: &Client,
    pg: &Client,
    ddl: &Ddl,
    pg_views: &mut BTreeSet<String>,
    rng: &mut Rng,
    context: &str,
) {
    for (name, object) in &ddl.objects {
        if object.kind == Kind::Index {
            continue;
        }
        let want = object.presence == Presence::Present;
        if want && !pg_views.contains(name) {
            execute(pg, &format!("CREATE VIEW {name} AS {}", object.sql)).await;
            pg_views.insert(name.clone());
        } else if !want && pg_views.remove(name) {
            execute(pg, &format!("DROP VIEW {name}")).await;
        }
    }
    for table in ["items", "links"] {
        same(kpg, pg, &format!("SELECT * FROM {table}"), context).await;
    }
    for (name, _) in FIXED_VIEWS {
        same(kpg, pg, &format!("SELECT * FROM {name}"), context).await;
    }
    for name in pg_views.iter() {
        same(kpg, pg, &format!("SELECT * FROM {name}"), context).await;
    }
    for object in ddl.objects.values() {
        if object.kind == Kind::Index && object.presence == Presence::Present {
            same(kpg, pg, &object.lookup, context).await;
        }
    }
    // Some lookups by key (the primary key indexes).
    for _ in 0..3 {
        let id = (rng.range(0, WRITERS) + 1) * 10_000_000 + rng.range(1, 200);
        same(
            kpg,
            pg,
            &format!("SELECT * FROM items WHERE id = {id}"),
            context,
        )
        .await;
        same(
            kpg,
            pg,
            &format!("SELECT * FROM links WHERE id = {id}"),
            context,
        )
        .await;
    }
}

/// The counter as read in one query: (rows, lowest, highest) of `ctr` and (n, hi) of its view.
async fn read_counter(kpg: &Client) -> (i64, i64, i64, i64, i64) {
    let rows = rows_of(
        kpg,
        "SELECT s.n, s.lo, s.hi, c.n, c.hi FROM ctr_count c, \
         (SELECT count(*) AS n, min(counter) AS lo, max(counter) AS hi FROM ctr) s",
        "kpg",
    )
    .await;
    assert_eq!(rows.len(), 1, "ctr_count has {rows:?}");
    let v: Vec<i64> = rows[0]
        .iter()
        .map(|v| v.as_deref().map_or(0, |v| v.parse().expect("a number")))
        .collect();
    (v[0], v[1], v[2], v[3], v[4])
}

/// The load generator exists, resumed where it was (every value read before the stop is
/// there, 1..=max without gaps, and its view agrees with it), and produces new values within
/// 30 s. Returns its highest value right after the restart.
async fn check_source(kpg: &Client, seen: i64, context: &str) -> i64 {
    let sources = names(kpg, "SHOW SOURCES").await;
    assert!(
        sources.contains("ctr"),
        "{context}: the load generator source is gone: {sources:?}"
    );
    let (n, lo, hi, view_n, view_hi) = read_counter(kpg).await;
    assert!(
        hi >= seen,
        "{context}: the counter read {seen} before the stop, but its highest value after the \
         restart is {hi}"
    );
    assert!(
        n == hi && (n == 0 || lo == 1),
        "{context}: the counter has {n} rows from {lo} to {hi} after the restart"
    );
    assert_eq!(
        (view_n, view_hi),
        (n, hi),
        "{context}: ctr_count (n, hi) differs from the counter it reads"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = read_counter(kpg).await.2;
        if now > hi {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{context}: the load generator does not tick after the restart (its highest value \
             stays {hi})"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    hi
}

/// Reads the views, tables and the counter until the connection dies (so that kills also land
/// amid reads); the number of reads answered and the highest counter value read.
async fn read_until_killed(client: Client, mut rng: Rng) -> (usize, i64) {
    let mut reads = 0;
    let mut seen = 0;
    loop {
        let sql = if rng.chance(30) {
            "SELECT max(counter) FROM ctr".to_string()
        } else if rng.chance(20) {
            format!(
                "SELECT * FROM {}",
                rng.pick(&["items", "links", "ctr_count"])
            )
        } else {
            format!("SELECT * FROM {}", rng.pick(FIXED_VIEWS).0)
        };
        match tokio::time::timeout(HANG, client.simple_query(&sql)).await {
            Err(_) => panic!("kpg did not answer `{sql}` within {HANG:?}"),
            Ok(Ok(msgs)) => {
                reads += 1;
                if sql.contains("max(counter)") {
                    for m in msgs {
                        if let SimpleQueryMessage::Row(row) = m {
                            if let Some(v) = row.get(0) {
                                seen = seen.max(v.parse().expect("a number"));
                            }
                        }
                    }
                }
            }
            Ok(Err(e)) if is_connection_error(&e) => return (reads, seen),
            Ok(Err(e)) => panic!("kpg failed `{sql}`: {}", describe_error(&e)),
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_under_mixed_load_loses_no_acknowledged_write() {
    let kills = env_u64("KPG_CRASH_KILLS").unwrap_or(5);
    let seed = env_u64("KPG_CRASH_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    });
    eprintln!("crash test: {kills} kills, seed {seed} (replay with KPG_CRASH_SEED={seed})");
    let started = Instant::now();
    let (mut server, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let pg = pg.connect().await;
    {
        let kpg = server.connect().await;
        for sql in SCHEMA {
            execute(&kpg, sql).await;
            execute(&pg, sql).await;
        }
        for (name, sql) in FIXED_VIEWS {
            execute(&kpg, &format!("CREATE MATERIALIZED VIEW {name} AS {sql}")).await;
            execute(&pg, &format!("CREATE VIEW {name} AS {sql}")).await;
        }
        execute(
            &kpg,
            "CREATE SOURCE ctr FROM LOAD GENERATOR COUNTER (TICK INTERVAL '20ms')",
        )
        .await;
        execute(
            &kpg,
            "CREATE MATERIALIZED VIEW ctr_count AS SELECT count(*) AS n, max(counter) AS hi FROM ctr",
        )
        .await;
    }
    let mut writers: Vec<Writer> = (0..WRITERS).map(Writer::new).collect();
    let mut ddl = Ddl {
        next: 0,
        objects: BTreeMap::new(),
    };
    let mut pg_views = BTreeSet::new();
    let mut rng = Rng::new(seed);
    let mut total = Tally::default();

    // Each cycle ends with a SIGKILL; the last one, after the kills, with a SIGTERM (a clean
    // stop amid the load, which must flush and exit 0).
    for cycle in 1..=kills + 1 {
        let clean_stop = cycle > kills;
        let context = if clean_stop {
            format!("seed {seed}, after SIGTERM")
        } else {
            format!("seed {seed}, kill {cycle}")
        };
        let reader = tokio::spawn(read_until_killed(
            server.connect().await,
            Rng::derive(seed, cycle, 99),
        ));
        let mut tasks = Vec::new();
        for (i, writer) in writers.drain(..).enumerate() {
            let client = server.connect().await;
            let task_rng = Rng::derive(seed, cycle, i as u64 + 1);
            tasks.push(tokio::spawn(writer.run(client, task_rng)));
        }
        let ddl_task = tokio::spawn(ddl.run(server.connect().await, Rng::derive(seed, cycle, 0)));
        let delay = Duration::from_millis(rng.range(50, 500) as u64);
        tokio::time::sleep(delay).await;
        if clean_stop {
            let status = tokio::task::block_in_place(|| server.terminate(Duration::from_secs(20)));
            assert!(
                status.is_some_and(|s| s.success()),
                "{context}: kpg did not exit cleanly on SIGTERM: {status:?}"
            );
        } else {
            tokio::task::block_in_place(|| server.kill());
        }

        let mut logs = Vec::new();
        for task in tasks {
            let (writer, log) = task.await.expect("writer task");
            writers.push(writer);
            logs.push(log);
        }
        let (d, ddl_log) = ddl_task.await.expect("DDL task");
        ddl = d;
        let (reads, seen) = reader.await.expect("reader task");

        let restart_started = Instant::now();
        server.restart().await;
        let restart_time = restart_started.elapsed();
        let kpg = server.connect().await;
        let checks_started = Instant::now();

        let mut tally = Tally {
            ddl_acked: ddl_log
                .iter()
                .filter(|(.., o)| matches!(o, Outcome::Acked(_)))
                .count(),
            reads,
            ..Tally::default()
        };
        for (name, _, sql, outcome) in &ddl_log {
            // An index a view reads cannot be dropped (kpg's rule, unlike PostgreSQL's); the
            // refused DROP must leave the index in place, which check_catalog checks.
            match outcome {
                Outcome::Refused(why) if sql.starts_with("DROP INDEX") && why.contains("2BP01") => {
                }
                Outcome::Refused(why) => panic!("{context}: kpg refused `{sql}` ({name}): {why}"),
                _ => {}
            }
        }
        check_catalog(&kpg, &mut ddl, &context).await;
        check_writes(&kpg, &pg, &logs, &context, &mut tally).await;
        check_contents(&kpg, &pg, &ddl, &mut pg_views, &mut rng, &context).await;
        let counter = check_source(&kpg, seen, &context).await;
        let rows: usize = {
            let n = rows_of(
                &kpg,
                "SELECT (SELECT count(*) FROM items) + (SELECT count(*) FROM links)",
                "kpg",
            )
            .await;
            n[0][0].as_deref().unwrap().parse().unwrap()
        };
        eprintln!(
            "{} after {delay:?}: {}; {rows} rows, {} dynamic views, counter read up to \
             {seen} before, at {counter} after; restart took {restart_time:?}, checks {:?}",
            if clean_stop {
                "SIGTERM".to_string()
            } else {
                format!("kill {cycle}/{kills}")
            },
            tally.summary(),
            pg_views.len(),
            checks_started.elapsed(),
        );
        total.add(&tally);
    }

    eprintln!(
        "crash test: {kills} kills and a clean stop in {:?}, seed {seed}: {}",
        started.elapsed(),
        total.summary()
    );
    let log = server.stderr();
    eprintln!(
        "store: {} large merges started, {} finished, {} cut short by a kill after staging \
         (their parts dropped at the restart)",
        log.matches("merging stored updates on the merge thread")
            .count(),
        log.matches("merge of stored updates finished").count(),
        log.matches("dropped the parts of an unfinished merge")
            .count(),
    );
}
