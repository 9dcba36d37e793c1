//! Criterion benches of the Theorem 1 bound (DFRS, RR-7659 §3.1): one
//! maximum flow of the transportation network, and the whole search, on a
//! deterministic 1000-job trace shaped like the paper's synthetic ones
//! (§5.3.2: 128 quad-core nodes, one-task jobs at 25% CPU, others at 100%,
//! offered load about 0.9).

use clustersched_core::dfrs::bound::StretchBound;
use criterion::{criterion_group, criterion_main, Criterion};

const NODES: u64 = 128;
const JOBS: usize = 1000;

/// A fixed linear congruential generator: uniform floats in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Log-uniform runtimes in [1 s, 1 day], sizes 2^k (a quarter of them 1),
/// exponential inter-arrival times scaled to an offered load of 0.9.
fn trace() -> StretchBound {
    let mut rng = Lcg(2011);
    let mut runtime = Vec::with_capacity(JOBS);
    let mut tasks = Vec::with_capacity(JOBS);
    for _ in 0..JOBS {
        runtime.push((rng.next() * 86_400f64.ln()).exp().round().max(1.0));
        tasks.push(if rng.next() < 0.25 {
            1
        } else {
            1u64 << (rng.next() * 8.0) as u32
        });
    }
    let work: f64 = runtime.iter().zip(&tasks).map(|(p, &t)| p * t as f64).sum();
    let span = work / (0.9 * NODES as f64);
    let mut gaps: Vec<f64> = (0..JOBS).map(|_| -(1.0 - rng.next()).ln()).collect();
    let scale = span / gaps.iter().skip(1).sum::<f64>();
    gaps[0] = 0.0;
    let mut now = 0.0;
    let submit: Vec<f64> = gaps
        .iter()
        .map(|g| {
            now += g * scale;
            now.round()
        })
        .collect();
    let cpu: Vec<f64> = tasks.iter().map(|&t| if t == 1 { 0.25 } else { 1.0 }).collect();
    StretchBound::new(&submit, &runtime, &cpu, &tasks, NODES, 10.0).expect("valid trace")
}

fn benches(c: &mut Criterion) {
    let bound = trace();
    let stretch = bound.lower_bound().expect("bound").stretch;
    assert!(stretch >= 1.0);
    c.bench_function("dfrs_bound/max_flow_1000_jobs", |b| {
        b.iter(|| {
            let flow = bound.max_flow_at(stretch).expect("flow");
            assert!(flow.feasible());
            flow.value
        })
    });
    c.bench_function("dfrs_bound/lower_bound_1000_jobs", |b| {
        b.iter(|| {
            let s = bound.lower_bound().expect("bound");
            assert_eq!(s.stretch, stretch);
            s.max_flows
        })
    });
}

criterion_group! {
    name = dfrs_bound;
    config = Criterion::default().sample_size(20);
    targets = benches
}
criterion_main!(dfrs_bound);
