//! Criterion benches of the PTG kernels on deterministic synthetic PTGs
//! shaped like RR-7224's random PTGs (§5.1.2) on gdx (216 processors), and
//! of the multi-cluster kernels of `clustersched_core::scrap` (PDCS 2007).

use clustersched_core::ptg::{
    backfill, bottom_levels, hcpa_allocation, hcpa_standalone, list_schedule, HcpaLimits, HcpaRule, Ptg, PtgSet,
    Readiness,
};
use clustersched_core::scrap::{
    beta_estimate, check_cluster_schedule, mheft_max, place_reference, scrap_allocation, Comms, MultiCluster, Network,
    Scrap, Translation,
};
use criterion::{criterion_group, criterion_main, Criterion};

const GDX_PROCS: u32 = 216;
const GDX_SPEED: f64 = 3.388e9;

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

/// A layered PTG of `n` real tasks (levels of 1..=2*width-1 tasks, each task
/// with 1..=3 parents in the previous level), plus a zero-work entry and
/// exit; works of `a * d` flop with d in [4M, 121M] and a in [2^6, 2^9),
/// alpha in [0, 0.25).
fn random_ptg(rng: &mut Lcg, n: usize, width: usize) -> Ptg {
    let mut levels: Vec<Vec<usize>> = Vec::new();
    let mut id = 1;
    while id <= n {
        let size = (1 + (rng.next() * (2 * width - 1) as f64) as usize).min(n + 1 - id);
        levels.push((id..id + size).collect());
        id += size;
    }
    let total = n + 2;
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); total];
    succ[0] = levels[0].clone();
    for l in 1..levels.len() {
        for &v in &levels[l] {
            let prev = &levels[l - 1];
            for _ in 0..1 + (rng.next() * 3.0) as usize {
                let u = prev[(rng.next() * prev.len() as f64) as usize];
                if !succ[u].contains(&v) {
                    succ[u].push(v);
                }
            }
        }
    }
    for s in succ.iter_mut().take(n + 1).skip(1) {
        if s.is_empty() {
            s.push(total - 1);
        }
        s.sort_unstable();
    }
    let mut work = vec![0.0; total];
    let mut alpha = vec![0.0; total];
    for v in 1..=n {
        let d = 4.0 * 1_048_576.0 + rng.next() * 117.0 * 1_048_576.0;
        work[v] = (64.0 + rng.next() * 448.0) * d;
        alpha[v] = 0.25 * rng.next();
    }
    let mut offsets = vec![0];
    let mut flat = Vec::new();
    for s in &succ {
        flat.extend_from_slice(s);
        offsets.push(flat.len());
    }
    Ptg::new(work, alpha, &offsets, &flat).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut rng = Lcg(0x2545_f491_4f6c_dd1d);
    let one = random_ptg(&mut rng, 30, 5);
    // CPA's rule: on 216 processors it grows allocations much further than
    // the sqrt rule, so it is the costlier loop to keep fast.
    c.bench_function("hcpa_allocation_30_tasks_216_procs", |b| {
        b.iter(|| {
            let alloc = hcpa_allocation(&one, GDX_SPEED, &HcpaLimits::cluster(GDX_PROCS, HcpaRule::Cpa)).unwrap();
            assert_eq!(alloc.len(), 32);
            alloc
        })
    });

    let graphs: Vec<Ptg> = (0..10)
        .map(|k| random_ptg(&mut rng, 10 + 10 * (k % 3), 2 + k % 4))
        .collect();
    let set = PtgSet::new(graphs).unwrap();
    let alone = hcpa_standalone(&set, GDX_PROCS, GDX_SPEED, HcpaRule::Cpa).unwrap();
    let mut bl = Vec::new();
    for i in 0..set.len() {
        let lo = set.base(i);
        bl.extend(bottom_levels(set.graph(i), &alone.alloc[lo..lo + set.graph(i).len()], GDX_SPEED).unwrap());
    }
    c.bench_function("hcpa_standalone_10_ptgs_216_procs", |b| {
        b.iter(|| hcpa_standalone(&set, GDX_PROCS, GDX_SPEED, HcpaRule::Cpa).unwrap())
    });
    c.bench_function("list_schedule_10_ptgs_216_procs", |b| {
        b.iter(|| {
            let s = list_schedule(&set, &alone.alloc, &bl, GDX_PROCS, GDX_SPEED, Readiness::Placed).unwrap();
            assert_eq!(s.len(), set.num_tasks());
            s
        })
    });
    let listed = list_schedule(&set, &alone.alloc, &bl, GDX_PROCS, GDX_SPEED, Readiness::Placed).unwrap();
    c.bench_function("backfill_10_ptgs_216_procs", |b| {
        b.iter(|| {
            let s = backfill(&set, &listed, GDX_PROCS, GDX_SPEED).unwrap();
            assert_eq!(s.len(), set.num_tasks());
            s
        })
    });
}

/// SCRAP (PDCS 2007) on a 50-task PTG and an 8-cluster platform of the
/// paper's kind (16..128 processors per cluster, speeds in [0.5, 2.5] GFlop/s,
/// half the clusters on 10 Gb/s links), with the network model on.
fn bench_scrap(c: &mut Criterion) {
    let mut rng = Lcg(0x5c7a_9f00_d1e5_2007);
    let g = random_ptg(&mut rng, 50, 4);
    let procs: Vec<u32> = (0..8).map(|_| 16 + (rng.next() * 113.0) as u32).collect();
    let speed: Vec<f64> = (0..8).map(|_| (0.5 + rng.next() * 2.0) * 1e9).collect();
    let platform = MultiCluster::new(procs, speed).unwrap();
    let gbit = 1e9 / 8.0;
    let network = Network {
        link_bw: (0..8).map(|k| if k % 2 == 0 { gbit } else { 10.0 * gbit }).collect(),
        link_lat: vec![1e-4; 8],
        uplink_bw: gbit,
        uplink_lat: 1e-4,
        backbone_bw: 25.0 * gbit,
        backbone_lat: 0.05,
    };
    let bytes: Vec<f64> = (0..g.len())
        .map(|v| if g.work()[v] > 0.0 { 8.0 * 60e6 } else { 0.0 })
        .collect();
    let comms = Some(Comms {
        network: &network,
        bytes: &bytes,
    });
    for (name, variant) in [("scrap", Scrap::Scrap), ("scrap_max", Scrap::ScrapMax)] {
        c.bench_function(&format!("{name}_allocation_50_tasks_8_clusters_beta_0.5"), |b| {
            b.iter(|| {
                let a = scrap_allocation(&g, &platform, 0.5, variant, Translation::Closest).unwrap();
                assert!(beta_estimate(&g, &platform, &a).unwrap() <= 0.5 * (1.0 + 1e-9));
                a
            })
        });
    }
    let alloc = scrap_allocation(&g, &platform, 0.5, Scrap::Scrap, Translation::Closest).unwrap();
    c.bench_function("scrap_allocation_and_placement_50_tasks_8_clusters", |b| {
        b.iter(|| {
            let a = scrap_allocation(&g, &platform, 0.5, Scrap::Scrap, Translation::Closest).unwrap();
            let s = place_reference(&g, &platform, &a, comms, Translation::Closest).unwrap();
            assert_eq!(s.len(), g.len());
            s
        })
    });
    let placed = place_reference(&g, &platform, &alloc, comms, Translation::Closest).unwrap();
    check_cluster_schedule(&g, &platform, &placed, Some((&alloc, Translation::Closest)), comms).unwrap();
    c.bench_function("mheft_max_50_tasks_8_clusters_fraction_0.5", |b| {
        b.iter(|| {
            let s = mheft_max(&g, &platform, 0.5, comms).unwrap();
            assert_eq!(s.len(), g.len());
            s
        })
    });
}

criterion_group!(benches, bench, bench_scrap);
criterion_main!(benches);
