//! Criterion benches of QLSE and the greedy baseline on the largest instance
//! of the QLSE paper's Tables 1-2: a TIG of 64 tasks (MCR 400-600 Mflop/s,
//! MBR 30-50 Mb/s) on a grid of 32 LANs of 48 hosts (1000-1300 Mflop/s,
//! LAN and link bandwidth 40-60 Mb/s), drawn deterministically.

use clustersched_core::grid::{
    greedy_best_fit, mapping_is_valid, qlse, Bandwidth, GreedyReading, LanGrid, Outcome, QlseParams, Tig,
};
use criterion::{criterion_group, criterion_main, Criterion};

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
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() * n as f64) as usize
    }
}

/// A random recursive tree on `n` nodes plus `extra` other edges.
fn random_edges(rng: &mut Lcg, n: usize, extra: usize, p_other: f64) -> Vec<(usize, usize)> {
    let mut edges: Vec<(usize, usize)> = (1..n).map(|k| (rng.below(k), k)).collect();
    let mut added = 0;
    while added < extra {
        let (a, b) = (rng.below(n), rng.below(n));
        let e = (a.min(b), a.max(b));
        if a != b && !edges.iter().any(|&(x, y)| (x.min(y), x.max(y)) == e) {
            edges.push(e);
            added += 1;
        }
    }
    if p_other > 0.0 {
        for a in 0..n {
            for b in a + 1..n {
                if !edges.iter().any(|&(x, y)| (x.min(y), x.max(y)) == (a, b)) && rng.next() < p_other {
                    edges.push((a, b));
                }
            }
        }
    }
    edges
}

fn instance() -> (Tig, LanGrid) {
    let mut rng = Lcg(2007);
    let n = 64;
    let edges = random_edges(&mut rng, n, n / 4, 0.0);
    let mcr: Vec<f64> = (0..n).map(|_| rng.uniform(400.0, 600.0)).collect();
    let mbr: Vec<f64> = edges.iter().map(|_| rng.uniform(30.0, 50.0)).collect();
    let u: Vec<usize> = edges.iter().map(|e| e.0).collect();
    let v: Vec<usize> = edges.iter().map(|e| e.1).collect();
    let tig = Tig::new(mcr, &u, &v, &mbr).expect("valid TIG");
    let (lans, hosts) = (32, 48);
    let offsets: Vec<usize> = (0..=lans).map(|l| l * hosts).collect();
    let power: Vec<f64> = (0..lans * hosts).map(|_| rng.uniform(1000.0, 1300.0)).collect();
    let lan_bw: Vec<f64> = (0..lans).map(|_| rng.uniform(40.0, 60.0)).collect();
    let links = random_edges(&mut rng, lans, 0, 0.2);
    let a: Vec<usize> = links.iter().map(|e| e.0).collect();
    let b: Vec<usize> = links.iter().map(|e| e.1).collect();
    let link_bw: Vec<f64> = links.iter().map(|_| rng.uniform(40.0, 60.0)).collect();
    (
        tig,
        LanGrid::new(offsets, power, lan_bw, &a, &b, link_bw).expect("valid grid"),
    )
}

/// The bench checks what it times: a mapping, when found, meets every MCR and MBR.
fn check(tig: &Tig, grid: &LanGrid, out: &Outcome, model: Bandwidth) {
    if let Some(hosts) = &out.hosts {
        assert!(mapping_is_valid(tig, grid, hosts, model));
    }
}

fn bench(c: &mut Criterion) {
    let (tig, grid) = instance();
    for (name, model) in [("shared", Bandwidth::Shared), ("dedicated", Bandwidth::Dedicated)] {
        let params = QlseParams {
            bandwidth: model,
            ..QlseParams::default()
        };
        let out = qlse(&tig, &grid, params).expect("connected TIG");
        check(&tig, &grid, &out, model);
        // shared: 20-60 Mb/s LANs cannot carry a 64-task TIG, so QLSE tries every cluster of every step
        assert_eq!(out.hosts.is_some(), model == Bandwidth::Dedicated, "{name}: {out:?}");
        assert!(out.attempts >= 1);
        c.bench_function(
            &format!("qlse 64 tasks on 32x48 ({name}, {} attempts)", out.attempts),
            |b| b.iter(|| qlse(&tig, &grid, params).expect("connected TIG")),
        );
        let g = greedy_best_fit(&tig, &grid, model, GreedyReading::Checked);
        check(&tig, &grid, &g, model);
        c.bench_function(&format!("greedy 64 tasks on 32x48 ({name})"), |b| {
            b.iter(|| greedy_best_fit(&tig, &grid, model, GreedyReading::Checked))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
