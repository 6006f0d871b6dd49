//! SIGKILLs while the store merges tens of thousands of stored updates: a table is loaded in
//! bulk and then thinned and rewritten by DELETEs and UPDATEs of thousands of rows each, so
//! the store's large merges (computed on a thread of their own, staged beside their inputs,
//! swapped in by one transaction) are under way when kpg is killed. After every restart the
//! table must hold exactly the acknowledged writes — plus, all or nothing, the one write that
//! was in flight — checked against a model of the table kept by the test.
//!
//! `KPG_MERGE_KILLS` sets the number of kills (default 5), `KPG_MERGE_SEED` the seed.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::SinkExt;
use kpg_tests::rng::{mix, Rng};
use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// The table's contents: id -> v.
type Model = BTreeMap<i64, i64>;

#[derive(Clone, Debug)]
enum Op {
    /// `COPY` of the ids `from..from + n`, each with `v = id % 100`.
    Load {
        from: i64,
        n: i64,
    },
    Delete {
        m: i64,
        r: i64,
    },
    Update {
        m: i64,
        r: i64,
        k: i64,
    },
}

impl Op {
    fn apply(&self, model: &mut Model) {
        match *self {
            Op::Load { from, n } => model.extend((from..from + n).map(|id| (id, id % 100))),
            Op::Delete { m, r } => model.retain(|id, _| id % m != r),
            Op::Update { m, r, k } => model
                .iter_mut()
                .filter(|(id, _)| *id % m == r)
                .for_each(|(_, v)| *v += k),
        }
    }

    async fn run(&self, client: &Client) -> Result<(), tokio_postgres::Error> {
        match *self {
            Op::Load { from, n } => {
                let data: String = (from..from + n)
                    .map(|id| format!("{id}\t{}\n", id % 100))
                    .collect();
                let sink = client.copy_in("COPY bulk FROM STDIN").await?;
                let mut sink = Box::pin(sink);
                sink.send(bytes::Bytes::from(data)).await?;
                sink.as_mut().finish().await.map(|_| ())
            }
            Op::Delete { m, r } => {
                client
                    .batch_execute(&format!("DELETE FROM bulk WHERE id % {m} = {r}"))
                    .await
            }
            Op::Update { m, r, k } => {
                client
                    .batch_execute(&format!("UPDATE bulk SET v = v + {k} WHERE id % {m} = {r}"))
                    .await
            }
        }
    }
}

/// Writes until the connection dies: the acknowledged ops, and the one in flight.
async fn write(client: Client, mut rng: Rng, mut next_id: i64) -> (Vec<Op>, Option<Op>, i64) {
    let mut done = Vec::new();
    loop {
        let op = match rng.below(10) {
            0..=3 => {
                let n = rng.range(10_000, 25_000);
                next_id += n;
                Op::Load {
                    from: next_id - n,
                    n,
                }
            }
            4..=6 => {
                let m = rng.range(2, 4);
                Op::Delete {
                    m,
                    r: rng.range(0, m - 1),
                }
            }
            _ => {
                let m = rng.range(2, 5);
                Op::Update {
                    m,
                    r: rng.range(0, m - 1),
                    k: rng.range(1, 9),
                }
            }
        };
        match op.run(&client).await {
            Ok(()) => done.push(op),
            Err(e) if e.is_closed() || e.as_db_error().is_none() => {
                return (done, Some(op), next_id)
            }
            Err(e) => panic!("kpg refused {op:?}: {e}"),
        }
    }
}

async fn contents(client: &Client) -> Model {
    client
        .query("SELECT id::int8, v::int8 FROM bulk", &[])
        .await
        .expect("read bulk")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.parse().expect(name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_large_merges_loses_nothing() {
    let kills = env_u64("KPG_MERGE_KILLS").unwrap_or(5);
    let seed = env_u64("KPG_MERGE_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    });
    eprintln!("large merges: {kills} kills, seed {seed} (replay with KPG_MERGE_SEED={seed})");
    let mut server = KpgServer::start().await;
    let mut model = Model::new();
    let mut next_id;
    {
        // Before any kill: a load and a delete of a third, which makes a merge of the whole
        // table (its retractions are a quarter of its updates) large enough for the thread.
        let c = server.connect().await;
        c.batch_execute("CREATE TABLE bulk (id int8, v int8)")
            .await
            .unwrap();
        for op in [Op::Load { from: 0, n: 30_000 }, Op::Delete { m: 3, r: 0 }] {
            op.run(&c).await.unwrap();
            op.apply(&mut model);
        }
        next_id = 30_000;
        let started = std::time::Instant::now();
        while !server
            .stderr()
            .contains("merging stored updates on the merge thread")
        {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no large merge started after a load of 30,000 rows and a delete of a third"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(contents(&c).await, model);
    }
    let mut rng = Rng::new(seed);
    for cycle in 1..=kills {
        let client = server.connect().await;
        let writer = tokio::spawn(write(client, Rng::new(mix(seed, cycle)), next_id));
        let delay = Duration::from_millis(rng.range(300, 2500) as u64);
        tokio::time::sleep(delay).await;
        tokio::task::block_in_place(|| server.kill());
        let (done, in_flight, next) = writer.await.expect("writer task");
        next_id = next;
        for op in &done {
            op.apply(&mut model);
        }
        server.restart().await;
        let c = server.connect().await;
        let got = contents(&c).await;
        let mut with = model.clone();
        if let Some(op) = &in_flight {
            op.apply(&mut with);
        }
        assert!(
            got == model || got == with,
            "seed {seed}, kill {cycle} after {delay:?}: {} rows in kpg, {} acknowledged, {} \
             with the write in flight ({in_flight:?}); acknowledged: {done:?}",
            got.len(),
            model.len(),
            with.len()
        );
        model = got;
        eprintln!(
            "kill {cycle}/{kills} after {delay:?}: {} writes acknowledged, in flight {} ({}), {} rows",
            done.len(),
            in_flight.map_or("none".to_string(), |op| format!("{op:?}")),
            if model == with { "applied" } else { "not applied" },
            model.len()
        );
    }
    let log = server.stderr();
    eprintln!(
        "store: {} large merges started, {} finished, {} cut short after staging",
        log.matches("merging stored updates on the merge thread")
            .count(),
        log.matches("merge of stored updates finished").count(),
        log.matches("dropped the parts of an unfinished merge")
            .count(),
    );
}
