//! Sources: turning a source description into a timestamped update stream — transports (Kafka
//! through rdkafka, files) crossed with formats (CSV, JSON, text) and envelopes (append, upsert),
//! the TPC-H load generator, and the binding of source offsets to timestamps.
//!
//! Nothing is built here yet: today the only inputs are tables, whose updates the coordinator
//! timestamps and the compute runtime feeds to the workers. `CREATE SOURCE` is refused by the
//! planner with SQLSTATE 0A000 until this crate exists for real.
