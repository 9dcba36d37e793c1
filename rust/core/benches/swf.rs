//! Criterion bench of the SWF scanner on the whole HPC2N-2002 trace (202,871
//! jobs, 19 MB of text), decompressed once by the system's `gzip` (the core
//! reads bytes; `clustersched.read_swf` decompresses with Python's zlib).
//! Skipped, with a message, when the shared traces or `gzip` are absent.

use std::path::Path;
use std::process::Command;

use clustersched_core::workload::swf::scan;
use criterion::{criterion_group, criterion_main, Criterion};

fn hpc2n() -> Option<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/swf/HPC2N-2002-2.2-cln.swf.gz");
    let out = Command::new("gzip").arg("-dc").arg(&path).output().ok()?;
    out.status.success().then_some(out.stdout)
}

fn bench(c: &mut Criterion) {
    let Some(raw) = hpc2n() else {
        eprintln!("swf bench skipped: ../shared/data/swf/HPC2N-2002-2.2-cln.swf.gz or gzip not found");
        return;
    };
    let s = scan(&raw);
    assert_eq!((s.rows(), s.problems.len()), (202_871, 0));
    let mut group = c.benchmark_group("swf");
    group.sample_size(10);
    group.bench_function("scan_hpc2n", |b| b.iter(|| scan(std::hint::black_box(&raw)).rows()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
