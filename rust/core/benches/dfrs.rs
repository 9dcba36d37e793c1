//! Criterion bench of MCB8 (DFRS, RR-7659 §4.3): 100 jobs packed from an
//! empty 128-node cluster with the binary search on the yield, jobs shaped
//! like the paper's synthetic ones (§5.3.2: sizes 2^k tasks, a quarter of
//! them one task at 25% CPU, the others at 100%; memory 10% for 55% of the
//! jobs, 10·x% with x in 2..=10 otherwise). Target: ≤ 1 ms.

use clustersched_core::dfrs::{mcb8, Cluster, Jobs, UNIT};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

const NODES: u32 = 128;
const JOBS: usize = 100;

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

fn jobs() -> Jobs {
    let mut rng = Lcg(2011);
    let (mut tasks, mut cpu, mut mem) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..JOBS {
        let t = if rng.next() < 0.25 {
            1
        } else {
            1u32 << (rng.next() * 8.0) as u32
        };
        tasks.push(t);
        cpu.push(if t == 1 { UNIT / 4 } else { UNIT });
        let x = if rng.next() < 0.55 {
            1
        } else {
            2 + (rng.next() * 9.0) as u64
        };
        mem.push(UNIT / 10 * x);
    }
    Jobs::new(tasks, cpu, mem).expect("valid jobs")
}

fn bench_mcb8(c: &mut Criterion) {
    let jobs = jobs();
    let order: Vec<u32> = (0..JOBS as u32).collect();
    let fixed = vec![false; JOBS];
    c.bench_function("mcb8_100_jobs_128_nodes", |b| {
        b.iter_batched(
            || Cluster::new(jobs.clone(), NODES).expect("valid cluster"),
            |mut cluster| {
                let p = mcb8::apply(&mut cluster, &order, &fixed, mcb8::Target::Yield, mcb8::ACCURACY).expect("packs");
                assert!(p.level > 0.0 && p.kept > 0);
                p
            },
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, bench_mcb8);
criterion_main!(benches);
