//! PNG plots with `plotters` (bitmap backend, text drawn with `ab_glyph` from a TrueType file
//! read at run time, so no fontconfig is needed): line charts with optionally log10-scaled
//! axes (the values are plotted as their log10 on a linear axis, labelled as powers of ten).
//! The font is DejaVu Sans (`KPG_BENCH_FONT` names another file); without one, no plot is
//! drawn and the error says why.

use std::path::Path;
use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// One line of a chart.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// An axis: its description and whether it is log10-scaled.
pub struct Axis {
    pub desc: String,
    pub log: bool,
}

impl Axis {
    pub fn linear(desc: &str) -> Axis {
        Axis {
            desc: desc.into(),
            log: false,
        }
    }

    pub fn log(desc: &str) -> Axis {
        Axis {
            desc: desc.into(),
            log: true,
        }
    }

    fn map(&self, v: f64) -> f64 {
        if self.log {
            v.max(1e-9).log10()
        } else {
            v
        }
    }

    fn label(&self, v: f64) -> String {
        number(if self.log { 10f64.powf(v) } else { v })
    }

    /// The axis range over `values` (mapped), a little wider; log axes on whole decades.
    fn range(&self, values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.map(|v| self.map(v)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            return 0.0..1.0;
        }
        if self.log {
            return lo.floor()..hi.ceil().max(lo.floor() + 1.0);
        }
        let pad = ((hi - lo) * 0.05).max(1e-9);
        (lo - pad).min(0.0)..hi + pad
    }
}

/// A tick label: at most three significant digits, no trailing zeros (`0.3`, not
/// `0.30000000000000004`; `3162`, `0.032`).
fn number(v: f64) -> String {
    let a = v.abs();
    let decimals = if a >= 100.0 || a == 0.0 {
        0
    } else {
        (2.0 - a.log10().floor()).max(0.0) as usize
    };
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Registers the font once; an error when no font file could be read.
fn font() -> Result<(), String> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let path = std::env::var("KPG_BENCH_FONT")
            .unwrap_or_else(|_| "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf".into());
        let bytes = std::fs::read(&path).map_err(|e| format!("font {path}: {e}"))?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("font {path}: not a TrueType/OpenType font"))
    })
    .clone()
}

/// The points of a step function through `points` (a CDF or CCDF).
pub fn steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut last = None;
    for &(x, y) in points {
        if let Some(prev) = last {
            out.push((x, prev));
        }
        out.push((x, y));
        last = Some(y);
    }
    out
}

/// Draws `series` as a line chart into the PNG file `path`.
pub fn line_chart(
    path: &Path,
    title: &str,
    x: &Axis,
    y: &Axis,
    series: &[Series],
) -> Result<(), String> {
    font()?;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let points = || series.iter().flat_map(|s| s.points.iter());
    let x_range = x.range(points().map(|p| p.0));
    let y_range = y.range(points().map(|p| p.1));
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x_range, y_range)
        .map_err(|e| err(&e))?;
    let x_label = |v: &f64| x.label(*v);
    let y_label = |v: &f64| y.label(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&x.desc)
        .y_desc(&y.desc)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .label_style(("sans-serif", 14));
    if x.log {
        mesh.x_labels(12);
    }
    mesh.draw().map_err(|e| err(&e))?;
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    for (i, s) in series.iter().enumerate() {
        let color = colors[i % colors.len()];
        let mapped: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|(a, b)| (x.map(*a), y.map(*b)))
            .collect();
        chart
            .draw_series(LineSeries::new(mapped, color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(s.label.clone())
            .legend(move |(px, py)| {
                PathElement::new([(px, py), (px + 20, py)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn tick_labels_are_short() {
        let labels: Vec<String> = [0.30000000000000004, 3162.2776, 0.031622, 1.0, 0.0, 12.5]
            .into_iter()
            .map(super::number)
            .collect();
        assert_eq!(labels, ["0.3", "3162", "0.0316", "1", "0", "12.5"]);
    }
}
