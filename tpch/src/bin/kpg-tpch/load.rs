//! `kpg-tpch load`: streams the 8 TPC-H relations of a scale factor into Kafka, one topic per
//! relation, one CSV record per row in the schema's column order (`kpg_tpch::columns`), at a
//! rate of rows per second (0: as fast as the broker takes them), with a progress line every
//! second. The relations are interleaved round-robin, one row of each in turn: the small keyed
//! relations (region, nation, supplier) are complete within the first rows, the larger ones
//! progress at the same pace, and lineitem, the largest, streams on after the others end (the
//! stream of events of the paper's scenario).
//! Topics are created if missing. The producer is idempotent; the command ends when every
//! record is acknowledged, and fails if any could not be delivered.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::{ClientContext, DefaultClientContext};
use rdkafka::config::ClientConfig;
use rdkafka::error::KafkaError;
use rdkafka::message::DeliveryResult;
use rdkafka::producer::{BaseRecord, Producer, ProducerContext, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;

use kpg_tpch::demo::csv_record;
use kpg_tpch::{rows, Row, TABLES};

#[derive(Args)]
pub struct LoadArgs {
    /// The Kafka broker (host:port).
    #[arg(long, default_value = "127.0.0.1:9092")]
    broker: String,
    /// TPC-H scale factor (1 is 8.66 million rows).
    #[arg(long, default_value_t = 0.1)]
    scale_factor: f64,
    /// Rows per second over all relations; 0 is as fast as possible.
    #[arg(long, default_value_t = 10_000)]
    rate: u64,
    /// Partitions of each topic the loader creates.
    #[arg(long, default_value_t = 1)]
    partitions: i32,
    /// Topic names are this prefix and the relation's name.
    #[arg(long, default_value = "tpch-")]
    topic_prefix: String,
}

/// Counts the broker's acknowledgements and failures.
struct Counting {
    acked: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
    first_error: Arc<std::sync::Mutex<Option<String>>>,
}

impl ClientContext for Counting {}

impl ProducerContext for Counting {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        match result {
            Ok(_) => {
                self.acked.fetch_add(1, Ordering::Relaxed);
            }
            Err((e, _)) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                self.first_error
                    .lock()
                    .unwrap()
                    .get_or_insert_with(|| e.to_string());
            }
        }
    }
}

/// One relation's stream of rows.
struct Stream {
    table: &'static str,
    topic: String,
    rows: Box<dyn Iterator<Item = Row> + Send>,
    sent: u64,
    done: bool,
}

pub async fn create_topics(broker: &str, topics: &[String], partitions: i32) -> anyhow::Result<()> {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", broker)
        .create()?;
    let new: Vec<NewTopic<'_>> = topics
        .iter()
        .map(|t| NewTopic::new(t, partitions, TopicReplication::Fixed(1)))
        .collect();
    let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    for result in admin.create_topics(&new, &options).await? {
        match result {
            Ok(topic) => println!("created topic {topic} ({partitions} partitions)"),
            Err((topic, RDKafkaErrorCode::TopicAlreadyExists)) => {
                println!("topic {topic} exists")
            }
            Err((topic, e)) => anyhow::bail!("creating topic {topic}: {e}"),
        }
    }
    Ok(())
}

pub async fn load(args: LoadArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.scale_factor > 0.0, "the scale factor must be positive");
    anyhow::ensure!(args.partitions > 0, "a topic needs at least one partition");
    let mut streams: Vec<Stream> = TABLES
        .iter()
        .map(|&table| Stream {
            table,
            topic: format!("{}{table}", args.topic_prefix),
            rows: rows(table, args.scale_factor, 1, 1),
            sent: 0,
            done: false,
        })
        .collect();
    let topics: Vec<String> = streams.iter().map(|s| s.topic.clone()).collect();
    create_topics(&args.broker, &topics, args.partitions).await?;

    let (acked, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let first_error = Arc::new(std::sync::Mutex::new(None));
    let producer: ThreadedProducer<Counting> = ClientConfig::new()
        .set("bootstrap.servers", &args.broker)
        .set("enable.idempotence", "true")
        .set("linger.ms", "20")
        .set("message.timeout.ms", "120000")
        .create_with_context(Counting {
            acked: acked.clone(),
            failed: failed.clone(),
            first_error: first_error.clone(),
        })?;

    let started = Instant::now();
    let (mut sent, mut last_sent, mut last_print) = (0u64, 0u64, started);
    println!(
        "loading TPC-H scale factor {} into {} ({} rows/s{})",
        args.scale_factor,
        args.broker,
        if args.rate == 0 {
            "as many".to_string()
        } else {
            args.rate.to_string()
        },
        if args.rate == 0 {
            " as the broker takes"
        } else {
            ""
        },
    );
    let blocking = tokio::task::spawn_blocking(move || -> anyhow::Result<u64> {
        // Round-robin: one row of each relation not yet at its end, in turn.
        let mut turn = 0;
        while streams.iter().any(|s| !s.done) {
            let next = &mut streams[turn % TABLES.len()];
            turn += 1;
            if next.done {
                continue;
            }
            let Some(row) = next.rows.next() else {
                next.done = true;
                continue;
            };
            let payload = csv_record(&row);
            let mut record: BaseRecord<'_, (), str> = BaseRecord::to(&next.topic).payload(&payload);
            loop {
                match producer.send(record) {
                    Ok(()) => break,
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), r)) => {
                        record = r;
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err((e, _)) => anyhow::bail!("producing to {}: {e}", next.topic),
                }
            }
            next.sent += 1;
            sent += 1;
            if args.rate > 0 {
                let due = Duration::from_secs_f64(sent as f64 / args.rate as f64);
                let elapsed = started.elapsed();
                if due > elapsed {
                    std::thread::sleep(due - elapsed);
                }
            }
            if last_print.elapsed() >= Duration::from_secs(1) {
                let secs = last_print.elapsed().as_secs_f64();
                print_progress(
                    &streams,
                    started,
                    sent,
                    (sent - last_sent) as f64 / secs,
                    &acked,
                );
                last_sent = sent;
                last_print = Instant::now();
            }
        }
        println!("all {sent} rows sent; waiting for the broker's acknowledgements");
        producer.flush(Duration::from_secs(120))?;
        print_progress(
            &streams,
            started,
            sent,
            sent as f64 / started.elapsed().as_secs_f64(),
            &acked,
        );
        Ok(sent)
    });
    let sent = blocking.await??;
    let failed = failed.load(Ordering::Relaxed);
    if failed > 0 {
        anyhow::bail!(
            "{failed} of {sent} records were not delivered (first: {})",
            first_error.lock().unwrap().clone().unwrap_or_default()
        );
    }
    println!(
        "done: {sent} rows in {:.1}s ({:.0} rows/s)",
        started.elapsed().as_secs_f64(),
        sent as f64 / started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn print_progress(streams: &[Stream], started: Instant, sent: u64, rate: f64, acked: &AtomicU64) {
    let tables: Vec<String> = streams
        .iter()
        .map(|s| {
            if s.done {
                format!("{} {} done", s.table, s.sent)
            } else {
                format!("{} {}", s.table, s.sent)
            }
        })
        .collect();
    println!(
        "[{:>6.1}s] sent {sent} acked {} | {rate:.0} rows/s | {}",
        started.elapsed().as_secs_f64(),
        acked.load(Ordering::Relaxed),
        tables.join(", ")
    );
}
