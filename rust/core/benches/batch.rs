//! Criterion benches of the batch kernels on a deterministic synthetic workload.

use clustersched_core::batch::{BatchSim, Builtin, Jobs, Runner};
use criterion::{criterion_group, criterion_main, Criterion};

/// `n` jobs on `total` processors from a fixed linear congruential generator:
/// widths skewed to small (many serial jobs, a few wide ones), runtimes
/// spanning seconds to a day, and estimates up to 4x the runtime.
fn workload(n: usize, total: u32, mean_gap: f64) -> Jobs {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut jobs = Jobs::default();
    let mut t = 0.0;
    for _ in 0..n {
        t += (mean_gap * 2.0 * next()).floor();
        let runtime = (10f64.powf(1.0 + 3.9 * next())).floor();
        let width = ((total as f64).powf(next() * next()) as u32).clamp(1, total);
        jobs.submit.push(t);
        jobs.runtime.push(runtime);
        jobs.estimate.push((runtime * (1.0 + 3.0 * next())).floor());
        jobs.width.push(width);
    }
    jobs
}

fn bench(c: &mut Criterion) {
    let jobs = workload(20_000, 256, 300.0);
    for name in ["fcfs", "easy", "easy-arrival", "conservative", "sjf", "dpsa-n"] {
        let policy = Builtin::from_name(name).unwrap();
        c.bench_function(&format!("{name}_20k_jobs_256_procs"), |b| {
            b.iter(|| {
                let mut sim = BatchSim::new(jobs.clone(), 256, policy.priority()).unwrap();
                assert!(Runner::new(policy).run(&mut sim, None).unwrap());
                sim.starts().len()
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
