//! Implicit transactions, against PostgreSQL: outside BEGIN, everything up to an
//! extended-protocol Sync (pgjdbc's `executeBatch`, a driver's pipeline) and every statement
//! of one multi-statement query string is one transaction, so a failure anywhere in it leaves
//! none of its INSERTs. kpg used to keep the INSERTs before the failure.
//!
//! Each scenario sends the same messages to kpg and PostgreSQL (a raw protocol client, since
//! drivers hide where their Syncs go), and compares the replies message for message and then
//! the table's contents.

use kpg_tests::wire::{bind_message, execute_message, parse_message, query_message, sync_message};
use kpg_tests::*;

const INSERT: &str = "INSERT INTO t VALUES ($1, $2)";

/// One INSERT of a pipeline: Parse, Bind of `k` and `v`, Execute.
fn insert(k: &str, v: &str) -> Vec<wire::Message> {
    vec![
        parse_message(INSERT),
        bind_message(&[Some(k), Some(v)]),
        execute_message(),
    ]
}

fn pipeline(parts: Vec<Vec<wire::Message>>) -> Vec<wire::Message> {
    let mut messages: Vec<wire::Message> = parts.into_iter().flatten().collect();
    messages.push(sync_message());
    messages
}

/// The scenarios: what each sends, in order, on one connection.
fn scenarios() -> Vec<(&'static str, Vec<wire::Message>)> {
    let read = vec![
        parse_message("SELECT count(*), max(k) FROM t"),
        bind_message(&[]),
        execute_message(),
    ];
    vec![
        (
            "a batch whose third INSERT repeats a key keeps none",
            pipeline(vec![insert("1", "a"), insert("2", "b"), insert("1", "c")]),
        ),
        (
            "a batch committed at Sync keeps all",
            pipeline(vec![insert("3", "c"), insert("4", "d")]),
        ),
        (
            "a Bind with a bad value after an INSERT drops the INSERT",
            pipeline(vec![insert("5", "e"), insert("x", "f")]),
        ),
        (
            "a Parse error after an INSERT drops the INSERT",
            pipeline(vec![insert("6", "f"), vec![parse_message("SELEC 1")]]),
        ),
        (
            "a read after INSERTs in a pipeline sees them",
            pipeline(vec![insert("7", "g"), insert("8", "h"), read]),
        ),
        (
            "a key repeated within the batch and against the table",
            pipeline(vec![insert("9", "i"), insert("3", "again")]),
        ),
        (
            "a query string whose second INSERT fails keeps neither",
            vec![query_message(
                "INSERT INTO t VALUES (10, 'j'); INSERT INTO t VALUES (10, 'k')",
            )],
        ),
        (
            "a query string of INSERTs and a read",
            vec![query_message(
                "INSERT INTO t VALUES (11, 'l'); INSERT INTO t VALUES (12, 'm'); \
                 SELECT count(*), max(k) FROM t",
            )],
        ),
        (
            "a failing INSERT ... VALUES with several rows inside a batch",
            pipeline(vec![
                insert("13", "n"),
                statement("INSERT INTO t VALUES (14, 'o'), (4, 'dup')"),
            ]),
        ),
        (
            "BEGIN makes the INSERTs before it the block's, and ROLLBACK drops them",
            vec![query_message(
                "INSERT INTO t VALUES (15, 'p'); BEGIN; INSERT INTO t VALUES (16, 'q'); ROLLBACK",
            )],
        ),
        (
            "the same through a pipeline",
            pipeline(vec![
                insert("17", "r"),
                statement("BEGIN"),
                insert("18", "s"),
                statement("ROLLBACK"),
            ]),
        ),
        (
            "ROLLBACK outside a block drops the INSERTs before it",
            vec![query_message("INSERT INTO t VALUES (19, 't'); ROLLBACK")],
        ),
        (
            "COMMIT outside a block commits them",
            vec![query_message("INSERT INTO t VALUES (20, 'u'); COMMIT")],
        ),
        (
            "SAVEPOINT outside a block fails the sequence",
            vec![query_message("INSERT INTO t VALUES (21, 'v'); SAVEPOINT x")],
        ),
        (
            "COPY FROM STDIN in a pipeline, then Sync",
            [
                insert("22", "w"),
                statement("COPY t FROM STDIN"),
                vec![(b'd', b"23\tx\n".to_vec()), (b'c', Vec::new())],
                vec![sync_message()],
            ]
            .concat(),
        ),
        (
            "a query after a pipeline's INSERT and Flush, before Sync",
            [
                insert("24", "y"),
                vec![
                    (b'H', Vec::new()),
                    query_message("SELECT count(*), max(k) FROM t"),
                ],
            ]
            .concat(),
        ),
        (
            "a statement's portal executed twice",
            pipeline(vec![insert("25", "z"), vec![execute_message()]]),
        ),
        (
            "an empty query bound to the portal of a statement that ran",
            pipeline(vec![insert("26", "aa"), statement("")]),
        ),
    ]
}

/// Parse, Bind and Execute of a statement without parameters.
fn statement(sql: &str) -> Vec<wire::Message> {
    vec![parse_message(sql), bind_message(&[]), execute_message()]
}

/// A scenario's replies, and the table's rows after it.
type Outcome = (Vec<String>, Vec<Vec<Option<String>>>);

/// Runs the scenarios on a server.
fn run(port: u16, user: &str) -> Vec<Outcome> {
    let mut wire = Wire::connect(port, user);
    wire.send(&[query_message(
        "CREATE TABLE t (k int PRIMARY KEY, v text NOT NULL)",
    )]);
    wire.read_until_ready();
    let mut outcomes = Vec::new();
    for (_, messages) in scenarios() {
        wire.send(&messages);
        let mut replies = wire.replies();
        replies.retain(|r| r != "RowDescription");
        wire.send(&[query_message("SELECT k, v FROM t ORDER BY k")]);
        let table = wire.read_until_ready();
        outcomes.push((replies, table));
    }
    outcomes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelines_and_query_strings_are_one_transaction_as_in_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let (kp, pp) = (kpg.port(), pg.port());
    let k = tokio::task::spawn_blocking(move || run(kp, "kpg"));
    let p = tokio::task::spawn_blocking(move || run(pp, "postgres"));
    let (k, p) = (k.await.unwrap(), p.await.unwrap());
    for (((name, _), kpg), pg) in scenarios().into_iter().zip(k).zip(p) {
        assert_eq!(kpg.0, pg.0, "{name}: replies");
        assert_eq!(kpg.1, pg.1, "{name}: the table after it");
    }
}
