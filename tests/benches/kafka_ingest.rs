//! Kafka ingest benchmark: the figures issue 19 asks for, kpg's Kafka sources side by side with
//! a bare rdkafka consumer (the peer, in this process) and PostgreSQL 15's `COPY` of the same
//! CSV, in one run against one real broker (run with
//! `KPG_BIN=$PWD/target/release/kpg cargo bench -p kpg-tests --bench kafka_ingest`).
//!
//! - ingest: TPC-H lineitem at SF 0.1 (about 600k records, CSV, 4 partitions) is produced before
//!   anything is timed; then, for kpg at 1 and 2 workers (and 2 workers without the index, for
//!   comparison), the time from `CREATE SOURCE` (followed at once by `CREATE INDEX ... ON source
//!   (l_orderkey)`) until every record is readable: polled every 20 ms by looking up, through
//!   the index, the record that ends each tenth of each partition (cheap, unlike a `count(*)` of
//!   every row, which would compete with the ingest), then checked with `SELECT count(*)`; each kpg
//!   thread's CPU time over the window, per row; beside it a bare `BaseConsumer` reading the
//!   topic to its end, and PostgreSQL (fsync on) loading the same lines with `COPY ... (FORMAT
//!   csv)` into a table with the same index;
//! - freshness: records `seq,sent` (`sent` the wall clock in microseconds when the record was
//!   handed to the producer) at about 10,000 and 100,000 records/s offered load into a source,
//!   read by `COPY (SUBSCRIBE v) TO STDOUT` of a materialized view over it; p50/p99 of receive
//!   time minus `sent`, beside a bare consumer reading the same records at the same time. When
//!   kpg does not keep up with 100,000/s, lower rates are tried and the highest it sustains is
//!   named.
//!
//! `KPG_BENCH_ONLY=ingest` or `freshness` runs one part. `KPG_PERF_DIR=dir` also records
//! `perf record` profiles of kpg over each ingest window (`dir/ingest-<workers>w.data`;
//! `KPG_PERF_CALLGRAPH=dwarf` for call graphs of a build without frame pointers);
//! `KPG_BENCH_CASES=1w,2w,2w-noindex,2p` (the default) picks kpg's ingest runs (`2p`: a cluster
//! of two processes of one worker, each reading half the partitions). It
//! prints figures and ratios; it asserts that the rows arrived, never anything about time
//! (machines are shared and noisy).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::{SinkExt, StreamExt};
use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::{Offset, TopicPartitionList};

const SCALE_FACTOR: f64 = 0.1;
const PARTITIONS: i32 = 4;
/// Bare-consumer runs over the ingest topic (their median is the peer's rate).
const PEER_RUNS: usize = 3;
/// Offered loads of the freshness runs, records per second, and how long each lasts.
const RATES: [u64; 2] = [10_000, 100_000];
/// Tried in turn when kpg does not keep up with the last of `RATES`.
const FALLBACK_RATES: [u64; 2] = [50_000, 25_000];
const PHASE: Duration = Duration::from_secs(10);
/// Records sent in a phase's first second are left out of its percentiles (warm-up).
const WARMUP: Duration = Duration::from_secs(1);
/// A phase kept up if its last record reached the subscriber within this of being sent.
const KEPT_UP: Duration = Duration::from_secs(1);

fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_micros() as u64
}

/// One CSV field as PostgreSQL's `COPY (FORMAT csv)` reads it: quoted when it holds the
/// delimiter, a quote or a line break, or is empty (unquoted empty is NULL).
fn push_csv_field(out: &mut String, field: &str) {
    if field.is_empty() || field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// TPC-H lineitem at `SCALE_FACTOR` as CSV lines (no line breaks).
fn lineitem_csv() -> Vec<String> {
    kpg_tpch::rows("lineitem", SCALE_FACTOR, 1, 1)
        .map(|row| {
            let mut line = String::with_capacity(160);
            for (i, value) in row.iter().enumerate() {
                if i > 0 {
                    line.push(',');
                }
                match value {
                    kpg_tpch::Value::Int(v) => write!(line, "{v}").expect("write to a String"),
                    kpg_tpch::Value::Decimal(d) => {
                        let sign = if *d < 0 { "-" } else { "" };
                        let a = d.unsigned_abs();
                        write!(line, "{sign}{}.{:02}", a / 100, a % 100)
                            .expect("write to a String");
                    }
                    kpg_tpch::Value::Text(s) | kpg_tpch::Value::Date(s) => {
                        push_csv_field(&mut line, s)
                    }
                }
            }
            line
        })
        .collect()
}

/// `l_orderkey integer, ...` with the specification's types.
fn lineitem_columns() -> String {
    kpg_tpch::columns("lineitem")
        .iter()
        .map(|(name, ty)| format!("{name} {}", ty.sql(kpg_tpch::CharColumns::Char)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A consumer configured as kpg's reader configures its own (storage-sources/src/kafka.rs),
/// every partition of `topic` assigned from its beginning.
fn bare_consumer(broker: &str, topic: &str) -> BaseConsumer {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", broker)
        .set("group.id", format!("bench-peer-{topic}"))
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("enable.partition.eof", "false")
        .set("allow.auto.create.topics", "false")
        .set("fetch.queue.backoff.ms", "10")
        .create()
        .expect("bare consumer");
    let mut list = TopicPartitionList::new();
    for p in 0..PARTITIONS {
        list.add_partition_offset(topic, p, Offset::Beginning)
            .expect("partition");
    }
    consumer.assign(&list).expect("assign");
    consumer
}

/// The peer: a bare consumer (created, assigned, then polled) reading `total` records of
/// `topic`, touching each payload; seconds taken.
fn peer_read(broker: &str, topic: &str, total: usize) -> Duration {
    let started = Instant::now();
    let consumer = bare_consumer(broker, topic);
    let (mut n, mut bytes) = (0usize, 0usize);
    while n < total {
        match consumer.poll(Duration::from_millis(100)) {
            Some(Ok(m)) => {
                n += 1;
                bytes += m.payload().map_or(0, <[u8]>::len);
            }
            Some(Err(e)) => panic!("peer consumer: {e}"),
            None => assert!(
                started.elapsed() < Duration::from_secs(120),
                "the peer read {n} of {total} records in 120 s"
            ),
        }
    }
    assert!(bytes > 0);
    started.elapsed()
}

/// CPU seconds (user + system) in a `/proc/.../stat` file, and the name in it.
fn stat_cpu(path: &std::path::Path) -> Option<(String, f64)> {
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let stat = std::fs::read_to_string(path).ok()?;
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let name = stat[open + 1..close].to_string();
    // After the name: state is field 3; utime and stime are fields 14 and 15.
    let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Some((name, (field(11) + field(12)) / tick))
}

/// What `thread_cpu` calls the CPU of threads that are gone (the process's own figure counts
/// them: the store's merge threads, for one, end when their merge is done).
const ENDED_THREADS: &str = "(threads that ended)";

/// CPU seconds (user + system) of each thread of `pid`, summed by thread name, and of its
/// threads that ended, under [`ENDED_THREADS`].
fn thread_cpu(pid: u32) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        if let Some((name, seconds)) = stat_cpu(&task.path().join("stat")) {
            *out.entry(name).or_insert(0.0) += seconds;
        }
    }
    if let Some((_, total)) = stat_cpu(std::path::Path::new(&format!("/proc/{pid}/stat"))) {
        let live: f64 = out.values().sum();
        out.insert(ENDED_THREADS.to_string(), (total - live).max(0.0));
    }
    out
}

/// CPU seconds (user + system) of the whole process `pid`.
fn process_cpu(pid: u32) -> f64 {
    thread_cpu(pid).values().sum()
}

/// The page faults the processes have taken (`minflt` of `/proc/<pid>/stat`): each a page
/// of memory touched for the first time since it was mapped or returned to the kernel. Their
/// cost depends on the machine (on a VM whose memory the host backs lazily, a fault can cost
/// tens of microseconds), so the count says how much memory a run churns.
fn minor_faults(pids: &[u32]) -> u64 {
    pids.iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let after_name = &stat[stat.rfind(')')? + 2..];
            // Fields after the name: state, ppid, pgrp, session, tty, tpgid, flags, minflt.
            after_name.split_whitespace().nth(7)?.parse::<u64>().ok()
        })
        .sum()
}

/// The broker: this process's child running `java`.
fn broker_pid() -> Option<u32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
        let close = stat.rfind(')')?;
        let name = &stat[stat.find('(')? + 1..close];
        let ppid = stat[close + 2..].split_whitespace().nth(1)?;
        (name == "java" && ppid == me).then_some(pid)
    })
}

/// Per-thread CPU between two samples, largest first.
fn cpu_delta(before: &BTreeMap<String, f64>, after: &BTreeMap<String, f64>) -> Vec<(String, f64)> {
    let mut d: Vec<(String, f64)> = after
        .iter()
        .map(|(k, v)| (k.clone(), v - before.get(k).copied().unwrap_or(0.0)))
        .filter(|(_, v)| *v > 0.005)
        .collect();
    d.sort_by(|a, b| b.1.total_cmp(&a.1));
    d
}

/// The first cell of a one-row result.
async fn value(client: &Client, sql: &str) -> String {
    query(client, sql).await[0][0].clone().unwrap_or_default()
}

/// What one kpg ingest run measured.
struct Ingest {
    /// When each tenth of the records was readable.
    tenths: Vec<Duration>,
    /// How long a `SELECT count(*)` of all the records took afterwards.
    count_took: Duration,
    /// How long `CREATE SOURCE` and `CREATE INDEX` took (part of the ingest window).
    statements: (Duration, Duration),
    /// `SELECT count(*)` returned every record.
    visible: Duration,
    kpg_cpu: Vec<(String, f64)>,
    broker_cpu: f64,
    /// Page faults kpg took over the window (`minor_faults`).
    faults: u64,
}

/// For each tenth of the topic, per partition: `(l_orderkey, l_linenumber)` of the record that
/// ends that tenth of the partition (record `i` of `lines` went to partition `i % PARTITIONS`).
fn checkpoints(lines: &[String]) -> Vec<Vec<(String, String)>> {
    let partitions: Vec<Vec<&String>> = (0..PARTITIONS as usize)
        .map(|p| lines.iter().skip(p).step_by(PARTITIONS as usize).collect())
        .collect();
    (1..=10)
        .map(|tenth| {
            partitions
                .iter()
                .map(|records| {
                    let line = records[(records.len() * tenth).div_ceil(10) - 1];
                    let fields: Vec<&str> = line.split(',').collect();
                    (fields[0].to_string(), fields[3].to_string())
                })
                .collect()
        })
        .collect()
}

/// kpg with `workers` reads the whole topic into a source (indexed on `l_orderkey` if `index`).
/// The threads' CPU seconds of every process in `pids` (those of processes after the first
/// named `p<i>:`).
fn threads_cpu(pids: &[u32]) -> BTreeMap<String, f64> {
    let mut all = BTreeMap::new();
    for (i, pid) in pids.iter().enumerate() {
        for (name, s) in thread_cpu(*pid) {
            let name = match i {
                0 => name,
                _ => format!("p{i}:{name}"),
            };
            *all.entry(name).or_insert(0.0) += s;
        }
    }
    all
}

/// kpg's ingest with `workers` worker threads in one process, or with `processes` > 1 of one
/// worker each (a cluster: each process reads its share of the partitions).
async fn kpg_ingest(
    kafka: &Kafka,
    workers: usize,
    processes: usize,
    index: bool,
    lines: &[String],
) -> Ingest {
    let (single, cluster) = match processes {
        1 => (Some(KpgServer::start_with_workers(workers).await), None),
        _ => (None, Some(KpgCluster::start(processes, 1).await)),
    };
    let (c, pids) = match (&single, &cluster) {
        (Some(kpg), _) => (kpg.connect().await, vec![kpg.pid()]),
        (_, Some(cluster)) => (
            cluster.connect().await,
            (0..processes).map(|p| cluster.pid_of(p)).collect(),
        ),
        _ => unreachable!("one of the two was started"),
    };
    let pid = pids[0];
    let broker = broker_pid();
    let create = format!(
        "CREATE SOURCE lineitem ({}) FROM KAFKA BROKER '{}' TOPIC 'lineitem' FORMAT CSV",
        lineitem_columns(),
        kafka.broker()
    );
    let perf = Perf::start(
        pid,
        &format!("ingest-{workers}w{}", if index { "" } else { "-noindex" }),
    );
    let (cpu_before, broker_before) = (threads_cpu(&pids), broker.map_or(0.0, process_cpu));
    let faults_before = minor_faults(&pids);
    let started = Instant::now();
    execute(&c, &create).await;
    let created = started.elapsed();
    if index {
        execute(
            &c,
            "CREATE INDEX lineitem_orderkey ON lineitem (l_orderkey)",
        )
        .await;
    }
    let statements = (created, started.elapsed() - created);
    let deadline = Duration::from_secs(600);
    // Progress without counting: each partition is read and committed in order, a batch at a
    // time, so once the record ending a tenth of every partition is readable, so is every
    // record before it. Looked up by key: through the index, a fast-path read of a few hundred
    // microseconds of CPU, 20 ms apart (the pause was four times the last round's duration: a
    // round that waited for a commit made the next look come up to a second late, which the
    // figures then counted as ingest time); without one, a scan of the source, so rounds pause
    // for four times their own duration (at least 20 ms) to leave the ingest most of the CPU.
    let marks = checkpoints(lines);
    let everyone: Vec<usize> = (0..PARTITIONS as usize).collect();
    let (mut tenths, mut pending) = (Vec::new(), everyone.clone());
    while tenths.len() < marks.len() {
        let asked = Instant::now();
        let mut waiting = Vec::new();
        for &p in &pending {
            let (key, line) = &marks[tenths.len()][p];
            let rows = query(
                &c,
                &format!("SELECT l_linenumber FROM lineitem WHERE l_orderkey = {key}"),
            )
            .await;
            if !rows.iter().any(|r| r[0].as_deref() == Some(line.as_str())) {
                waiting.push(p);
            }
        }
        if waiting.is_empty() {
            tenths.push(started.elapsed());
            pending = everyone.clone();
            continue;
        }
        pending = waiting;
        assert!(started.elapsed() < deadline, "the rows did not arrive");
        assert!(
            broker.is_some_and(|p| std::path::Path::new(&format!("/proc/{p}")).exists()),
            "the Kafka broker exited"
        );
        let pause = match index {
            true => Duration::ZERO,
            false => asked.elapsed() * 4,
        };
        tokio::time::sleep(pause.max(Duration::from_millis(20))).await;
    }
    let visible = *tenths.last().expect("ten tenths");
    // CPU over the ingest window only: the count below is not part of it.
    let kpg_cpu = cpu_delta(&cpu_before, &threads_cpu(&pids));
    let broker_cpu = broker.map_or(0.0, process_cpu) - broker_before;
    let faults = minor_faults(&pids) - faults_before;
    perf.stop();
    let asked = Instant::now();
    let count = value(&c, "SELECT count(*) FROM lineitem").await;
    let count_took = asked.elapsed();
    assert_eq!(count, lines.len().to_string(), "SELECT count(*)");
    let errors = value(&c, "SELECT count(*) FROM kpg_source_errors").await;
    assert_eq!(errors, "0", "records kpg could not decode");
    if index {
        // The index answers.
        let n = value(&c, "SELECT count(*) FROM lineitem WHERE l_orderkey = 1").await;
        assert_ne!(n, "0");
    }
    let records = value(
        &c,
        "SELECT records FROM kpg_sources WHERE source = 'lineitem' LIMIT 1",
    )
    .await;
    assert_eq!(
        records,
        lines.len().to_string(),
        "kpg_sources counts every record"
    );
    Ingest {
        tenths,
        visible,
        count_took,
        statements,
        faults,
        kpg_cpu,
        broker_cpu,
    }
}

/// PostgreSQL: `COPY lineitem FROM STDIN (FORMAT csv)` of `lines` into a table indexed on
/// `l_orderkey`, committed; seconds taken.
async fn postgres_copy(pg: &Client, lines: &[String]) -> Duration {
    execute(
        pg,
        &format!("CREATE TABLE lineitem ({})", lineitem_columns()),
    )
    .await;
    execute(
        pg,
        "CREATE INDEX lineitem_orderkey ON lineitem (l_orderkey)",
    )
    .await;
    let started = Instant::now();
    let sink = pg
        .copy_in("COPY lineitem FROM STDIN (FORMAT csv)")
        .await
        .expect("COPY on PostgreSQL");
    let mut sink = Box::pin(sink);
    let mut chunk = String::new();
    for line in lines {
        chunk.push_str(line);
        chunk.push('\n');
        if chunk.len() > 1 << 20 {
            sink.send(bytes::Bytes::from(std::mem::take(&mut chunk)))
                .await
                .expect("COPY data");
        }
    }
    sink.send(bytes::Bytes::from(chunk))
        .await
        .expect("COPY data");
    let n = sink.as_mut().finish().await.expect("COPY done");
    let elapsed = started.elapsed();
    assert_eq!(n as usize, lines.len());
    elapsed
}

// ---------------------------------------------------------------------------------------------
// Freshness
// ---------------------------------------------------------------------------------------------

/// Latencies seen so far, by sequence number: (seq, microseconds from send to receipt).
type Seen = Arc<Mutex<Vec<(u64, u64)>>>;

/// Produces `seq,sent_us` records numbered `first..first + rate * PHASE` to `topic` at `rate`
/// per second (spread over the partitions by the client), pacing every millisecond; the rate
/// achieved.
fn produce_paced(
    producer: &ThreadedProducer<DefaultProducerContext>,
    first: u64,
    rate: u64,
) -> f64 {
    let total = rate * PHASE.as_secs();
    let started = Instant::now();
    let mut sent = 0u64;
    let mut value = String::with_capacity(40);
    while sent < total {
        let due = ((started.elapsed().as_secs_f64() * rate as f64) as u64).min(total);
        while sent < due {
            value.clear();
            write!(value, "{},{}", first + sent, now_us()).expect("write to a String");
            let mut record: BaseRecord<'_, [u8], [u8]> =
                BaseRecord::to("fresh").payload(value.as_bytes());
            loop {
                match producer.send(record) {
                    Ok(()) => break,
                    Err((_, r)) => {
                        // Queue full: the producer is behind; wait a little.
                        record = r;
                        std::thread::sleep(Duration::from_micros(200));
                    }
                }
            }
            sent += 1;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    producer.flush(Duration::from_secs(30)).expect("flush");
    total as f64 / started.elapsed().as_secs_f64()
}

/// The bare consumer of the freshness topic: records each record's latency until `stop`.
fn peer_watch(broker: String, seen: Seen, stop: Arc<std::sync::atomic::AtomicBool>) {
    let consumer = bare_consumer(&broker, "fresh");
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(50)) {
            let at = now_us();
            if let Some((seq, sent)) = m.payload().and_then(parse_seq_sent) {
                seen.lock().unwrap().push((seq, at.saturating_sub(sent)));
            }
        }
    }
}

fn parse_seq_sent(value: &[u8]) -> Option<(u64, u64)> {
    let text = std::str::from_utf8(value).ok()?;
    let (seq, sent) = text.trim().split_once(',')?;
    Some((seq.parse().ok()?, sent.parse().ok()?))
}

/// The subscriber: `COPY (SUBSCRIBE v) TO STDOUT`, each inserted row's latency (rows are
/// `mz_timestamp, mz_diff, seq, sent`), and its two parts: until the timestamp kpg gave the row
/// (its commit's time, in ms: the reader and the start of the commit) and from then on
/// (durability, the dataflows, the subscription, the client).
async fn subscribe_watch(client: Client, seen: Seen, parts: [Seen; 2]) {
    let stream = client
        .copy_out("COPY (SUBSCRIBE v) TO STDOUT")
        .await
        .expect("SUBSCRIBE");
    let mut stream = Box::pin(stream);
    let mut buf = Vec::new();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else { return };
        let at = now_us();
        buf.extend_from_slice(&chunk);
        let mut start = 0;
        let mut found = Vec::new();
        let mut split = Vec::new();
        while let Some(pos) = buf[start..].iter().position(|b| *b == b'\n') {
            let line = &buf[start..start + pos];
            start += pos + 1;
            let fields: Vec<&[u8]> = line.split(|b| *b == b'\t').collect();
            if fields.len() == 4 && fields[1] == b"1" {
                let seq = std::str::from_utf8(fields[2])
                    .ok()
                    .and_then(|s| s.parse().ok());
                let sent = std::str::from_utf8(fields[3])
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok());
                let stamped = std::str::from_utf8(fields[0])
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .map(|ms| ms * 1000);
                if let (Some(seq), Some(sent), Some(stamped)) = (seq, sent, stamped) {
                    found.push((seq, at.saturating_sub(sent)));
                    split.push((
                        seq,
                        stamped.saturating_sub(sent),
                        at.saturating_sub(stamped),
                    ));
                }
            }
        }
        buf.drain(..start);
        seen.lock().unwrap().extend(found);
        parts[0]
            .lock()
            .unwrap()
            .extend(split.iter().map(|(s, before, _)| (*s, *before)));
        parts[1]
            .lock()
            .unwrap()
            .extend(split.iter().map(|(s, _, after)| (*s, *after)));
    }
}

/// p50, p99 and max of the latencies of records `range` sent after the warm-up, in ms, and
/// how many of the phase's records were seen at all.
struct Latency {
    p50: f64,
    p99: f64,
    max: f64,
    seen: usize,
}

fn latency(seen: &Seen, range: std::ops::Range<u64>, warmup: u64) -> Latency {
    let seen = seen.lock().unwrap();
    let in_phase: Vec<u64> = seen
        .iter()
        .filter(|(s, _)| range.contains(s))
        .map(|(_, l)| *l)
        .collect();
    let mut measured: Vec<u64> = seen
        .iter()
        .filter(|(s, _)| *s >= range.start + warmup && *s < range.end)
        .map(|(_, l)| *l)
        .collect();
    measured.sort_unstable();
    let at = |p: f64| {
        if measured.is_empty() {
            f64::NAN
        } else {
            measured[((measured.len() - 1) as f64 * p).round() as usize] as f64 / 1e3
        }
    };
    Latency {
        p50: at(0.5),
        p99: at(0.99),
        max: at(1.0),
        seen: in_phase.len(),
    }
}

/// Waits until `seen` holds every record of `range`, at most `limit`; whether it did.
async fn wait_seen(seen: &Seen, range: &std::ops::Range<u64>, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        let n = seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(s, _)| range.contains(s))
            .count();
        if n as u64 >= range.end - range.start {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The freshness runs: one kpg (2 workers), one source, one subscriber, phases at each rate.
async fn freshness(kafka: &Kafka) {
    kafka.create_topic("fresh", PARTITIONS).await;
    let kpg = KpgServer::start_with_workers(2).await;
    let c = kpg.connect().await;
    execute(
        &c,
        &format!(
            "CREATE SOURCE fresh (seq int8 NOT NULL, sent int8 NOT NULL) FROM KAFKA BROKER '{}' \
             TOPIC 'fresh' FORMAT CSV",
            kafka.broker()
        ),
    )
    .await;
    execute(
        &c,
        "CREATE MATERIALIZED VIEW v AS SELECT seq, sent FROM fresh",
    )
    .await;
    let kpg_seen: Seen = Arc::default();
    let peer_seen: Seen = Arc::default();
    let kpg_parts: [Seen; 2] = Default::default();
    tokio::spawn(subscribe_watch(
        kpg.connect().await,
        Arc::clone(&kpg_seen),
        kpg_parts.clone(),
    ));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let peer = {
        let (broker, seen, stop) = (kafka.broker(), Arc::clone(&peer_seen), Arc::clone(&stop));
        std::thread::spawn(move || peer_watch(broker, seen, stop))
    };
    let producer: Arc<ThreadedProducer<DefaultProducerContext>> = Arc::new(
        ClientConfig::new()
            .set("bootstrap.servers", kafka.broker())
            .set("linger.ms", "1")
            .set("queue.buffering.max.messages", "1000000")
            .create()
            .expect("producer"),
    );
    // A record that both readers see before the first phase (the source is running).
    let mut next = 0u64;
    let warm = next..next + 1;
    {
        let p = Arc::clone(&producer);
        tokio::task::spawn_blocking(move || {
            p.send(
                BaseRecord::<[u8], [u8]>::to("fresh").payload(format!("0,{}", now_us()).as_bytes()),
            )
            .map_err(|(e, _)| e)
            .expect("produce");
            p.flush(Duration::from_secs(10)).expect("flush");
        })
        .await
        .unwrap();
    }
    next += 1;
    assert!(
        wait_seen(&kpg_seen, &warm, Duration::from_secs(30)).await,
        "first record"
    );
    assert!(wait_seen(&peer_seen, &warm, Duration::from_secs(30)).await);

    println!(
        "\nfreshness: produce `seq,sent` -> COPY (SUBSCRIBE v) TO STDOUT of a materialized view \
         over the source (kpg, 2 workers); {}s per rate, the first {}s left out; ms:",
        PHASE.as_secs(),
        WARMUP.as_secs()
    );
    println!(
        "  {:>8} {:>9} | {:>8} {:>8} {:>8} {:>8} | {:>8} {:>8} {:>8} | kept up",
        "offered",
        "achieved",
        "kpg p50",
        "kpg p99",
        "kpg max",
        "drain",
        "peer p50",
        "peer p99",
        "peer max"
    );
    let mut sustained = None;
    let mut plan: Vec<u64> = RATES.to_vec();
    let mut i = 0;
    while i < plan.len() {
        let rate = plan[i];
        i += 1;
        let range = next..next + rate * PHASE.as_secs();
        next = range.end;
        let (cpu_before, pid) = (thread_cpu(kpg.pid()), kpg.pid());
        let perf = Perf::start(pid, &format!("freshness-{rate}"));
        let started = Instant::now();
        let achieved = {
            let p = Arc::clone(&producer);
            let first = range.start;
            tokio::task::spawn_blocking(move || produce_paced(&p, first, rate))
                .await
                .unwrap()
        };
        let produced = started.elapsed();
        let all = wait_seen(&kpg_seen, &range, Duration::from_secs(120)).await;
        let drain = started.elapsed().saturating_sub(produced);
        perf.stop();
        let threads = cpu_delta(&cpu_before, &thread_cpu(pid));
        let cpu: f64 = threads.iter().map(|(_, s)| s).sum();
        let wall = started.elapsed().as_secs_f64();
        wait_seen(&peer_seen, &range, Duration::from_secs(10)).await;
        let warmup = rate * WARMUP.as_secs();
        let k = latency(&kpg_seen, range.clone(), warmup);
        let p = latency(&peer_seen, range.clone(), warmup);
        let kept_up = all && drain <= KEPT_UP;
        println!(
            "  {:>8} {:>9.0} | {:>8.1} {:>8.1} {:>8.1} {:>8.0} | {:>8.1} {:>8.1} {:>8.1} | {}{}",
            rate,
            achieved,
            k.p50,
            k.p99,
            k.max,
            drain.as_secs_f64() * 1e3,
            p.p50,
            p.p99,
            p.max,
            if kept_up { "yes" } else { "no" },
            if all {
                String::new()
            } else {
                format!(
                    " (only {} of {} records seen)",
                    k.seen,
                    range.end - range.start
                )
            }
        );
        let (before, after) = (
            latency(&kpg_parts[0], range.clone(), warmup),
            latency(&kpg_parts[1], range.clone(), warmup),
        );
        println!(
            "  {:>8} kpg p50/p99: until the row's timestamp {:.1}/{:.1} ms, after it {:.1}/{:.1} ms",
            "", before.p50, before.p99, after.p50, after.p99
        );
        let busiest: Vec<String> = threads
            .iter()
            .take(4)
            .map(|(name, s)| format!("{name} {:.0}%", s / wall * 100.0))
            .collect();
        println!(
            "  {:>8} kpg CPU {:.2} s over {:.1} s ({:.0}% of one core: {})",
            "",
            cpu,
            wall,
            cpu / wall * 100.0,
            busiest.join(", ")
        );
        if kept_up {
            sustained = Some(sustained.map_or(rate, |s: u64| s.max(rate)));
        } else if i == plan.len() {
            // Not at the highest rate: try the next lower one.
            if let Some(r) = FALLBACK_RATES.get(plan.len() - RATES.len()) {
                plan.push(*r);
            }
        }
        if !all {
            // The backlog would skew the next phase.
            break;
        }
    }
    match sustained {
        Some(r) => println!("  highest offered rate kpg kept up with: {r} records/s"),
        None => println!("  kpg kept up with none of the offered rates"),
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    peer.join().unwrap();
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let only = std::env::var("KPG_BENCH_ONLY").unwrap_or_default();
    let kafka = Kafka::start().await;
    if only != "freshness" {
        ingest(&kafka).await;
    }
    if only != "ingest" {
        freshness(&kafka).await;
    }
}

/// The ingest runs, and their report.
async fn ingest(kafka: &Kafka) {
    let pg = Postgres::start_with_settings(&[
        ("fsync", "on"),
        ("synchronous_commit", "on"),
        ("full_page_writes", "on"),
    ])
    .await;
    let lines = tokio::task::spawn_blocking(lineitem_csv).await.unwrap();
    let total = lines.len();
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    kafka.create_topic("lineitem", PARTITIONS).await;
    let started = Instant::now();
    let records: Vec<_> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (None, Some(l.as_bytes()), Some(i as i32 % PARTITIONS)))
        .collect();
    tokio::task::block_in_place(|| kafka.produce("lineitem", &records));
    drop(records);
    println!(
        "TPC-H lineitem SF {SCALE_FACTOR}: {total} records, {:.1} MiB of CSV, produced to {PARTITIONS} \
         partitions in {:.1}s (not timed below)",
        bytes as f64 / (1 << 20) as f64,
        started.elapsed().as_secs_f64()
    );

    // The peer first: it also warms the broker's page cache for everyone after it.
    let mut peer = Vec::new();
    for _ in 0..PEER_RUNS {
        let broker = kafka.broker();
        peer.push(
            tokio::task::spawn_blocking(move || peer_read(&broker, "lineitem", total))
                .await
                .unwrap(),
        );
    }
    let mut sorted = peer.clone();
    sorted.sort();
    let peer_time = sorted[sorted.len() / 2];
    let peer_rate = total as f64 / peer_time.as_secs_f64();

    let pg_time = postgres_copy(&pg.connect().await, &lines).await;
    let pg_rate = total as f64 / pg_time.as_secs_f64();

    println!(
        "\ningest of {total} records (rows/s; kpg: CREATE SOURCE until every row is readable):"
    );
    println!(
        "  bare rdkafka BaseConsumer (peer)        {:>9.0} rows/s  ({:.2}s; runs {})",
        peer_rate,
        peer_time.as_secs_f64(),
        peer.iter()
            .map(|d| format!("{:.2}s", d.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "  PostgreSQL 15 COPY (FORMAT csv), indexed {:>9.0} rows/s  ({:.2}s, fsync on)",
        pg_rate,
        pg_time.as_secs_f64()
    );
    // `KPG_BENCH_CASES=1w,2w,2w-noindex,2p` (the default: all four) picks kpg's runs; `2p` is
    // a cluster of 2 processes of 1 worker each.
    let cases = std::env::var("KPG_BENCH_CASES").unwrap_or_else(|_| "1w,2w,2w-noindex,2p".into());
    for (workers, processes, index) in [(1, 1, true), (2, 1, true), (2, 1, false), (2, 2, true)] {
        let case = match processes {
            1 => format!("{workers}w{}", if index { "" } else { "-noindex" }),
            _ => format!("{processes}p"),
        };
        if !cases.split(',').any(|c| c.trim() == case) {
            continue;
        }
        let run = kpg_ingest(kafka, workers, processes, index, &lines).await;
        let rate = total as f64 / run.visible.as_secs_f64();
        let half = run.tenths[4];
        let first_half = total as f64 / 2.0 / half.as_secs_f64();
        let second_half = total as f64 / 2.0 / (run.visible - half).as_secs_f64();
        let who = match processes {
            1 => format!("{workers} worker{}", if workers == 1 { " " } else { "s" }),
            _ => format!("{processes} processes x 1 worker"),
        };
        println!(
            "  kpg {who} {:<20} {:>9.0} rows/s  ({:.2}s; {:.0} rows/s in the first half, \
             {:.0} in the second)  {:.2}x the peer, {:.2}x PostgreSQL, {:.3}x the 500k target",
            if index { "indexed" } else { "no index" },
            rate,
            run.visible.as_secs_f64(),
            first_half,
            second_half,
            rate / peer_rate,
            rate / pg_rate,
            rate / 500_000.0
        );
        let wall = run.visible.as_secs_f64();
        let total_cpu: f64 = run.kpg_cpu.iter().map(|(_, s)| s).sum();
        println!(
            "    CPU {total_cpu:.2}s ({:.0}% of one core, {:.1} us per row), broker {:.2}s; CREATE \
             SOURCE took {:.0} ms, CREATE INDEX {:.0} ms; {} page faults ({:.0} MiB of pages, {:.2} \
             a row); then a count(*) of every row took {:.0} ms; by thread (us per row):",
            total_cpu / wall * 100.0,
            total_cpu / total as f64 * 1e6,
            run.broker_cpu,
            run.statements.0.as_secs_f64() * 1e3,
            run.statements.1.as_secs_f64() * 1e3,
            run.faults,
            run.faults as f64 * 4096.0 / (1 << 20) as f64,
            run.faults as f64 / total as f64,
            run.count_took.as_secs_f64() * 1e3
        );
        let threads: Vec<String> = run
            .kpg_cpu
            .iter()
            .take(10)
            .map(|(name, s)| format!("{name} {s:.2}s ({:.1})", s / total as f64 * 1e6))
            .collect();
        println!("    {}", threads.join(", "));
        let tenths: Vec<String> = run
            .tenths
            .iter()
            .map(|t| format!("{:.2}", t.as_secs_f64()))
            .collect();
        println!("    each tenth readable at (s): {}", tenths.join(", "));
    }
}
