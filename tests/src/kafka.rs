//! A real Apache Kafka broker for the tests: one node in KRaft mode (broker and controller) on
//! 127.0.0.1 and free ports, with its log directory in a temporary directory, started from the
//! jars `scripts/setup-kafka.sh` resolves from Maven Central and stopped when dropped (a test
//! may also stop it and start it again on the same ports and log directory). Topics are created
//! (and partitions added) and records produced with rdkafka, the same client library kpg reads
//! with.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewPartitions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::message::OwnedHeaders;
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};

use crate::free_port;

/// A record to produce: key, value, partition (`None`: the client's choice).
pub type Produced<'a> = (Option<&'a [u8]>, Option<&'a [u8]>, Option<i32>);
/// A record header: key and value (`None`: a header without a value).
pub type Header<'a> = (&'a str, Option<&'a [u8]>);

/// A running single-node Kafka, killed on drop.
pub struct Kafka {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Kafka {
    /// Starts a broker and waits until it answers metadata requests. A broker that exits
    /// while starting (a port picked free was taken meanwhile by another test's server) is
    /// started again on new ports, up to three times.
    pub async fn start() -> Kafka {
        let mut failures = Vec::new();
        for _ in 0..3 {
            match Kafka::try_start().await {
                Ok(kafka) => return kafka,
                Err(e) => failures.push(e),
            }
        }
        panic!("Kafka did not start:\n{}", failures.join("\n"));
    }

    async fn try_start() -> Result<Kafka, String> {
        let classpath = classpath();
        let dir = tempfile::Builder::new()
            .prefix("kafka-test-")
            .tempdir()
            .expect("temp dir");
        let (port, controller) = (free_port(), free_port());
        let config = dir.path().join("server.properties");
        std::fs::write(
            &config,
            format!(
                "process.roles=broker,controller\n\
                 node.id=1\n\
                 controller.quorum.voters=1@127.0.0.1:{controller}\n\
                 listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}\n\
                 advertised.listeners=PLAINTEXT://127.0.0.1:{port}\n\
                 controller.listener.names=CONTROLLER\n\
                 listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n\
                 log.dirs={}\n\
                 offsets.topic.replication.factor=1\n\
                 transaction.state.log.replication.factor=1\n\
                 transaction.state.log.min.isr=1\n\
                 group.initial.rebalance.delay.ms=0\n\
                 auto.create.topics.enable=false\n\
                 num.partitions=1\n",
                dir.path().join("logs").display()
            ),
        )
        .expect("write server.properties");
        let java = |args: &[&str]| {
            let mut cmd = Command::new("java");
            cmd.arg("-Xmx512m")
                .arg("-XX:+UseSerialGC")
                .arg("-cp")
                .arg(&classpath)
                .args(args);
            cmd
        };
        let format = java(&[
            "kafka.tools.StorageTool",
            "format",
            "-t",
            "kpgtestclusterAAAAAAAA",
            "-c",
            config.to_str().unwrap(),
        ])
        .output()
        .expect("run kafka StorageTool");
        assert!(
            format.status.success(),
            "formatting Kafka's log directory failed: {}",
            String::from_utf8_lossy(&format.stderr)
        );
        let log = dir.path().join("kafka.log");
        let out = std::fs::File::create(&log).expect("kafka log");
        let mut cmd = java(&["kafka.Kafka", config.to_str().unwrap()]);
        cmd.stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        crate::die_with_parent(&mut cmd);
        let child = cmd.spawn().expect("start the Kafka broker");
        let mut kafka = Kafka {
            child,
            port,
            log,
            _dir: dir,
        };
        kafka.wait_ready().await?;
        Ok(kafka)
    }

    /// Waits until the broker answers; `Err` if it exits first (it panics after 60 s).
    async fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "Kafka exited during startup ({status}):\n{}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                ));
            }
            let broker = self.broker();
            let ready = tokio::task::spawn_blocking(move || {
                let consumer: rdkafka::consumer::BaseConsumer = ClientConfig::new()
                    .set("bootstrap.servers", &broker)
                    .create()
                    .ok()?;
                rdkafka::consumer::Consumer::fetch_metadata(&consumer, None, Duration::from_secs(2))
                    .ok()
                    .filter(|m| !m.brokers().is_empty())
            })
            .await
            .unwrap()
            .is_some();
            if ready {
                return Ok(());
            }
            assert!(
                Instant::now() < deadline,
                "Kafka did not start within 60s:\n{}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Stops the broker (SIGTERM, a controlled shutdown; SIGKILL if it takes over 30 s) and
    /// waits until it has exited. Its ports and log directory are kept for [`Kafka::start_again`].
    pub fn stop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            unsafe {
                libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }

    /// Starts a stopped broker again on the same ports and log directory (its topics and
    /// records are still there) and waits until it answers metadata requests.
    pub async fn start_again(&mut self) {
        assert!(
            !matches!(self.child.try_wait(), Ok(None)),
            "start_again: the broker is still running"
        );
        let config = self._dir.path().join("server.properties");
        let out = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.log)
            .expect("kafka log");
        let mut cmd = Command::new("java");
        cmd.arg("-Xmx512m")
            .arg("-XX:+UseSerialGC")
            .arg("-cp")
            .arg(classpath())
            .arg("kafka.Kafka")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        crate::die_with_parent(&mut cmd);
        self.child = cmd.spawn().expect("start the Kafka broker again");
        if let Err(e) = self.wait_ready().await {
            panic!("{e}");
        }
    }

    /// Adds partitions to `topic` so that it has `total` of them.
    pub async fn add_partitions(&self, topic: &str, total: usize) {
        let admin = self.admin();
        let results = admin
            .create_partitions([&NewPartitions::new(topic, total)], &AdminOptions::new())
            .await
            .expect("create partitions");
        for r in results {
            r.unwrap_or_else(|(t, e)| panic!("adding partitions to {t}: {e}"));
        }
    }

    /// Deletes the records of `topic`'s `partition` before `offset`, as retention would.
    pub async fn delete_records(&self, topic: &str, partition: i32, offset: i64) {
        let admin = self.admin();
        let mut list = rdkafka::TopicPartitionList::new();
        list.add_partition_offset(topic, partition, rdkafka::Offset::Offset(offset))
            .expect("partition offset");
        let result = admin
            .delete_records(&list, &AdminOptions::new())
            .await
            .expect("delete records");
        for e in result.elements() {
            if let Err(err) = e.error() {
                panic!("deleting records of {topic}[{partition}]: {err}");
            }
        }
    }

    fn admin(&self) -> AdminClient<DefaultClientContext> {
        ClientConfig::new()
            .set("bootstrap.servers", self.broker())
            .create()
            .expect("admin client")
    }

    /// `127.0.0.1:port`, for `BROKER '...'`.
    pub fn broker(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Creates `topic` with `partitions` partitions.
    pub async fn create_topic(&self, topic: &str, partitions: i32) {
        let admin = self.admin();
        let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(1));
        let results = admin
            .create_topics([&new], &AdminOptions::new())
            .await
            .expect("create topic");
        for r in results {
            r.unwrap_or_else(|(t, e)| panic!("creating topic {t}: {e}"));
        }
    }

    /// Produces `records` (key, value, partition) to `topic` in order and waits until the
    /// broker has acknowledged every one.
    pub fn produce(&self, topic: &str, records: &[Produced<'_>]) {
        let records: Vec<_> = records.iter().map(|r| (*r, Vec::new())).collect();
        self.produce_with_headers(topic, &records);
    }

    /// As `produce`, each record with its headers (key, value; `None`: no value), in order.
    pub fn produce_with_headers(&self, topic: &str, records: &[(Produced<'_>, Vec<Header<'_>>)]) {
        let producer: ThreadedProducer<DefaultProducerContext> = ClientConfig::new()
            .set("bootstrap.servers", self.broker())
            .set("enable.idempotence", "true")
            .set("linger.ms", "5")
            .create()
            .expect("producer");
        for ((key, value, partition), headers) in records {
            let mut record: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(topic);
            if !headers.is_empty() {
                let mut owned = OwnedHeaders::new();
                for (key, value) in headers {
                    owned = owned.insert(rdkafka::message::Header { key, value: *value });
                }
                record = record.headers(owned);
            }
            if let Some(k) = key {
                record = record.key(*k);
            }
            if let Some(v) = value {
                record = record.payload(*v);
            }
            if let Some(p) = partition {
                record = record.partition(*p);
            }
            let mut record = record;
            loop {
                match producer.send(record) {
                    Ok(()) => break,
                    Err((e, r)) => {
                        assert!(
                            matches!(
                                e,
                                rdkafka::error::KafkaError::MessageProduction(
                                    rdkafka::types::RDKafkaErrorCode::QueueFull
                                )
                            ),
                            "producing to {topic}: {e}"
                        );
                        record = r;
                        std::thread::sleep(Duration::from_millis(10));
                    }
                }
            }
        }
        producer
            .flush(Duration::from_secs(30))
            .expect("flush the producer");
    }

    /// Produces values (no key) to `topic`'s partition `partition`, or spread by the client.
    pub fn produce_values(&self, topic: &str, values: &[&str], partition: Option<i32>) {
        let records: Vec<_> = values
            .iter()
            .map(|v| (None, Some(v.as_bytes()), partition))
            .collect();
        self.produce(topic, &records);
    }
}

impl Drop for Kafka {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The broker's classpath, resolved by `scripts/setup-kafka.sh` (run once per test process).
fn classpath() -> String {
    static CLASSPATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CLASSPATH
        .get_or_init(|| {
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
            let out = Command::new(root.join("scripts/setup-kafka.sh"))
                .stderr(Stdio::inherit())
                .output()
                .expect("run scripts/setup-kafka.sh");
            assert!(out.status.success(), "scripts/setup-kafka.sh failed");
            let file = String::from_utf8_lossy(&out.stdout)
                .lines()
                .last()
                .expect("the classpath file")
                .trim()
                .to_string();
            std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("reading {file}: {e}"))
                .trim()
                .to_string()
        })
        .clone()
}
