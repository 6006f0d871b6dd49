//! Differential test of generated queries: random expressions (NULLs, three-valued logic,
//! CASE, casts, functions), joins of every kind, aggregates with GROUP BY/HAVING, DISTINCT,
//! set operations and correlated subqueries over four small tables, run on kpg and on a real
//! PostgreSQL 15 (the oracle), both ad hoc and as materialized views maintained through a
//! batch of writes.
//!
//! Rounds of `PER_ROUND` queries: each round refills the tables with random rows (seeded),
//! runs every query on both systems, creates a kpg materialized view for each query that
//! matched, applies a random batch of INSERT/UPDATE/DELETE to both, and compares each view
//! with PostgreSQL's answer to its query after the batch.
//!
//! Verdicts: a query PostgreSQL rejects (SQLSTATE class 42 or 0A) is a generator bug and is
//! skipped; a query kpg refuses with 0A000 is counted as refused (with the reason) and is
//! not a failure; errors both raise must agree on SQLSTATE; any difference (rows, column
//! names, an error on one side only) fails the test,
//! printing the seed, the data and the SQL. Rows are compared as sorted multisets unless the
//! query orders them.
//!
//! `KPG_RANDOM_QUERIES=n` runs `n` queries (default 150), `KPG_RANDOM_SEED=s` changes the
//! seed (default 1), `KPG_RANDOM_VERBOSE=1` prints every query with its timings, and
//! `KPG_RANDOM_DRY=1` only prints the statements a run would execute; `KPG_RANDOM_ROUND=r`
//! runs only round `r` (to reproduce a failure).

mod expr;
mod query;
mod schema;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kpg_tests::tokio_postgres::{Client, SimpleQueryMessage};
use kpg_tests::*;

use kpg_tests::rng::{mix, Rng};
use query::Gen;

/// Queries per round; each round's views are alive together, and every view costs CPU on
/// every timestamp tick, so rounds stay small.
const PER_ROUND: usize = 10;
const DEFAULT_QUERIES: usize = 150;
const DEFAULT_SEED: u64 = 1;
/// One statement's time limit; a query that takes longer on kpg fails the test.
const QUERY_TIMEOUT: Duration = Duration::from_secs(30);
/// Queries slower than this on kpg are printed (they make the test slow).
const SLOW: Duration = Duration::from_secs(2);
/// How many failures are printed in full.
const SHOWN_FAILURES: usize = 20;

/// What one statement did.
enum Outcome {
    Rows(QueryResult),
    Error {
        code: String,
        message: String,
    },
    /// A timeout or a connection failure (no SQLSTATE).
    Broken(String),
}

impl Outcome {
    fn describe(&self) -> String {
        match self {
            Outcome::Rows(r) => format!("{} rows: {}", r.rows.len(), show(&r.rows)),
            Outcome::Error { code, message } => format!("ERROR {code}: {message}"),
            Outcome::Broken(m) => format!("BROKEN: {m}"),
        }
    }
}

async fn run(client: &Client, sql: &str) -> Outcome {
    let msgs = match tokio::time::timeout(QUERY_TIMEOUT, client.simple_query(sql)).await {
        Err(_) => return Outcome::Broken(format!("no answer within {QUERY_TIMEOUT:?}")),
        Ok(Err(e)) => {
            return match e.as_db_error() {
                Some(db) => Outcome::Error {
                    code: db.code().code().to_string(),
                    message: db.message().to_string(),
                },
                None => Outcome::Broken(format!("{e:?}")),
            }
        }
        Ok(Ok(m)) => m,
    };
    let mut res = QueryResult::default();
    for m in msgs {
        match m {
            SimpleQueryMessage::RowDescription(cols) => {
                res.columns = cols.iter().map(|c| c.name().to_string()).collect();
            }
            SimpleQueryMessage::Row(row) => {
                res.rows.push(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                );
            }
            SimpleQueryMessage::CommandComplete(n) => res.count = Some(n),
            _ => {}
        }
    }
    Outcome::Rows(res)
}

enum Verdict {
    /// Same rows (or the same error).
    Match {
        rows: bool,
    },
    Refused(String),
    Skipped(String),
    Fail(String),
}

/// Judges kpg's outcome against PostgreSQL's.
fn judge(k: &Outcome, p: &Outcome, ordered: bool, compare_names: bool) -> Verdict {
    match (k, p) {
        (_, Outcome::Error { code, message })
            if code.starts_with("42") || code.starts_with("0A") || code == "54001" =>
        {
            Verdict::Skipped(format!("{code}: {message}"))
        }
        (_, Outcome::Broken(m)) => Verdict::Skipped(format!("PostgreSQL: {m}")),
        (Outcome::Error { code, message }, _) if code == "0A000" => {
            Verdict::Refused(message.clone())
        }
        (Outcome::Error { code: kc, .. }, Outcome::Error { code: pc, .. }) if kc == pc => {
            Verdict::Match { rows: false }
        }
        (Outcome::Rows(kr), Outcome::Rows(pr)) => {
            let (mut krows, mut prows) = (kr.rows.clone(), pr.rows.clone());
            if !ordered {
                krows.sort();
                prows.sort();
            }
            if krows != prows {
                Verdict::Fail("rows differ".into())
            } else if compare_names && kr.columns != pr.columns {
                Verdict::Fail(format!(
                    "column names differ: kpg {:?}, PostgreSQL {:?}",
                    kr.columns, pr.columns
                ))
            } else {
                Verdict::Match { rows: true }
            }
        }
        _ => Verdict::Fail("outcomes differ".into()),
    }
}

#[derive(Default)]
struct Stats {
    run: usize,
    matched: usize,
    errors_agreed: usize,
    refused: usize,
    skipped: usize,
    views: usize,
    views_matched: usize,
    views_refused: usize,
    refusals: BTreeMap<String, usize>,
    /// Skip reason -> (count, first query skipped for it).
    skips: BTreeMap<String, (usize, String)>,
    failures: Vec<String>,
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}

/// Runs a statement that must succeed on both systems (table setup and writes).
async fn exec_both(s: &Pair, sql: &str, stats: &mut Stats, setup: &[String]) {
    let (k, p) = (run(&s.kpg, sql).await, run(&s.pg, sql).await);
    match (&k, &p) {
        (Outcome::Rows(kr), Outcome::Rows(pr)) if kr.count == pr.count => {}
        (_, Outcome::Rows(_)) => stats.failures.push(format!(
            "write `{sql}` differs\n  kpg: {}\n  PostgreSQL: {}\n  data before:\n    {}",
            k.describe(),
            p.describe(),
            setup.join(";\n    ")
        )),
        _ => panic!(
            "PostgreSQL failed the generated write `{sql}`: {}",
            p.describe()
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_queries_match_postgres() {
    let total = env_number("KPG_RANDOM_QUERIES", DEFAULT_QUERIES as u64) as usize;
    let seed = env_number("KPG_RANDOM_SEED", DEFAULT_SEED);
    let verbose = std::env::var_os("KPG_RANDOM_VERBOSE").is_some();
    if std::env::var_os("KPG_RANDOM_DRY").is_some() {
        print_cases(total, seed);
        return;
    }
    let started = Instant::now();
    let (kpg, pg) = tokio::join!(KpgServer::start_with_workers(2), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for t in schema::TABLES {
        s.exec(&schema::create_sql(t)).await;
    }
    let mut stats = Stats::default();
    let rounds = total.div_ceil(PER_ROUND);
    let only_round = std::env::var("KPG_RANDOM_ROUND").ok().map(|r| {
        r.parse::<usize>()
            .unwrap_or_else(|_| panic!("KPG_RANDOM_ROUND={r} is not a number"))
    });
    for round in (0..rounds).filter(|r| only_round.is_none_or(|o| o == *r)) {
        let round_seed = mix(seed, round as u64);
        let mut rng = Rng::new(round_seed);
        // Fresh contents.
        let setup = schema::refill(&mut rng);
        for stmt in &setup {
            exec_both(&s, stmt, &mut stats, &[]).await;
        }
        let cases = PER_ROUND.min(total - round * PER_ROUND);
        // (`print_cases` repeats this sequence of generator calls.)
        let mut views: Vec<(String, String, usize)> = Vec::new();
        for case in 0..cases {
            let mut qrng = Rng::new(mix(round_seed, case as u64 + 1));
            let q = Gen::new(&mut qrng).top_query();
            stats.run += 1;
            let t0 = Instant::now();
            let p = run(&s.pg, &q.sql).await;
            let t1 = Instant::now();
            let k = run(&s.kpg, &q.sql).await;
            if verbose || t1.elapsed() > SLOW {
                println!(
                    "round {round} case {case}: PostgreSQL {:?}, kpg {:?}: {}",
                    t1 - t0,
                    t1.elapsed(),
                    q.sql
                );
            }
            let verdict = judge(&k, &p, q.ordered, true);
            let label = format!("seed {seed} round {round} case {case}");
            match verdict {
                Verdict::Match { rows } => {
                    stats.matched += 1;
                    if !rows {
                        stats.errors_agreed += 1;
                        continue;
                    }
                }
                Verdict::Refused(m) => {
                    stats.refused += 1;
                    *stats.refusals.entry(m).or_default() += 1;
                    continue;
                }
                Verdict::Skipped(m) => {
                    stats.skipped += 1;
                    stats.skips.entry(m).or_insert((0, q.sql.clone())).0 += 1;
                    continue;
                }
                Verdict::Fail(why) => {
                    stats.failures.push(format!(
                        "{label}: {why}\n  query: {}\n  kpg: {}\n  PostgreSQL: {}\n  data:\n    {}",
                        q.sql,
                        k.describe(),
                        p.describe(),
                        setup.join(";\n    ")
                    ));
                    if matches!(k, Outcome::Broken(_)) {
                        break;
                    }
                    continue;
                }
            }
            // The same query as a view maintained through the round's writes (on PostgreSQL
            // a plain view, recomputed when read), created after the same checks.
            let name = format!("rq_{round}_{case}");
            let k = run(
                &s.kpg,
                &format!("CREATE MATERIALIZED VIEW {name} AS {}", q.sql),
            )
            .await;
            let p = run(&s.pg, &format!("CREATE VIEW {name} AS {}", q.sql)).await;
            match (&k, &p) {
                (Outcome::Rows(_), Outcome::Rows(_)) => views.push((name, q.sql.clone(), case)),
                (Outcome::Error { code, message }, _) if code == "0A000" => {
                    stats.views_refused += 1;
                    *stats
                        .refusals
                        .entry(format!("(view) {message}"))
                        .or_default() += 1;
                }
                // Both refuse it alike (e.g. 42701, two output columns named `?column?`).
                (Outcome::Error { code: kc, .. }, Outcome::Error { code: pc, .. }) if kc == pc => {}
                _ => stats.failures.push(format!(
                    "{label}: CREATE [MATERIALIZED] VIEW differs\n  query: {}\n  kpg: {}\n  \
                     PostgreSQL: {}\n  data:\n    {}",
                    q.sql,
                    k.describe(),
                    p.describe(),
                    setup.join(";\n    ")
                )),
            }
        }
        let batch = schema::write_batch(&mut rng);
        for stmt in &batch {
            exec_both(&s, stmt, &mut stats, &setup).await;
        }
        for (name, sql, case) in &views {
            stats.views += 1;
            let read = format!("SELECT * FROM {name}");
            let k = run(&s.kpg, &read).await;
            let p = run(&s.pg, &read).await;
            match judge(&k, &p, false, true) {
                Verdict::Match { .. } => stats.views_matched += 1,
                Verdict::Skipped(_) | Verdict::Refused(_) | Verdict::Fail(_) => {
                    stats.failures.push(format!(
                        "seed {seed} round {round} case {case}: view differs after writes\n  \
                         query: {sql}\n  kpg view: {}\n  PostgreSQL: {}\n  data:\n    {}\n  \
                         writes:\n    {}",
                        k.describe(),
                        p.describe(),
                        setup.join(";\n    "),
                        batch.join(";\n    ")
                    ))
                }
            }
            let drop = run(&s.kpg, &format!("DROP MATERIALIZED VIEW {name}")).await;
            if !matches!(drop, Outcome::Rows(_)) {
                stats
                    .failures
                    .push(format!("DROP of {name}: {}", drop.describe()));
            }
            run(&s.pg, &format!("DROP VIEW {name}")).await;
        }
        if s.kpg.is_closed() {
            stats.failures.push("kpg closed the connection".into());
            break;
        }
    }
    report(&stats, started.elapsed());
}

/// Prints what a run would execute, round by round, without starting any server.
fn print_cases(total: usize, seed: u64) {
    for round in 0..total.div_ceil(PER_ROUND) {
        let round_seed = mix(seed, round as u64);
        let mut rng = Rng::new(round_seed);
        println!("-- round {round}");
        for stmt in schema::refill(&mut rng) {
            println!("{stmt};");
        }
        for case in 0..PER_ROUND.min(total - round * PER_ROUND) {
            let mut qrng = Rng::new(mix(round_seed, case as u64 + 1));
            let q = Gen::new(&mut qrng).top_query();
            println!("-- case {case}\n{};", q.sql);
        }
        println!("-- writes");
        for stmt in schema::write_batch(&mut rng) {
            println!("{stmt};");
        }
    }
}

fn report(stats: &Stats, elapsed: Duration) {
    let mut by_count: Vec<(&String, &usize)> = stats.refusals.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1));
    for (m, n) in by_count {
        println!("  refused {n}x: {m}");
    }
    let mut skips: Vec<(&String, &(usize, String))> = stats.skips.iter().collect();
    skips.sort_by_key(|s| std::cmp::Reverse(s.1 .0));
    for (m, (n, example)) in skips {
        println!("  skipped {n}x: {m}\n    e.g. {example}");
    }
    for f in stats.failures.iter().take(SHOWN_FAILURES) {
        println!("FAILURE {f}\n");
    }
    println!(
        "random queries: {} run, {} matched ({} as agreeing errors), {} refused by kpg, \
         {} skipped (PostgreSQL rejects); views: {} compared after writes, {} matched, \
         {} refused; {} failures; {:.1}s",
        stats.run,
        stats.matched,
        stats.errors_agreed,
        stats.refused,
        stats.skipped,
        stats.views,
        stats.views_matched,
        stats.views_refused,
        stats.failures.len(),
        elapsed.as_secs_f64()
    );
    assert!(
        stats.failures.is_empty(),
        "{} generated queries differ between kpg and PostgreSQL (see above)",
        stats.failures.len()
    );
}
