//! `RowBytes`: the bytes of an owned packed row in `SIZE` (32) bytes. Up to 31 bytes are stored
//! inline; longer rows are a pointer and a length, either to an exact-size heap allocation the
//! row owns, or into an [`Arena`] the row only borrows (a row stored in an arrangement's batch,
//! which owns the arena and outlives the row; see `kpg_sortkey::ArenaCopy`).
//!
//! The last byte says which: `0..=31` is an inline length, `HEAP` an owned allocation, `ARENA`
//! a borrowed one. The size is a trade measured on TPC-H view installs (tests/BENCHMARKS.md):
//! 16 bytes saved 16 bytes a stored row, but spilled the many rows of 16 to 31 bytes that flow
//! between operators, and sorting them then missed the cache on every comparison (+13% CPU);
//! 32 bytes (31 inline, where a `SmallVec<[u8; 24]>` of the same size held 24) costs less CPU
//! than before, and a stored row still takes no allocation of its own.

use kpg_sortkey::Arena;
use std::ptr::NonNull;

/// Bytes of a `RowBytes`.
const SIZE: usize = 32;
/// Longest row stored inline.
pub const INLINE: usize = SIZE - 1;
const HEAP: u8 = 0x80;
const ARENA: u8 = 0x40;

/// A spilled row: where its bytes are, how many, and whose they are (`tag`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Spilled {
    ptr: NonNull<u8>,
    len: u64,
    _pad: [u8; SIZE - 17],
    tag: u8,
}

#[repr(C)]
union Repr {
    /// Bytes `0..len` of the row, `len` in the last byte.
    inline: [u8; SIZE],
    spilled: Spilled,
}

const _: () = assert!(std::mem::size_of::<Spilled>() == SIZE);
const _: () = assert!(std::mem::size_of::<Repr>() == SIZE);

/// The bytes of an owned packed row (see the module's documentation).
pub struct RowBytes {
    repr: Repr,
}

// SAFETY: a `RowBytes` owns its heap allocation exclusively (as a `Box<[u8]>` does). An
// arena-backed one shares its arena with nothing that writes to it; only the batch holding the
// arena hands it out, by reference, and clones of it are owned.
unsafe impl Send for RowBytes {}
unsafe impl Sync for RowBytes {}

impl RowBytes {
    #[inline]
    fn tag(&self) -> u8 {
        // SAFETY: every variant writes all `SIZE` bytes (the padding of `Spilled` explicitly), and
        // the last byte is the inline length or the spilled tag.
        unsafe { self.repr.inline[SIZE - 1] }
    }

    #[inline]
    fn spilled(ptr: NonNull<u8>, len: usize, tag: u8) -> RowBytes {
        let len = len as u64;
        RowBytes {
            repr: Repr {
                spilled: Spilled {
                    ptr,
                    len,
                    _pad: [0; SIZE - 17],
                    tag,
                },
            },
        }
    }

    /// A copy of `bytes`: inline when short, else an exact-size allocation.
    #[inline]
    pub fn from_slice(bytes: &[u8]) -> RowBytes {
        RowBytes::from_slices(bytes, &[])
    }

    /// The bytes of `a` then `b`, copied once: inline when short, else one exact-size
    /// allocation.
    #[inline]
    pub fn from_slices(a: &[u8], b: &[u8]) -> RowBytes {
        let len = a.len() + b.len();
        if len <= INLINE {
            let mut inline = [0u8; SIZE];
            inline[..a.len()].copy_from_slice(a);
            inline[a.len()..len].copy_from_slice(b);
            inline[SIZE - 1] = len as u8;
            RowBytes {
                repr: Repr { inline },
            }
        } else {
            let mut owned = Vec::with_capacity(len);
            owned.extend_from_slice(a);
            owned.extend_from_slice(b);
            let owned = owned.into_boxed_slice();
            // SAFETY: `Box::into_raw` never returns null.
            let ptr = unsafe { NonNull::new_unchecked(Box::into_raw(owned) as *mut u8) };
            RowBytes::spilled(ptr, len, HEAP)
        }
    }

    /// The row's bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        let tag = self.tag();
        if tag as usize <= INLINE {
            // SAFETY: an inline row; its first `tag` bytes are the row's.
            unsafe { &self.repr.inline[..tag as usize] }
        } else {
            // SAFETY: a spilled row points at `len` initialized bytes, owned by it or by an
            // arena that outlives it (the `ArenaCopy` contract).
            unsafe {
                let s = self.repr.spilled;
                std::slice::from_raw_parts(s.ptr.as_ptr(), s.len as usize)
            }
        }
    }

    /// Bytes this row owns on the heap: its allocation's size when it owns one, else 0 (an
    /// arena-backed row's bytes are the arena's).
    #[inline]
    pub fn heap_size(&self) -> usize {
        if self.tag() == HEAP {
            self.as_slice().len()
        } else {
            0
        }
    }

    /// Bytes [`arena_copy`](Self::arena_copy) puts in an arena.
    #[inline]
    pub fn arena_len(&self) -> usize {
        if self.tag() as usize <= INLINE {
            0
        } else {
            self.as_slice().len()
        }
    }

    /// A copy whose bytes, if spilled, live in `arena`.
    ///
    /// # Safety
    ///
    /// As `ArenaCopy::arena_copy`: the copy must not be used after `arena` is dropped.
    #[inline]
    pub unsafe fn arena_copy(&self, arena: &mut Arena) -> RowBytes {
        if self.tag() as usize <= INLINE {
            // SAFETY: an inline row is plain bytes.
            RowBytes {
                repr: Repr {
                    inline: unsafe { self.repr.inline },
                },
            }
        } else {
            let bytes = self.as_slice();
            RowBytes::spilled(arena.copy(bytes), bytes.len(), ARENA)
        }
    }
}

impl Default for RowBytes {
    fn default() -> RowBytes {
        RowBytes {
            repr: Repr { inline: [0; SIZE] },
        }
    }
}

impl Clone for RowBytes {
    /// An owned copy, whatever the original's storage.
    #[inline]
    fn clone(&self) -> RowBytes {
        RowBytes::from_slice(self.as_slice())
    }
}

impl Drop for RowBytes {
    #[inline]
    fn drop(&mut self) {
        if self.tag() == HEAP {
            // SAFETY: an owned allocation made by `from_slices` from a `Box<[u8]>` of `len`
            // bytes, freed once.
            unsafe {
                let s = self.repr.spilled;
                let slice = std::ptr::slice_from_raw_parts_mut(s.ptr.as_ptr(), s.len as usize);
                drop(Box::from_raw(slice));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_round_trips_owned_cloned_and_in_an_arena() {
        let mut arena = Arena::new();
        let mut in_arena = Vec::new();
        for len in 0..200usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let owned = RowBytes::from_slice(&bytes);
            assert_eq!(owned.as_slice(), &bytes[..]);
            assert_eq!(owned.heap_size(), if len > INLINE { len } else { 0 });
            assert_eq!(owned.arena_len(), owned.heap_size());
            let cloned = owned.clone();
            drop(owned);
            assert_eq!(cloned.as_slice(), &bytes[..]);
            // SAFETY: `arena` outlives `in_arena` (dropped first below).
            let stored = unsafe { cloned.arena_copy(&mut arena) };
            assert_eq!(stored.heap_size(), 0, "an arena row owns nothing");
            // A clone of an arena row is owned again.
            let back = stored.clone();
            assert_eq!(back.heap_size(), cloned.heap_size());
            in_arena.push((stored, bytes));
        }
        let spilled: usize = in_arena
            .iter()
            .map(|(_, b)| if b.len() > INLINE { b.len() } else { 0 })
            .sum();
        assert_eq!(arena.used(), spilled, "only spilled rows take arena bytes");
        for (row, bytes) in &in_arena {
            assert_eq!(row.as_slice(), &bytes[..]);
        }
        drop(in_arena);
        drop(arena);
        assert_eq!(std::mem::size_of::<RowBytes>(), SIZE);
        assert_eq!(RowBytes::default().as_slice(), &[] as &[u8]);
    }
}
