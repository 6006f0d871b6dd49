//! Named prepared statements and portals as a session holds them: Parse and Bind under names,
//! a portal of a write that runs once, Close of statements and portals, `DEALLOCATE name` and
//! `DEALLOCATE ALL` (SQL statements reaching the same store as the protocol's messages), a
//! simple query or a failed Parse replacing the unnamed statement, named statements and
//! portals that are not replaced, portals ending with their transaction (at Sync outside a
//! block, at COMMIT inside one), and what each later Bind or Execute finds. The same messages go to kpg and PostgreSQL through a
//! raw protocol client, and the replies must be the same, message for message.

use kpg_tests::wire::{
    bind_named, close_message, execute_named, parse_named, query_message, same_transcripts,
    sync_message,
};
use kpg_tests::*;

fn run(port: u16, user: &str) -> Vec<String> {
    let mut wire = Wire::connect(port, user);
    let mut seen = Vec::new();
    let mut step = |wire: &mut Wire, what: &str, messages: &[kpg_tests::wire::Message]| {
        wire.send(messages);
        seen.push(format!("-- {what}"));
        seen.extend(wire.replies());
    };
    step(
        &mut wire,
        "table",
        &[query_message("CREATE TABLE t (a int4)")],
    );
    step(
        &mut wire,
        "two named statements",
        &[
            parse_named("s1", "SELECT 1 AS one"),
            parse_named("s2", "INSERT INTO t VALUES (1)"),
            sync_message(),
        ],
    );
    step(&mut wire, "deallocate", &[query_message("DEALLOCATE s1")]);
    step(
        &mut wire,
        "deallocate again",
        &[query_message("DEALLOCATE s1")],
    );
    step(
        &mut wire,
        "bind of the deallocated statement",
        &[bind_named("p", "s1", &[]), sync_message()],
    );
    step(
        &mut wire,
        "a write's portal runs once",
        &[
            bind_named("p", "s2", &[]),
            execute_named("p"),
            execute_named("p"),
            sync_message(),
        ],
    );
    step(
        &mut wire,
        "bound again, it runs again",
        &[
            bind_named("p", "s2", &[]),
            execute_named("p"),
            sync_message(),
        ],
    );
    step(
        &mut wire,
        "close a statement, a portal and one that does not exist",
        &[
            bind_named("q", "s2", &[]),
            close_message(b'S', "s2"),
            close_message(b'P', "q"),
            close_message(b'P', "nope"),
            sync_message(),
        ],
    );
    step(
        &mut wire,
        "the closed portal and statement",
        &[execute_named("q"), sync_message()],
    );
    step(
        &mut wire,
        "bind of the closed statement",
        &[bind_named("q", "s2", &[]), sync_message()],
    );
    step(
        &mut wire,
        "deallocate all",
        &[
            parse_named("s3", "SELECT 3"),
            parse_named("s4", "SELECT 4"),
            sync_message(),
        ],
    );
    step(
        &mut wire,
        "deallocate all",
        &[query_message("DEALLOCATE ALL")],
    );
    step(
        &mut wire,
        "after deallocate all",
        &[bind_named("", "s4", &[]), sync_message()],
    );
    step(
        &mut wire,
        "the unnamed statement, then a simple query",
        &[parse_named("", "SELECT 5"), sync_message()],
    );
    step(&mut wire, "a simple query", &[query_message("SELECT 6")]);
    step(
        &mut wire,
        "the unnamed statement is gone",
        &[bind_named("", "", &[]), sync_message()],
    );
    step(
        &mut wire,
        "a failed Parse of the unnamed statement replaces it",
        &[parse_named("", "SELECT 7"), sync_message()],
    );
    step(
        &mut wire,
        "the failed Parse",
        &[parse_named("", "SELEC 8"), sync_message()],
    );
    step(
        &mut wire,
        "no unnamed statement",
        &[bind_named("", "", &[]), sync_message()],
    );
    step(
        &mut wire,
        "a named statement or portal is not replaced",
        &[
            parse_named("s5", "SELECT a FROM t"),
            parse_named("s5", "SELECT 5"),
            sync_message(),
        ],
    );
    step(
        &mut wire,
        "a named portal twice",
        &[
            bind_named("p5", "s5", &[]),
            bind_named("p5", "s5", &[]),
            sync_message(),
        ],
    );
    step(
        &mut wire,
        "a portal ends with its transaction: at Sync outside a block",
        &[bind_named("p6", "s5", &[]), sync_message()],
    );
    step(
        &mut wire,
        "the portal after Sync",
        &[execute_named("p6"), sync_message()],
    );
    step(&mut wire, "a block", &[query_message("BEGIN")]);
    step(
        &mut wire,
        "in a block, a portal outlives Sync",
        &[bind_named("p7", "s5", &[]), sync_message()],
    );
    step(
        &mut wire,
        "the portal in its block",
        &[execute_named("p7"), sync_message()],
    );
    step(&mut wire, "the block ends", &[query_message("COMMIT")]);
    step(
        &mut wire,
        "the portal after COMMIT",
        &[execute_named("p7"), sync_message()],
    );
    step(
        &mut wire,
        "Close of an unknown kind",
        &[close_message(b'X', "s5"), sync_message()],
    );
    step(
        &mut wire,
        "rows written",
        &[query_message("SELECT count(*) FROM t")],
    );
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn named_statements_and_portals_as_in_postgres() {
    let k = same_transcripts(run).await;
    // The transcript says what it should: the second Execute of the write's portal failed,
    // which rolled back the first one's row with the rest of its pipeline; bound again, the
    // write ran once more.
    assert!(k.contains(&"Error 55000".to_string()), "{k:?}");
    assert!(k.contains(&"DataRow 1".to_string()), "{k:?}");
}
