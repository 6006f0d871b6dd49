//! Summaries of measured durations: quantiles, and the points of a CDF / CCDF for the plots.

use std::time::Duration;

/// Milliseconds of a duration.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The `q`-quantile (0 to 1) of `values`, by linear interpolation between the closest ranks;
/// NaN when there are none.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        1 => v[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
        }
    }
}

pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// `(value, fraction of values <= value)` for each value, ascending.
pub fn cdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    v.iter()
        .enumerate()
        .map(|(i, x)| (*x, (i + 1) as f64 / n))
        .collect()
}

/// `(value, fraction of values > value)` for each value, ascending (the last is 0, drawn at
/// a small positive fraction by the log-scaled plot).
pub fn ccdf(values: &[f64]) -> Vec<(f64, f64)> {
    cdf(values).into_iter().map(|(x, f)| (x, 1.0 - f)).collect()
}

/// min / p25 / median / p75 / p90 / max of `values`, as a markdown table row's cells.
pub fn distribution_cells(values: &[f64]) -> String {
    [0.0, 0.25, 0.5, 0.75, 0.9, 1.0]
        .iter()
        .map(|q| format!(" {} |", fmt_ms(quantile(values, *q))))
        .collect()
}

/// A value in ms with three significant digits or so.
pub fn fmt_ms(v: f64) -> String {
    if v.is_nan() {
        "–".into()
    } else if v < 10.0 {
        format!("{v:.2}")
    } else if v < 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let v = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(median(&v), 2.5);
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(cdf(&v).last(), Some(&(4.0, 1.0)));
        assert_eq!(ccdf(&v)[0], (1.0, 0.75));
    }
}
