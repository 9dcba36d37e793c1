//! Gzip inflation for the trace readers: libdeflate, in one call, for the
//! usual file of one gzip member (about three times as fast as zlib on the
//! archive's traces). Anything else is left to the caller's general reader
//! (`read_swf`: Python's zlib, which reads every gzip file and words every
//! gzip error).

/// Deflate expands at most 1032:1: a trailer claiming more is damage, and
/// allocating what it claims is not worth the try.
const MAX_RATIO: usize = 1032;

/// The bytes `raw` holds when it is exactly one gzip member that inflates
/// cleanly; `None` for anything else (several members, padding after the
/// member, damage, a size that does not fit in the trailer).
#[must_use]
pub fn inflate(raw: &[u8]) -> Option<Vec<u8>> {
    let n = raw.len();
    let trailer: [u8; 4] = raw.get(n.checked_sub(4)?..)?.try_into().ok()?;
    // The member's size modulo 2**32 (a larger one is left to the caller).
    let size = u32::from_le_bytes(trailer) as usize;
    if size > n.saturating_mul(MAX_RATIO) {
        return None;
    }
    // Zeroed memory this large comes fresh from the system, untouched until
    // libdeflate writes it.
    let mut out = vec![0u8; size];
    crate::memory::advise_huge_pages(out.as_ptr(), size);
    let (mut read, mut written) = (0usize, 0usize);
    // SAFETY: the decompressor is used by this call only and freed before it
    // returns; `raw` and `out` are valid for their lengths, and libdeflate
    // writes at most `size` bytes into `out` and reports what it read and wrote.
    let whole = unsafe {
        let d = libdeflate_sys::libdeflate_alloc_decompressor();
        if d.is_null() {
            return None;
        }
        let result = libdeflate_sys::libdeflate_gzip_decompress_ex(
            d,
            raw.as_ptr().cast(),
            n,
            out.as_mut_ptr().cast(),
            size,
            &mut read,
            &mut written,
        );
        libdeflate_sys::libdeflate_free_decompressor(d);
        result == libdeflate_sys::libdeflate_result_LIBDEFLATE_SUCCESS && read == n && written == size
    };
    whole.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` as one gzip member, by libdeflate's compressor.
    fn gzip(text: &[u8]) -> Vec<u8> {
        // SAFETY: the compressor is used here only and freed; the output
        // buffer holds the bound libdeflate gives for `text`.
        unsafe {
            let c = libdeflate_sys::libdeflate_alloc_compressor(6);
            assert!(!c.is_null());
            let bound = libdeflate_sys::libdeflate_gzip_compress_bound(c, text.len());
            let mut out = vec![0u8; bound];
            let n = libdeflate_sys::libdeflate_gzip_compress(
                c,
                text.as_ptr().cast(),
                text.len(),
                out.as_mut_ptr().cast(),
                bound,
            );
            libdeflate_sys::libdeflate_free_compressor(c);
            assert!(n > 0);
            out.truncate(n);
            out
        }
    }

    #[test]
    fn one_clean_member_inflates_and_anything_else_is_left() {
        let text: Vec<u8> = b"1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 -1 -1 -1 -1\n".repeat(1000);
        let data = gzip(&text);
        assert_eq!(inflate(&data).as_deref(), Some(&text[..]));
        assert_eq!(inflate(&gzip(b"")).as_deref(), Some(&b""[..]));
        let mut wrong_size = data[..data.len() - 4].to_vec();
        wrong_size.extend_from_slice(&(text.len() as u32 + 1).to_le_bytes());
        let mut damaged = data.clone();
        damaged[20] ^= 0x5A;
        let others = [
            [&data[..], &data[..]].concat(),
            [&data[..], b"\0"].concat(),
            data[..data.len() - 1].to_vec(),
            wrong_size,
            damaged,
            b"\x1f\x8b".to_vec(),
            Vec::new(),
            // A trailer claiming more than deflate can expand to.
            [&data[..data.len() - 4], &u32::MAX.to_le_bytes()[..]].concat(),
        ];
        for other in &others {
            assert_eq!(inflate(other), None);
        }
    }
}
