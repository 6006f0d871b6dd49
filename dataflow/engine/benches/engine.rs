//! Engine benchmark: kpg's engine and differential-dataflow on the same inputs.
fn main() {
    let _ = differential_dataflow::input::InputSession::<u64, u64, i64>::new();
    let _ = kpg_engine::InputSession::<u64, u64, i64>::new();
}
