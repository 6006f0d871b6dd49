//! The streaming TPC-H demo's SQL, in one place for its three setups (`kpg --demo`,
//! `scripts/demo-tpch.sh` and docker compose's `kpg-tpch setup`): where the 8 relations come
//! from (Kafka topics the loader fills, or the built-in TPC-H load generator), the seven
//! primary-key indexes every view shares, and the views, each with the query that shows its
//! current top rows.
//!
//! As in the shared-arrangements paper's streaming TPC-H (§6.1.1), the keyed relations are
//! indexed once and the views import those indexes; where the relations arrive from Kafka,
//! lineitem carries its record's timestamp (`l_arrival`), and one view keeps only the line
//! items of the last minute with a temporal filter (`mz_now()`).

use crate::{columns, CharColumns};

/// Where the demo's relations come from.
#[derive(Debug, Clone)]
pub enum DemoSource {
    /// One Kafka topic per relation, `{topic_prefix}{table}`, CSV in [`columns`] order (what
    /// `kpg-tpch load` produces), read through the connection `tpch_kafka`.
    Kafka {
        broker: String,
        topic_prefix: String,
    },
    /// `CREATE SOURCE tpch FROM LOAD GENERATOR TPCH` at a scale factor and tick interval.
    Generator { scale_factor: f64, tick: String },
}

/// The seven primary-key indexes: (index, table, key columns). `lineitem` has none: it is
/// the stream of events, read by each view on its own.
pub const INDEXES: [(&str, &str, &str); 7] = [
    ("region_pk", "region", "r_regionkey"),
    ("nation_pk", "nation", "n_nationkey"),
    ("supplier_pk", "supplier", "s_suppkey"),
    ("part_pk", "part", "p_partkey"),
    ("partsupp_pk", "partsupp", "ps_partkey, ps_suppkey"),
    ("customer_pk", "customer", "c_custkey"),
    ("orders_pk", "orders", "o_orderkey"),
];

/// A view of the demo: its name, its `CREATE MATERIALIZED VIEW` statement, and a query that
/// reads its current top rows.
#[derive(Debug, Clone)]
pub struct DemoView {
    pub name: &'static str,
    pub create: String,
    pub top: String,
}

/// The column the Kafka lineitem source's record timestamp is exposed as.
pub const ARRIVAL: &str = "l_arrival";

/// `CREATE CONNECTION` / `CREATE SOURCE` statements that make the 8 relations.
pub fn source_statements(source: &DemoSource) -> Vec<String> {
    match source {
        DemoSource::Generator { scale_factor, tick } => vec![format!(
            "CREATE SOURCE tpch FROM LOAD GENERATOR TPCH \
             (SCALE FACTOR {scale_factor}, TICK INTERVAL '{tick}') FOR ALL TABLES"
        )],
        DemoSource::Kafka {
            broker,
            topic_prefix,
        } => {
            let mut out = vec![format!(
                "CREATE CONNECTION tpch_kafka TO KAFKA (BROKER '{broker}')"
            )];
            for table in crate::TABLES {
                let cols: Vec<String> = columns(table)
                    .iter()
                    .map(|(name, ty)| format!("{name} {} NOT NULL", ty.sql(CharColumns::Varchar)))
                    .collect();
                let include = if table == "lineitem" {
                    format!(" INCLUDE TIMESTAMP AS {ARRIVAL}")
                } else {
                    String::new()
                };
                out.push(format!(
                    "CREATE SOURCE {table} ({}) FROM KAFKA CONNECTION tpch_kafka \
                     (TOPIC '{topic_prefix}{table}') FORMAT CSV{include}",
                    cols.join(", ")
                ));
            }
            out
        }
    }
}

/// `CREATE INDEX` statements for [`INDEXES`].
pub fn index_statements() -> Vec<String> {
    INDEXES
        .iter()
        .map(|(name, table, key)| format!("CREATE INDEX {name} ON {table} ({key})"))
        .collect()
}

/// The views: TPC-H Q1 (pricing summary), Q5 (local supplier volume) and Q6 (forecast revenue
/// change) with the specification's validation parameters, a join of every order with its
/// customer's nation (revenue per nation), and, when lineitem has arrival timestamps, the
/// same per nation over the line items of the last minute (a temporal filter).
pub fn views(windowed: bool) -> Vec<DemoView> {
    let query = |n: usize| crate::query(n).sql();
    let mut out = vec![
        DemoView {
            name: "q01_pricing",
            create: format!("CREATE MATERIALIZED VIEW q01_pricing AS {}", query(1)),
            top: "SELECT l_returnflag, l_linestatus, sum_qty, count_order FROM q01_pricing \
                  ORDER BY l_returnflag, l_linestatus"
                .into(),
        },
        DemoView {
            name: "q05_asia_volume",
            create: format!("CREATE MATERIALIZED VIEW q05_asia_volume AS {}", query(5)),
            top: "SELECT n_name, revenue FROM q05_asia_volume ORDER BY revenue DESC LIMIT 3".into(),
        },
        DemoView {
            name: "q06_forecast",
            create: format!("CREATE MATERIALIZED VIEW q06_forecast AS {}", query(6)),
            top: "SELECT revenue FROM q06_forecast".into(),
        },
        DemoView {
            name: "revenue_by_nation",
            create: "CREATE MATERIALIZED VIEW revenue_by_nation AS \
                     SELECT n_name, count(*) AS orders, sum(o_totalprice) AS revenue \
                     FROM orders JOIN customer ON o_custkey = c_custkey \
                     JOIN nation ON c_nationkey = n_nationkey GROUP BY n_name"
                .into(),
            top: "SELECT n_name, orders, revenue FROM revenue_by_nation \
                  ORDER BY revenue DESC LIMIT 3"
                .into(),
        },
    ];
    if windowed {
        out.push(DemoView {
            name: "last_minute_by_nation",
            create: format!(
                "CREATE MATERIALIZED VIEW last_minute_by_nation AS \
                 SELECT n_name, count(*) AS lines, \
                 sum(l_extendedprice * (1 - l_discount)) AS revenue \
                 FROM lineitem JOIN orders ON l_orderkey = o_orderkey \
                 JOIN customer ON o_custkey = c_custkey \
                 JOIN nation ON c_nationkey = n_nationkey \
                 WHERE mz_now() <= {ARRIVAL} + INTERVAL '1 minute' GROUP BY n_name"
            ),
            top: "SELECT n_name, lines, revenue FROM last_minute_by_nation \
                  ORDER BY revenue DESC LIMIT 3"
                .into(),
        });
    }
    out
}

/// Every statement of the demo's setup, in order: sources, indexes, views.
pub fn setup_statements(source: &DemoSource) -> Vec<String> {
    let windowed = matches!(source, DemoSource::Kafka { .. });
    let mut out = source_statements(source);
    out.extend(index_statements());
    out.extend(views(windowed).into_iter().map(|v| v.create));
    out
}

/// One generated row as a CSV record (no line end), as kpg's CSV sources read it: fields
/// quoted when they hold a comma, a quote or a line break, and empty text quoted (`""`), since
/// an unquoted empty field is NULL.
pub fn csv_record(row: &crate::Row) -> String {
    let mut out = String::new();
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match v {
            crate::Value::Text(s) if s.is_empty() || s.contains([',', '"', '\n', '\r']) => {
                out.push('"');
                out.push_str(&s.replace('"', "\"\""));
                out.push('"');
            }
            crate::Value::Text(s) | crate::Value::Date(s) => out.push_str(s),
            crate::Value::Int(n) => out.push_str(&n.to_string()),
            crate::Value::Decimal(_) => {
                let mut sql = String::new();
                v.write_sql(&mut sql);
                out.push_str(&sql);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    #[test]
    fn csv_quotes_what_needs_it() {
        let row = vec![
            Value::Int(7),
            Value::Text("a, b".into()),
            Value::Text("say \"hi\"".into()),
            Value::Text(String::new()),
            Value::Decimal(-1234),
            Value::Date("1996-01-02".into()),
        ];
        assert_eq!(
            csv_record(&row),
            "7,\"a, b\",\"say \"\"hi\"\"\",\"\",-12.34,1996-01-02"
        );
    }

    #[test]
    fn setup_has_sources_indexes_views() {
        let kafka = setup_statements(&DemoSource::Kafka {
            broker: "b:9092".into(),
            topic_prefix: "tpch-".into(),
        });
        assert_eq!(kafka.len(), 1 + 8 + 7 + 5);
        let generator = setup_statements(&DemoSource::Generator {
            scale_factor: 0.01,
            tick: "100ms".into(),
        });
        assert_eq!(generator.len(), 1 + 7 + 4);
    }
}
