//! What the TPC-H specification says of the tables' contents at a scale factor: rows, primary
//! keys, and the distinct values of the columns whose domains it fixes (clause 4.2.3: foreign
//! keys range over the referenced table's keys, codes over small fixed lists). The load
//! generator hands these to the planner as statistics, which orders joins by them.

/// Rows, primary key and known distinct counts of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct Cardinality {
    pub rows: f64,
    /// The primary key's columns.
    pub key: &'static [&'static str],
    /// Columns whose number of distinct values the specification fixes (a single-column key
    /// is not listed: its distinct values are the rows; a composite key's columns are).
    pub distinct: Vec<(&'static str, f64)>,
}

/// The cardinality of `table` at `scale_factor` (region and nation do not scale; lineitem has
/// four rows per order on average).
pub fn cardinality(table: &str, scale_factor: f64) -> Cardinality {
    let sf = |n: f64| (n * scale_factor).max(1.0).round();
    let (suppliers, parts, customers, orders) =
        (sf(10_000.0), sf(200_000.0), sf(150_000.0), sf(1_500_000.0));
    let (rows, key, distinct): (f64, &'static [&'static str], Vec<(&'static str, f64)>) =
        match table {
            "region" => (5.0, &["r_regionkey"], vec![("r_name", 5.0)]),
            "nation" => (
                25.0,
                &["n_nationkey"],
                vec![("n_name", 25.0), ("n_regionkey", 5.0)],
            ),
            "supplier" => (suppliers, &["s_suppkey"], vec![("s_nationkey", 25.0)]),
            "part" => (
                parts,
                &["p_partkey"],
                vec![
                    ("p_mfgr", 5.0),
                    ("p_brand", 25.0),
                    ("p_type", 150.0),
                    ("p_size", 50.0),
                    ("p_container", 40.0),
                ],
            ),
            "partsupp" => (
                parts * 4.0,
                &["ps_partkey", "ps_suppkey"],
                vec![("ps_partkey", parts), ("ps_suppkey", suppliers)],
            ),
            "customer" => (
                customers,
                &["c_custkey"],
                vec![("c_nationkey", 25.0), ("c_mktsegment", 5.0)],
            ),
            "orders" => (
                orders,
                &["o_orderkey"],
                vec![
                    // Only two thirds of the customers place orders.
                    ("o_custkey", (customers * 2.0 / 3.0).max(1.0)),
                    ("o_orderstatus", 3.0),
                    ("o_orderpriority", 5.0),
                ],
            ),
            "lineitem" => (
                orders * 4.0,
                &["l_orderkey", "l_linenumber"],
                vec![
                    ("l_orderkey", orders),
                    ("l_partkey", parts),
                    ("l_suppkey", suppliers),
                    ("l_linenumber", 7.0),
                    ("l_returnflag", 3.0),
                    ("l_linestatus", 2.0),
                    ("l_shipinstruct", 4.0),
                    ("l_shipmode", 7.0),
                ],
            ),
            other => panic!("not a TPC-H table: {other}"),
        };
    Cardinality {
        rows,
        key,
        distinct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures agree with the generator's rows at a small scale factor: the row counts
    /// within 2%, the distinct counts within 10%.
    #[test]
    fn figures_match_the_generator() {
        for table in crate::TABLES {
            let c = cardinality(table, 0.01);
            let rows: Vec<_> = crate::rows(table, 0.01, 1, 1).collect();
            let generated = rows.len() as f64;
            assert!(
                (generated - c.rows).abs() <= c.rows * 0.02,
                "{table}: {generated} generated, {} stated",
                c.rows
            );
            let names: Vec<&str> = crate::columns(table).iter().map(|(n, _)| *n).collect();
            for (column, stated) in &c.distinct {
                let at = names.iter().position(|n| n == column).expect("a column");
                let values: std::collections::HashSet<String> =
                    rows.iter().map(|r| format!("{:?}", r[at])).collect();
                let seen = values.len() as f64;
                assert!(
                    (seen - stated).abs() <= stated * 0.1,
                    "{table}.{column}: {seen} distinct, {stated} stated"
                );
            }
            assert!(c.key.iter().all(|k| names.contains(k)), "{table}");
        }
    }
}
