//! Reading a Kafka topic: every partition of a share of them (a source's partitions are spread
//! over several readers, `records::Share`), from the offsets kpg has durably consumed up to.
//!
//! kpg does not use consumer groups to decide what to read: the partitions are assigned
//! explicitly, starting at the offsets stored with the data in kpg's data directory, so a
//! restart resumes exactly where the stored data ends (no record read twice or skipped). New
//! partitions are picked up by re-reading the topic's metadata every few seconds; a partition
//! kpg has not read before starts at its beginning.
//!
//! If the broker no longer has the records kpg needs next (the topic's retention deleted them
//! while kpg was stopped or behind), librdkafka is told not to jump elsewhere
//! (`auto.offset.reset = error`): the reader reports the loss (`RecordReader::lost`), the
//! partition reads no further, and the source says so in its status rather than silently
//! skipping records.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::message::{BorrowedMessage, Headers, Message};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};

use crate::records::{HeaderLine, Record, RecordReader, Share};
use kpg_types::external::KafkaStart;

/// How often the topic's partitions are looked up again.
const METADATA_REFRESH: Duration = Duration::from_secs(5);
/// How long an empty poll keeps reporting the last connection error.
const ERROR_MEMORY: Duration = Duration::from_secs(15);
/// The most queued error events one poll drains.
const MAX_ERRORS_PER_POLL: usize = 10_000;
/// How long a metadata request may take.
const METADATA_TIMEOUT: Duration = Duration::from_secs(10);
/// How long librdkafka waits before fetching a partition whose prefetch queue was full (its
/// default, 1000 ms, stalls a reader catching up on a backlog; see `connect`).
const FETCH_QUEUE_BACKOFF_MS: &str = "10";

pub struct KafkaReader {
    consumer: BaseConsumer,
    topic: String,
    /// The next offset of each assigned partition.
    next: BTreeMap<i32, i64>,
    /// The partitions this reader reads.
    share: Share,
    refreshed: Instant,
    /// The last connection error and when it came: until records arrive, or it is older
    /// than `ERROR_MEMORY`, an empty poll reports it (librdkafka repeats it only as often as
    /// it retries, so a down broker must not look healthy in between).
    last_error: Option<(Instant, String)>,
    /// Why records kpg needs are gone from the broker, once that happened.
    lost: Option<String>,
    /// Whether records' headers are read.
    headers: bool,
    /// CSV's `WITH HEADER`: a record at offset 0 that is this header line is skipped.
    header: Option<HeaderLine>,
}

impl KafkaReader {
    /// Connects to `broker` and assigns the partitions of `topic` that `share` owns, each from
    /// its offset in `start` (the next offset to read), or where `first` says. Fails with a
    /// message if the broker cannot be reached or the topic does not exist.
    pub fn connect(
        broker: &str,
        topic: &str,
        start: &BTreeMap<i32, i64>,
        first: &KafkaStart,
        share: Share,
        header: Option<HeaderLine>,
    ) -> Result<KafkaReader, String> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", broker)
            // Offsets are kpg's, kept in its data directory; the group id is only a name.
            .set("group.id", format!("kpg-{topic}"))
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("enable.partition.eof", "false")
            .set("allow.auto.create.topics", "false")
            // An offset the broker no longer has is an error, never a silent jump.
            .set("auto.offset.reset", "error")
            // Once the prefetch queue is full, librdkafka by default waits a whole second
            // before fetching that partition again: a reader that decodes between polls then
            // drains the queue and sits idle for most of that second (a backlog was read in
            // bursts of one partition's worth with ~0.8 s gaps). Fetch again soon instead.
            .set("fetch.queue.backoff.ms", FETCH_QUEUE_BACKOFF_MS)
            .create()
            .map_err(|e| format!("cannot create a Kafka consumer for {broker}: {e}"))?;
        let mut reader = KafkaReader {
            consumer,
            topic: topic.to_string(),
            next: start
                .iter()
                .filter(|(p, _)| share.owns(**p))
                .map(|(p, o)| (*p, *o))
                .collect(),
            share,
            refreshed: Instant::now(),
            last_error: None,
            lost: None,
            headers: true,
            header,
        };
        let partitions = reader.partitions()?;
        let from_time = match first {
            KafkaStart::Timestamp(ms) => Some(reader.offsets_for_time(&partitions, *ms)?),
            _ => None,
        };
        let mut list = TopicPartitionList::new();
        for p in &partitions {
            let first = match (first, &from_time) {
                (KafkaStart::Offsets(o), _) => o
                    .get(*p as usize)
                    .map_or(Offset::Beginning, |o| Offset::Offset(*o)),
                (_, Some(at)) => at.get(p).copied().unwrap_or(Offset::End),
                _ => Offset::Beginning,
            };
            let offset = start.get(p).map_or(first, |o| Offset::Offset(*o));
            // Where the partition starts, as a number: the position the first commit stores
            // for it even when nothing of it was read, so that a restart starts there too
            // (not at 0, before a START OFFSET or START TIMESTAMP).
            let at = match offset {
                Offset::Offset(n) => n,
                logical => {
                    let (low, high) = reader
                        .consumer
                        .fetch_watermarks(topic, *p, METADATA_TIMEOUT)
                        .map_err(|e| format!("reading the offsets of partition {p}: {e}"))?;
                    match logical {
                        Offset::End => high,
                        _ => low,
                    }
                }
            };
            list.add_partition_offset(topic, *p, Offset::Offset(at))
                .map_err(|e| format!("assigning partition {p}: {e}"))?;
            reader.next.insert(*p, at);
        }
        reader
            .consumer
            .assign(&list)
            .map_err(|e| format!("assigning the partitions of topic \"{topic}\": {e}"))?;
        Ok(reader)
    }

    /// The offset of each partition's first record at or after `ms` (the end where there is
    /// none).
    fn offsets_for_time(
        &self,
        partitions: &[i32],
        ms: i64,
    ) -> Result<BTreeMap<i32, Offset>, String> {
        let mut list = TopicPartitionList::new();
        for p in partitions {
            list.add_partition_offset(&self.topic, *p, Offset::Offset(ms))
                .map_err(|e| e.to_string())?;
        }
        let found = self
            .consumer
            .offsets_for_times(list, METADATA_TIMEOUT)
            .map_err(|e| {
                format!(
                    "looking up offsets by time in topic \"{}\": {e}",
                    self.topic
                )
            })?;
        Ok(found
            .elements()
            .iter()
            .map(|e| (e.partition(), e.offset()))
            .collect())
    }

    /// The topic's partitions this reader owns, from the broker.
    fn partitions(&self) -> Result<Vec<i32>, String> {
        let metadata = self
            .consumer
            .fetch_metadata(Some(&self.topic), METADATA_TIMEOUT)
            .map_err(|e| format!("cannot read the metadata of topic \"{}\": {e}", self.topic))?;
        let topic = metadata
            .topics()
            .iter()
            .find(|t| t.name() == self.topic)
            .ok_or_else(|| format!("topic \"{}\" does not exist", self.topic))?;
        if let Some(e) = topic.error() {
            let code = rdkafka::types::RDKafkaErrorCode::from(e);
            if code == rdkafka::types::RDKafkaErrorCode::UnknownTopicOrPartition {
                return Err(format!("topic \"{}\" does not exist", self.topic));
            }
            return Err(format!("topic \"{}\" cannot be read: {code}", self.topic));
        }
        if topic.partitions().is_empty() {
            return Err(format!("topic \"{}\" does not exist", self.topic));
        }
        Ok(topic
            .partitions()
            .iter()
            .map(|p| p.id())
            .filter(|p| self.share.owns(*p))
            .collect())
    }

    /// Records which partitions the broker no longer has kpg's next offset of (asking it for
    /// each partition's earliest offset; this happens once, not per record).
    fn note_lost_records(&mut self) {
        let mut gone = Vec::new();
        for (p, next) in &self.next {
            if let Ok((low, _)) = self
                .consumer
                .fetch_watermarks(&self.topic, *p, METADATA_TIMEOUT)
            {
                if low > *next {
                    gone.push(format!(
                        "partition {p}: kpg needs offset {next} next, the earliest the broker \
                         still has is {low}"
                    ));
                }
            }
        }
        let why = if gone.is_empty() {
            // Not below the earliest offset: past the end (a topic recreated or truncated).
            format!(
                "the broker has no record at the offset kpg needs next in topic \"{}\" \
                 (offset out of range; the topic may have been recreated or truncated); the \
                 source keeps what it read and reads no further from that partition",
                self.topic
            )
        } else {
            format!(
                "records of topic \"{}\" that kpg has not read were deleted by the broker \
                 (retention) — {}; the source keeps what it read and reads no further from there",
                self.topic,
                gone.join("; ")
            )
        };
        tracing::error!("{why}");
        self.lost = Some(why);
    }

    /// Starts reading partitions that appeared since the last look (from their beginning).
    fn pick_up_new_partitions(&mut self) -> Result<(), String> {
        self.refreshed = Instant::now();
        let mut list = TopicPartitionList::new();
        for p in self.partitions()? {
            if !self.next.contains_key(&p) {
                list.add_partition_offset(&self.topic, p, Offset::Beginning)
                    .map_err(|e| format!("assigning partition {p}: {e}"))?;
                self.next.insert(p, 0);
            }
        }
        if list.count() > 0 {
            self.consumer
                .incremental_assign(&list)
                .map_err(|e| format!("assigning new partitions: {e}"))?;
        }
        Ok(())
    }
}

impl RecordReader for KafkaReader {
    /// Up to `max` records, waiting at most `wait` for the first. An error is a problem of the
    /// connection or the broker (the reader stays usable and retries on the next call).
    fn poll(&mut self, max: usize, wait: Duration) -> Result<Vec<Record>, String> {
        if self.refreshed.elapsed() > METADATA_REFRESH {
            self.pick_up_new_partitions()?;
        }
        let mut out = Vec::with_capacity(max.min(1024));
        let mut timeout = wait;
        // librdkafka reports connection trouble as error events, queued one per attempt while
        // a broker is down: they are drained here (a bounded number per call), so that after
        // the broker returns the records behind a backlog of stale errors are read at once.
        let mut last_error = None;
        let mut errors = 0;
        while out.len() < max && errors < MAX_ERRORS_PER_POLL {
            match self.consumer.poll(timeout) {
                None => break,
                Some(Err(KafkaError::MessageConsumption(RDKafkaErrorCode::AutoOffsetReset))) => {
                    self.note_lost_records();
                }
                Some(Err(e)) => {
                    errors += 1;
                    last_error = Some(e);
                }
                Some(Ok(m)) => {
                    self.next.insert(m.partition(), m.offset() + 1);
                    // A header line: read (the partition's position moves past it), not a row.
                    if m.offset() == 0
                        && self
                            .header
                            .as_ref()
                            .is_some_and(|h| h.is(m.payload().unwrap_or_default()))
                    {
                        timeout = Duration::ZERO;
                        continue;
                    }
                    let (headers, headers_error) = match self.headers {
                        true => read_headers(&m),
                        false => (Vec::new(), None),
                    };
                    out.push(Record {
                        partition: m.partition(),
                        offset: m.offset(),
                        key: m.key().map(<[u8]>::to_vec),
                        value: m.payload().map(<[u8]>::to_vec),
                        timestamp: m.timestamp().to_millis(),
                        headers,
                        headers_error,
                    });
                }
            }
            timeout = Duration::ZERO;
        }
        if let Some(e) = last_error {
            self.last_error = Some((
                Instant::now(),
                format!("reading topic \"{}\": {e}", self.topic),
            ));
        }
        if !out.is_empty() {
            self.last_error = None;
            return Ok(out);
        }
        match &self.last_error {
            Some((at, e)) if at.elapsed() < ERROR_MEMORY => Err(e.clone()),
            _ => Ok(out),
        }
    }

    /// The next offset of each partition (what the records returned so far advance to).
    fn positions(&self) -> &BTreeMap<i32, i64> {
        &self.next
    }

    fn lost(&self) -> Option<&str> {
        self.lost.as_deref()
    }

    fn skip_headers(&mut self) {
        self.headers = false;
    }

    /// Each partition's high watermark (the offset after its last record), for the lag: the
    /// value librdkafka cached from its latest fetch response, so that this never waits on
    /// the broker (asking the broker, one partition at a time, blocked the reader for most of
    /// each second once it had caught up). A partition with no fetch response yet is left out.
    fn high_watermarks(&self) -> BTreeMap<i32, i64> {
        let Ok(topic) = std::ffi::CString::new(self.topic.as_str()) else {
            return BTreeMap::new();
        };
        self.next
            .keys()
            .filter_map(|p| {
                let (mut low, mut high) = (-1i64, -1i64);
                // SAFETY: the client handle lives as long as `self.consumer`; `topic` is a
                // NUL-terminated string that outlives the call; `low` and `high` are valid
                // places for the two offsets it writes. The call only reads librdkafka's
                // cached partition state.
                let err = unsafe {
                    rdkafka::bindings::rd_kafka_get_watermark_offsets(
                        self.consumer.client().native_ptr(),
                        topic.as_ptr(),
                        *p,
                        &mut low,
                        &mut high,
                    )
                };
                (err == rdkafka::bindings::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
                    && high >= 0)
                    .then_some((*p, high))
            })
            .collect()
    }
}

/// A message's headers, or why they cannot be read. rdkafka panics on a header key that is
/// not UTF-8 (`BorrowedHeaders::try_get` unwraps it); such a record must be a bad record, not
/// the end of the reader thread.
fn read_headers(m: &BorrowedMessage<'_>) -> (crate::records::Headers, Option<String>) {
    let Some(h) = m.headers() else {
        return (Vec::new(), None);
    };
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        h.iter()
            .map(|h| (h.key.to_string(), h.value.map(<[u8]>::to_vec)))
            .collect::<Vec<_>>()
    }));
    match read {
        Ok(headers) => (headers, None),
        Err(_) => (
            Vec::new(),
            Some("a header key is not valid UTF-8".to_string()),
        ),
    }
}
