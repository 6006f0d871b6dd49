//! Data generation: the rows of each table for a scale factor, whole or as one part of several
//! (the `tpchgen` crate's parts, the same split `dbgen -C n -S k` makes), and the orders
//! together with their line items, which the TPC-H load generator source walks through when it
//! changes orders after its snapshot.

use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, LineItemGeneratorIterator, NationGenerator,
    OrderGenerator, OrderGeneratorIterator, PartGenerator, PartSuppGenerator, RegionGenerator,
    SupplierGenerator,
};

use crate::{Dataset, Row, TableData, Value, TABLES};

fn text(v: impl ToString) -> Value {
    Value::Text(v.to_string())
}

fn date(v: impl ToString) -> Value {
    Value::Date(v.to_string())
}

/// The rows of `table` in part `part` (1-based) of `parts`, in the generator's order. Parts
/// are disjoint and together hold every row; the small tables `region` and `nation` are whole
/// in part 1 and empty in the others.
pub fn rows(
    table: &str,
    scale_factor: f64,
    part: i32,
    parts: i32,
) -> Box<dyn Iterator<Item = Row> + Send> {
    let (sf, p, n) = (scale_factor, part, parts);
    let fixed = |rows: Vec<Row>| -> Box<dyn Iterator<Item = Row> + Send> {
        if part == 1 {
            Box::new(rows.into_iter())
        } else {
            Box::new(std::iter::empty())
        }
    };
    match table {
        "region" => fixed(
            RegionGenerator::new(sf, 1, 1)
                .iter()
                .map(|r| vec![Value::Int(r.r_regionkey), text(r.r_name), text(r.r_comment)])
                .collect(),
        ),
        "nation" => fixed(
            NationGenerator::new(sf, 1, 1)
                .iter()
                .map(|n| {
                    vec![
                        Value::Int(n.n_nationkey),
                        text(n.n_name),
                        Value::Int(n.n_regionkey),
                        text(n.n_comment),
                    ]
                })
                .collect(),
        ),
        "supplier" => Box::new(SupplierGenerator::new(sf, p, n).into_iter().map(|s| {
            vec![
                Value::Int(s.s_suppkey),
                text(s.s_name),
                text(&s.s_address),
                Value::Int(s.s_nationkey),
                text(&s.s_phone),
                Value::Decimal(s.s_acctbal.into_inner()),
                text(&s.s_comment),
            ]
        })),
        "part" => Box::new(PartGenerator::new(sf, p, n).into_iter().map(|p| {
            vec![
                Value::Int(p.p_partkey),
                text(&p.p_name),
                text(p.p_mfgr),
                text(p.p_brand),
                text(p.p_type),
                Value::Int(p.p_size.into()),
                text(p.p_container),
                Value::Decimal(p.p_retailprice.into_inner()),
                text(p.p_comment),
            ]
        })),
        "partsupp" => Box::new(PartSuppGenerator::new(sf, p, n).into_iter().map(|ps| {
            vec![
                Value::Int(ps.ps_partkey),
                Value::Int(ps.ps_suppkey),
                Value::Int(ps.ps_availqty.into()),
                Value::Decimal(ps.ps_supplycost.into_inner()),
                text(ps.ps_comment),
            ]
        })),
        "customer" => Box::new(CustomerGenerator::new(sf, p, n).into_iter().map(|c| {
            vec![
                Value::Int(c.c_custkey),
                text(c.c_name),
                text(&c.c_address),
                Value::Int(c.c_nationkey),
                text(&c.c_phone),
                Value::Decimal(c.c_acctbal.into_inner()),
                text(c.c_mktsegment),
                text(c.c_comment),
            ]
        })),
        "orders" => Box::new(
            OrderGenerator::new(sf, p, n)
                .into_iter()
                .map(|o| order_row(&o)),
        ),
        "lineitem" => Box::new(
            LineItemGenerator::new(sf, p, n)
                .into_iter()
                .map(|l| lineitem_row(&l)),
        ),
        other => panic!("not a TPC-H table: {other}"),
    }
}

fn order_row(o: &tpchgen::generators::Order<'_>) -> Row {
    vec![
        Value::Int(o.o_orderkey),
        Value::Int(o.o_custkey),
        text(o.o_orderstatus),
        Value::Decimal(o.o_totalprice.into_inner()),
        date(o.o_orderdate),
        text(o.o_orderpriority),
        text(o.o_clerk),
        Value::Int(o.o_shippriority.into()),
        text(o.o_comment),
    ]
}

fn lineitem_row(l: &tpchgen::generators::LineItem<'_>) -> Row {
    vec![
        Value::Int(l.l_orderkey),
        Value::Int(l.l_partkey),
        Value::Int(l.l_suppkey),
        Value::Int(l.l_linenumber.into()),
        // The generator yields whole quantities; the column is numeric(15,2).
        Value::Decimal(l.l_quantity * 100),
        Value::Decimal(l.l_extendedprice.into_inner()),
        Value::Decimal(l.l_discount.into_inner()),
        Value::Decimal(l.l_tax.into_inner()),
        text(l.l_returnflag),
        text(l.l_linestatus),
        date(l.l_shipdate),
        date(l.l_commitdate),
        date(l.l_receiptdate),
        text(l.l_shipinstruct),
        text(l.l_shipmode),
        text(l.l_comment),
    ]
}

/// An order's row and the rows of its line items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderWithLineitems {
    pub order: Row,
    pub lineitems: Vec<Row>,
}

/// Every order at `scale_factor` in key order, each with its line items.
pub fn orders_with_lineitems(scale_factor: f64) -> OrdersWithLineitems {
    OrdersWithLineitems {
        orders: OrderGenerator::new(scale_factor, 1, 1).into_iter(),
        lineitems: LineItemGenerator::new(scale_factor, 1, 1)
            .into_iter()
            .peekable(),
    }
}

/// The iterator of [`orders_with_lineitems`]: walks the order and line item generators side
/// by side (both yield rows in order key order).
pub struct OrdersWithLineitems {
    orders: OrderGeneratorIterator<'static>,
    lineitems: std::iter::Peekable<LineItemGeneratorIterator<'static>>,
}

impl Iterator for OrdersWithLineitems {
    type Item = OrderWithLineitems;

    fn next(&mut self) -> Option<OrderWithLineitems> {
        let order = self.orders.next()?;
        let mut lineitems = Vec::new();
        while let Some(l) = self.lineitems.next_if(|l| l.l_orderkey == order.o_orderkey) {
            lineitems.push(lineitem_row(&l));
        }
        Some(OrderWithLineitems {
            order: order_row(&order),
            lineitems,
        })
    }
}

/// Generates the 8 tables at `scale_factor` (single-part generation, deterministic: the
/// rows are those of the reference `dbgen`).
pub fn generate(scale_factor: f64) -> Dataset {
    let tables = TABLES
        .iter()
        .map(|name| TableData {
            name,
            rows: rows(name, scale_factor, 1, 1).collect(),
        })
        .collect();
    Dataset {
        scale_factor,
        tables,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_together_are_the_whole_table() {
        let sf = 0.01;
        for table in TABLES {
            let mut whole: Vec<Row> = rows(table, sf, 1, 1).collect();
            let mut parts: Vec<Row> = (1..=3).flat_map(|p| rows(table, sf, p, 3)).collect();
            whole.sort();
            parts.sort();
            assert_eq!(whole.len(), parts.len(), "{table}");
            assert!(whole == parts, "{table}: parts differ from the whole");
        }
    }

    #[test]
    fn orders_come_with_exactly_their_lineitems() {
        let sf = 0.005;
        let walked: Vec<OrderWithLineitems> = orders_with_lineitems(sf).collect();
        let orders: Vec<Row> = rows("orders", sf, 1, 1).collect();
        let lineitems: Vec<Row> = rows("lineitem", sf, 1, 1).collect();
        assert_eq!(
            walked.iter().map(|o| &o.order).collect::<Vec<_>>(),
            orders.iter().collect::<Vec<_>>()
        );
        let flat: Vec<&Row> = walked.iter().flat_map(|o| &o.lineitems).collect();
        assert_eq!(flat, lineitems.iter().collect::<Vec<_>>());
        for o in &walked {
            assert!((1..=7).contains(&o.lineitems.len()));
            assert!(o.lineitems.iter().all(|l| l[0] == o.order[0]));
        }
    }
}
