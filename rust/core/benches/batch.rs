//! Criterion benches of the batch kernels on a deterministic synthetic workload.

use clustersched_core::batch::{BatchSim, Builtin, Jobs, Nodes, Request, Runner};
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

/// 120 nodes of 2 cores and 2,048 MB (HPC2N's, paper 001 §5.3), one partition.
fn nodes() -> Nodes {
    Nodes {
        cores: vec![2; 120],
        memory: vec![2048; 120],
        gres: Vec::new(),
        kinds: 0,
        features: vec![0; 120],
        weight: vec![0; 120],
        partitions: vec![1; 120],
    }
}

/// One task a processor of `jobs`, each asking a memory per task drawn from
/// a generator, from 10% of a node's to all of it (to half of it for a job
/// wider than the nodes, which must then put two tasks on a node).
fn requests(jobs: &Jobs) -> Vec<Request> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    jobs.width
        .iter()
        .map(|&tasks| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let most = if tasks > 120 { 1024 } else { 2048 };
            Request {
                nodes: 1,
                tasks,
                cpus_per_task: 1,
                mem_per_cpu: 205 + (state >> 33) % (most - 204),
                mem_per_node: 0,
                gres_per_node: 0,
                gres_kinds: 0,
                features: 0,
                partition: 0,
                exclusive: false,
            }
        })
        .collect()
}

/// The node path: placement, shadows and reservations held node by node in cores and memory.
fn bench_nodes(c: &mut Criterion) {
    let jobs = workload(20_000, 240, 300.0);
    let (nodes, requests) = (nodes(), requests(&jobs));
    for name in ["fcfs", "easy", "easy-arrival"] {
        let policy = Builtin::from_name(name).unwrap();
        c.bench_function(&format!("{name}_20k_jobs_120_nodes_memory"), |b| {
            b.iter(|| {
                let mut sim =
                    BatchSim::on_nodes(jobs.clone(), nodes.clone(), requests.clone(), policy.priority()).unwrap();
                assert!(Runner::new(policy).run(&mut sim, None).unwrap());
                assert!(sim.starts().iter().all(|s| s.is_finite()));
                sim.starts().len()
            })
        });
    }
}

criterion_group!(benches, bench, bench_nodes);
criterion_main!(benches);
