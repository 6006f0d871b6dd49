//! Writing to Kafka exactly once: a transactional producer whose every transaction carries a
//! batch of messages and the sink's progress record, and the read-back of what a topic holds
//! (committed transactions only) that a restarted sink reconciles against.
//!
//! The transactional id is the sink's, stable across restarts, so a new producer fences off a
//! previous one that may still be alive and aborts its open transaction: after a crash, the
//! topic holds exactly the committed transactions.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Header, Message, OwnedHeaders};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::{Offset, TopicPartitionList};

const TIMEOUT: Duration = Duration::from_secs(30);

/// One message to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub topic: String,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    /// Written as the `kpg-timestamp` header.
    pub timestamp: u64,
}

/// Creates `topic` (one partition) unless it exists.
pub fn ensure_topic(broker: &str, topic: &str) -> Result<(), String> {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", broker)
        .create()
        .map_err(|e| format!("cannot reach Kafka at {broker}: {e}"))?;
    let new = NewTopic::new(topic, 1, TopicReplication::Fixed(1));
    let results = futures::executor::block_on(admin.create_topics(
        [&new],
        &AdminOptions::new().operation_timeout(Some(TIMEOUT)),
    ))
    .map_err(|e| format!("cannot create topic \"{topic}\": {e}"))?;
    for r in results {
        match r {
            Ok(_) => {}
            Err((_, rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((t, e)) => return Err(format!("cannot create topic \"{t}\": {e}")),
        }
    }
    Ok(())
}

/// A message read back: its key and value.
pub type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// The committed messages of `topic`, per partition in offset order.
pub fn read_back(broker: &str, topic: &str) -> Result<Vec<KeyValue>, String> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", broker)
        .set("group.id", format!("kpg-sink-readback-{topic}"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .map_err(|e| format!("cannot create a Kafka consumer: {e}"))?;
    let metadata = consumer
        .fetch_metadata(Some(topic), TIMEOUT)
        .map_err(|e| format!("cannot read the metadata of topic \"{topic}\": {e}"))?;
    let partitions: Vec<i32> = metadata
        .topics()
        .iter()
        .filter(|t| t.name() == topic)
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect();
    let mut ends = BTreeMap::new();
    let mut list = TopicPartitionList::new();
    for p in &partitions {
        let (_, high) = consumer
            .fetch_watermarks(topic, *p, TIMEOUT)
            .map_err(|e| format!("cannot read the end of topic \"{topic}\": {e}"))?;
        ends.insert(*p, high);
        list.add_partition_offset(topic, *p, Offset::Beginning)
            .map_err(|e| e.to_string())?;
    }
    consumer.assign(&list).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let deadline = Instant::now() + TIMEOUT;
    loop {
        // Done when every partition's position has reached its end (control records count).
        let positions = consumer.position().map_err(|e| e.to_string())?;
        let done = ends.iter().all(|(p, end)| {
            *end == 0
                || positions
                    .find_partition(topic, *p)
                    .and_then(|e| match e.offset() {
                        Offset::Offset(o) => Some(o >= *end),
                        _ => None,
                    })
                    .unwrap_or(false)
        });
        if done {
            return Ok(out);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "reading back topic \"{topic}\" took over {TIMEOUT:?}"
            ));
        }
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => out.push((m.key().map(<[u8]>::to_vec), m.payload().map(<[u8]>::to_vec))),
            Some(Err(e)) => return Err(format!("reading back topic \"{topic}\": {e}")),
            None => {}
        }
    }
}

/// A transactional producer.
pub struct TransactionalWriter {
    producer: ThreadedProducer<DefaultProducerContext>,
}

impl TransactionalWriter {
    /// Connects with `transactional_id`, fencing off earlier producers of that id.
    pub fn new(broker: &str, transactional_id: &str) -> Result<TransactionalWriter, String> {
        let producer: ThreadedProducer<DefaultProducerContext> = ClientConfig::new()
            .set("bootstrap.servers", broker)
            .set("transactional.id", transactional_id)
            .set("enable.idempotence", "true")
            .set("linger.ms", "1")
            .create()
            .map_err(|e| format!("cannot create a Kafka producer for {broker}: {e}"))?;
        producer
            .init_transactions(TIMEOUT)
            .map_err(|e| format!("cannot start transactions on {broker}: {e}"))?;
        Ok(TransactionalWriter { producer })
    }

    /// Writes `messages` in one transaction; on failure the transaction is aborted and nothing
    /// of it is visible to read_committed consumers.
    pub fn write(&self, messages: &[Outgoing]) -> Result<(), String> {
        self.producer
            .begin_transaction()
            .map_err(|e| format!("beginning a transaction: {e}"))?;
        let result = self.send_all(messages).and_then(|()| {
            self.producer
                .commit_transaction(TIMEOUT)
                .map_err(|e| format!("committing a transaction: {e}"))
        });
        if result.is_err() {
            let _ = self.producer.abort_transaction(TIMEOUT);
        }
        result
    }

    fn send_all(&self, messages: &[Outgoing]) -> Result<(), String> {
        for m in messages {
            let ts = m.timestamp.to_string();
            let headers = OwnedHeaders::new().insert(Header {
                key: "kpg-timestamp",
                value: Some(&ts),
            });
            let mut record: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(&m.topic).headers(headers);
            if let Some(k) = &m.key {
                record = record.key(k.as_slice());
            }
            if let Some(v) = &m.value {
                record = record.payload(v.as_slice());
            }
            let mut record = record;
            loop {
                match self.producer.send(record) {
                    Ok(()) => break,
                    Err((
                        rdkafka::error::KafkaError::MessageProduction(
                            rdkafka::types::RDKafkaErrorCode::QueueFull,
                        ),
                        r,
                    )) => {
                        record = r;
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err((e, _)) => return Err(format!("producing to \"{}\": {e}", m.topic)),
                }
            }
        }
        self.producer
            .flush(TIMEOUT)
            .map_err(|e| format!("flushing the producer: {e}"))
    }
}
