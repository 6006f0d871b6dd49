//! The TPC-H load generator: the 8 tables at a scale factor as its snapshot (each worker
//! generates its part of every table), then, one tick after another, it changes one order and
//! its line items.
//!
//! The changes walk through the orders in key order, and then again, forever. Version 0 of an
//! order is the generated one; tick by tick, version `v` of an order replaces version `v - 1`:
//! each line's quantity becomes `(q0 - 1 + v * (linenumber + 6)) mod 50 + 1` (q0 the generated
//! quantity, so every version differs from the one before), its extended price the part's
//! price times the new quantity (as the specification prices lines), and the order's total
//! price is recomputed from its lines with the specification's formula. Keys, dates, discounts,
//! taxes and texts stay, so every query keeps finding its joins. The version of an order at a
//! tick follows from the tick number alone, so no state of the data is kept.

use kpg_tpch::{orders_with_lineitems, rows, OrderWithLineitems, Value, TABLES};
use kpg_types::{Datum, Numeric, Row, ScalarType, SourceExport};

use crate::Generator;

const ORDERS: usize = 6;
const LINEITEM: usize = 7;

pub struct Tpch {
    scale_factor: f64,
    /// The column types of each exported output (by index into `TABLES`).
    outputs: Vec<Option<Vec<ScalarType>>>,
    /// Where the changes are in their walk through the orders.
    walk: OrdersWalk,
}

impl Tpch {
    pub fn new(scale_factor: f64, exports: &[SourceExport]) -> Self {
        let mut outputs = vec![None; TABLES.len()];
        for export in exports {
            if let Some(output) = export.output {
                outputs[output] = Some(export.desc.types().map(|t| t.scalar).collect());
            }
        }
        Tpch {
            scale_factor,
            outputs,
            walk: OrdersWalk::new(scale_factor),
        }
    }
}

impl Generator for Tpch {
    fn snapshot(&self, worker: usize, peers: usize) -> Box<dyn Iterator<Item = (usize, Row)>> {
        let (part, parts) = (worker as i32 + 1, peers as i32);
        let sf = self.scale_factor;
        let exported: Vec<(usize, Vec<ScalarType>)> = self
            .outputs
            .iter()
            .enumerate()
            .filter_map(|(i, types)| types.clone().map(|t| (i, t)))
            .collect();
        Box::new(exported.into_iter().flat_map(move |(output, types)| {
            rows(TABLES[output], sf, part, parts).map(move |r| (output, convert(&r, &types)))
        }))
    }

    fn tick(&mut self, n: u64) -> Vec<(usize, Row, i64)> {
        let Some((order, version)) = self.walk.next(n) else {
            return Vec::new();
        };
        let mut changes = Vec::new();
        for (v, diff) in [(version - 1, -1), (version, 1)] {
            let (o, lines) = order_version(&order, v);
            if let Some(types) = &self.outputs[ORDERS] {
                changes.push((ORDERS, convert(&o, types), diff));
            }
            if let Some(types) = &self.outputs[LINEITEM] {
                changes.extend(lines.iter().map(|l| (LINEITEM, convert(l, types), diff)));
            }
        }
        changes
    }
}

/// The walk of the changes through the orders: tick n changes the next order, to its next
/// version.
struct OrdersWalk {
    scale_factor: f64,
    orders: kpg_tpch::OrdersWithLineitems,
    /// The version the orders of the current pass get.
    version: u64,
    /// The tick `next` expects.
    tick: u64,
}

impl OrdersWalk {
    fn new(scale_factor: f64) -> Self {
        OrdersWalk {
            scale_factor,
            orders: orders_with_lineitems(scale_factor),
            version: 1,
            tick: 1,
        }
    }

    /// The order tick `n` changes, and the version it changes it to.
    fn next(&mut self, n: u64) -> Option<(OrderWithLineitems, u64)> {
        assert_eq!(
            n, self.tick,
            "TPC-H ticks are generated in order, each once"
        );
        self.tick += 1;
        let order = match self.orders.next() {
            Some(order) => order,
            None => {
                self.orders = orders_with_lineitems(self.scale_factor);
                self.version += 1;
                self.orders.next()?
            }
        };
        Some((order, self.version))
    }
}

fn decimal(v: &Value) -> i64 {
    match v {
        Value::Decimal(d) => *d,
        other => panic!("not a TPC-H decimal: {other:?}"),
    }
}

/// Version `v` of an order and its lines (version 0 is the generated one).
fn order_version(generated: &OrderWithLineitems, v: u64) -> (kpg_tpch::Row, Vec<kpg_tpch::Row>) {
    if v == 0 {
        return (generated.order.clone(), generated.lineitems.clone());
    }
    let lines: Vec<kpg_tpch::Row> = generated
        .lineitems
        .iter()
        .map(|line| {
            let mut line = line.clone();
            let q0 = decimal(&line[4]) / 100;
            let linenumber = line[3].as_int();
            let q = (q0 - 1 + (v as i64) * (linenumber + 6)).rem_euclid(50) + 1;
            let price = decimal(&line[5]) / q0;
            line[4] = Value::Decimal(q * 100);
            line[5] = Value::Decimal(price * q);
            line
        })
        .collect();
    let mut order = generated.order.clone();
    order[3] = Value::Decimal(total_price(&lines));
    (order, lines)
}

/// An order's total price from its lines, in cents: the sum of extended price × (1 − discount)
/// × (1 + tax), each step truncated to cents as the specification's generator computes it.
fn total_price(lines: &[kpg_tpch::Row]) -> i64 {
    lines
        .iter()
        .map(|l| {
            let (price, discount, tax) = (decimal(&l[5]), decimal(&l[6]), decimal(&l[7]));
            price * (100 - discount) / 100 * (100 + tax) / 100
        })
        .sum()
}

/// A generated row as a row of the column types `types`.
fn convert(row: &kpg_tpch::Row, types: &[ScalarType]) -> Row {
    Row::new(
        row.iter()
            .zip(types)
            .map(|(value, ty)| {
                let datum = match value {
                    Value::Int(i) => match ty {
                        ScalarType::Int64 => Ok(Datum::Int64(*i)),
                        _ => i32::try_from(*i)
                            .map(Datum::Int32)
                            .map_err(|_| format!("{i} is out of range for {ty}")),
                    },
                    Value::Decimal(cents) => Ok(Datum::Numeric(Numeric::new(*cents, 2))),
                    Value::Text(s) | Value::Date(s) => {
                        Datum::parse_text(s, ty).map_err(|e| e.to_string())
                    }
                };
                datum.unwrap_or_else(|e| panic!("generated TPC-H value {value:?}: {e}"))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::{ColumnType, RelationDesc};
    use std::collections::BTreeMap;

    fn exports() -> Vec<SourceExport> {
        // Every column as text or numeric is enough for these checks; the server's types are
        // exercised end to end.
        TABLES
            .iter()
            .enumerate()
            .map(|(i, t)| SourceExport {
                id: i as u64 + 10,
                output: Some(i),
                desc: RelationDesc::new(
                    kpg_tpch::columns(t)
                        .iter()
                        .map(|(name, ty)| {
                            let scalar = match ty {
                                kpg_tpch::ColumnType::Integer => ScalarType::Int32,
                                kpg_tpch::ColumnType::Decimal => ScalarType::NUMERIC,
                                kpg_tpch::ColumnType::Date => ScalarType::Date,
                                _ => ScalarType::Text,
                            };
                            (name.to_string(), ColumnType::new(scalar, false))
                        })
                        .collect(),
                ),
            })
            .collect()
    }

    #[test]
    fn workers_share_the_snapshot_exactly() {
        let g = Tpch::new(0.005, &exports());
        let mut whole: Vec<(usize, Row)> = g.snapshot(0, 1).collect();
        let mut shared: Vec<(usize, Row)> = (0..3).flat_map(|w| g.snapshot(w, 3)).collect();
        whole.sort();
        shared.sort();
        assert!(whole == shared);
        let orders = whole.iter().filter(|(o, _)| *o == ORDERS).count();
        assert_eq!(orders, 7500);
    }

    #[test]
    fn the_specification_formula_gives_the_generated_total_prices() {
        for o in orders_with_lineitems(0.002) {
            assert_eq!(
                total_price(&o.lineitems),
                decimal(&o.order[3]),
                "{:?}",
                o.order
            );
        }
    }

    /// Two full passes of changes over the orders: every change retracts a row that is there,
    /// the tables keep their sizes, and each pass changes every line's quantity.
    #[test]
    fn changes_retract_what_is_there_and_walk_all_orders() {
        let sf = 0.001;
        let mut g = Tpch::new(sf, &exports());
        let mut acc: BTreeMap<(usize, Row), i64> = BTreeMap::new();
        for (output, row) in g.snapshot(0, 1) {
            *acc.entry((output, row)).or_default() += 1;
        }
        let size = |acc: &BTreeMap<(usize, Row), i64>, output| {
            acc.iter()
                .filter(|((o, _), _)| *o == output)
                .map(|(_, d)| *d)
                .sum::<i64>()
        };
        let (orders, lines) = (size(&acc, ORDERS), size(&acc, LINEITEM));
        let before = acc.clone();
        for n in 1..=(2 * orders as u64) {
            let changes = g.tick(n);
            assert!(!changes.is_empty());
            for (output, row, diff) in changes {
                let count = acc.entry((output, row.clone())).or_default();
                *count += diff;
                assert!(
                    *count == 0 || *count == 1,
                    "tick {n}: {row:?} has count {count}"
                );
            }
            if n == orders as u64 {
                let changed = before
                    .iter()
                    .filter(|((o, _), _)| *o == LINEITEM)
                    .all(|(k, _)| acc.get(k).copied().unwrap_or(0) == 0);
                assert!(changed, "after one pass every line item has changed");
            }
        }
        acc.retain(|_, d| *d != 0);
        assert_eq!(size(&acc, ORDERS), orders);
        assert_eq!(size(&acc, LINEITEM), lines);
        assert_eq!(acc.len(), before.len());
    }
}
