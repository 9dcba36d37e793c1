//! Large buffers backed by huge pages where the system offers them.
//!
//! A fresh 4 KiB page costs a fault when it is first written (1.5-4 µs on a
//! virtual machine), so filling a large buffer (a trace's columns, its
//! inflated text) can cost more in faults than in the work written into it.
//! Transparent huge pages fault 2 MiB at a time. Linux gives them to memory
//! that asks (`MADV_HUGEPAGE`) under its default setting, and numpy asks for
//! every array of 4 MiB or more; the core's large buffers ask as well.

/// Buffers smaller than this are left to the system's default, as numpy does.
pub const HUGE_MIN: usize = 4 << 20;

/// Asks the kernel to back the `count` values at `start` with transparent
/// huge pages when they take at least [`HUGE_MIN`] bytes (advice only: it
/// reads and writes nothing, and does nothing on other systems or where
/// Linux's setting is `never`). Call it before the buffer is first written:
/// after `vec![0; n]`, whose large zeroed memory comes fresh from the system
/// untouched, or on a buffer not yet filled.
pub fn advise_huge_pages<T>(start: *const T, count: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let len = count.saturating_mul(std::mem::size_of::<T>());
        if len >= HUGE_MIN {
            // The whole pages inside the buffer (at least HUGE_MIN - 2 pages).
            let begin = (start as usize).next_multiple_of(PAGE);
            let end = (start as usize).saturating_add(len) / PAGE * PAGE;
            // SAFETY: madvise only changes how the kernel backs these pages,
            // which lie inside the caller's buffer; its result is advice too.
            unsafe {
                libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, count);
}

/// An empty vector with room for `capacity` values, backed by huge pages
/// when it is large (see [`advise_huge_pages`]): for buffers filled once.
pub fn huge_vec<T>(capacity: usize) -> Vec<T> {
    let v = Vec::with_capacity(capacity);
    advise_huge_pages(v.as_ptr(), capacity);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `VmFlags` line of the mapping holding `address`, from /proc/self/smaps.
    #[cfg(target_os = "linux")]
    fn vm_flags(address: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = range.split_once('-') {
                if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)) {
                    inside = (lo..hi).contains(&address);
                    continue;
                }
            }
            if inside && line.starts_with("VmFlags:") {
                return Some(line.to_string());
            }
        }
        None
    }

    #[test]
    fn advice_leaves_contents_and_marks_only_large_buffers() {
        for len in [
            0usize,
            1,
            4095,
            4096 * 3 + 7,
            HUGE_MIN / 8 - 1,
            HUGE_MIN / 8 + 1,
            3 * HUGE_MIN / 8 + 5,
        ] {
            let mut v = vec![0u64; len];
            advise_huge_pages(v.as_ptr(), v.len());
            // An unaligned start: the advice rounds inwards to whole pages.
            if len > 1 {
                advise_huge_pages(v[1..].as_ptr(), len - 1);
            }
            for (i, x) in v.iter_mut().enumerate() {
                *x = i as u64 * 3;
            }
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 * 3));
            #[cfg(target_os = "linux")]
            if len > 0 && std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
                let flags = vm_flags(v.as_ptr() as usize + len * 4).expect("the buffer is mapped");
                let marked = flags.split_whitespace().any(|f| f == "hg");
                assert_eq!(marked, len * 8 >= HUGE_MIN, "{len} values: {flags}");
            }
        }
    }
}
