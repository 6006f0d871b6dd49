//! Benchmark of kpg's `Numeric` against `rust_decimal::Decimal` (what kpg used before, a
//! 96-bit decimal that cannot hold PostgreSQL's range): the same work on the same values in the
//! same run, printed as ns per operation and as the ratio kpg / rust_decimal. The values are
//! TPC-H-like money amounts (numeric(12,2)) and rates (0.00-0.10), the inline case that nearly
//! all real data hits; one row measures values beyond 28 digits, which only kpg can hold.
//!
//! `cargo bench -p kpg-types --bench numeric`

use kpg_types::test_rng::Rng;
use kpg_types::Numeric;
use rust_decimal::Decimal;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 1_000_000;

/// Runs `f` three times and keeps the fastest, in ns per operation over `ops` operations.
fn time(ops: usize, mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos() as f64 / ops as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn row(name: &str, kpg: f64, peer: f64) {
    println!(
        "{name:<44} {kpg:>8.1} ns {peer:>8.1} ns   {:>5.2}",
        kpg / peer
    );
}

fn main() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let cents: Vec<(i64, i64, i64)> = (0..N)
        .map(|_| {
            (
                (rng.next_u64() % 10_000_000) as i64 + 90_000,
                (rng.next_u64() % 11) as i64,
                (rng.next_u64() % 9) as i64,
            )
        })
        .collect();
    let kpg: Vec<(Numeric, Numeric, Numeric)> = cents
        .iter()
        .map(|&(p, d, t)| (Numeric::new(p, 2), Numeric::new(d, 2), Numeric::new(t, 2)))
        .collect();
    let dec: Vec<(Decimal, Decimal, Decimal)> = cents
        .iter()
        .map(|&(p, d, t)| (Decimal::new(p, 2), Decimal::new(d, 2), Decimal::new(t, 2)))
        .collect();
    println!(
        "{:<44} {:>11} {:>11}   {:>5}",
        "operation (1M values)", "kpg", "rust_decimal", "ratio"
    );

    // TPC-H Q1's charge: sum(price * (1 - discount) * (1 + tax)).
    let one_k = Numeric::from(1);
    let one_d = Decimal::ONE;
    let k = time(N, || {
        let mut sum = Numeric::ZERO;
        for (p, d, t) in &kpg {
            let charge = p
                .checked_mul(&one_k.checked_sub(d).unwrap())
                .unwrap()
                .checked_mul(&one_k.checked_add(t).unwrap())
                .unwrap();
            sum = sum.checked_add(&charge).unwrap();
        }
        black_box(sum);
    });
    let d = time(N, || {
        let mut sum = Decimal::ZERO;
        for (p, d, t) in &dec {
            let charge = p
                .checked_mul(one_d.checked_sub(*d).unwrap())
                .unwrap()
                .checked_mul(one_d.checked_add(*t).unwrap())
                .unwrap();
            sum = sum.checked_add(charge).unwrap();
        }
        black_box(sum);
    });
    row("price * (1 - disc) * (1 + tax), summed", k, d);

    let k = time(N, || {
        let mut v: Vec<&Numeric> = kpg.iter().map(|r| &r.0).collect();
        v.sort();
        black_box(v);
    });
    let d = time(N, || {
        let mut v: Vec<&Decimal> = dec.iter().map(|r| &r.0).collect();
        v.sort();
        black_box(v);
    });
    row("sort by value", k, d);

    let k = time(N, || {
        let mut h = DefaultHasher::new();
        kpg.iter().for_each(|r| r.0.hash(&mut h));
        black_box(h.finish());
    });
    let d = time(N, || {
        let mut h = DefaultHasher::new();
        dec.iter().for_each(|r| r.0.hash(&mut h));
        black_box(h.finish());
    });
    row("hash", k, d);

    let k = time(N, || {
        let mut len = 0;
        for r in &kpg {
            len += r.0.to_string().parse::<Numeric>().unwrap().scale();
        }
        black_box(len);
    });
    let d = time(N, || {
        let mut len = 0;
        for r in &dec {
            len += r.0.to_string().parse::<Decimal>().unwrap().scale();
        }
        black_box(len);
    });
    row("print, then parse the text", k, d);

    let count_k = Numeric::from(7);
    let count_d = Decimal::from(7);
    let k = time(N, || {
        for r in &kpg {
            black_box(r.0.checked_div(&count_k).unwrap());
        }
    });
    let d = time(N, || {
        for r in &dec {
            black_box(r.0.checked_div(count_d).unwrap());
        }
    });
    row("divide by 7 (avg's last step)", k, d);

    // Beyond rust_decimal: 40-digit values, kpg alone.
    let big: Vec<Numeric> = cents
        .iter()
        .take(N / 10)
        .map(|&(p, _, _)| {
            format!("{p}123456789012345678901234567890.5")
                .parse()
                .unwrap()
        })
        .collect();
    let k = time(N / 10, || {
        let mut sum = Numeric::ZERO;
        for v in &big {
            sum = sum.checked_add(&v.checked_mul(v).unwrap()).unwrap();
        }
        black_box(sum);
    });
    println!(
        "{:<44} {k:>8.1} ns {:>11}",
        "40-digit x * x, summed (100k)", "-"
    );
}
