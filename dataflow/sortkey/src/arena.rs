//! `Arena` and `ArenaCopy`: where an arrangement's batch keeps the heap bytes of its keys and
//! vals. A batch never changes after it is built, so the bytes its rows own need not be one
//! allocation a row: a batch copies them into a few large chunks it owns (an arena), and its
//! rows point into those. That saves the allocator's per-allocation rounding and bookkeeping,
//! and a merge copies a row with a bump of a pointer instead of a `malloc` (and frees a whole
//! batch with a few `free`s). A type with no heap bytes, or one that does not know how to live
//! in an arena, keeps the default: a batch stores a plain clone of it.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;

/// Smallest chunk an arena allocates, and the largest unless one copy needs more. Chunks are
/// allocated as they fill, so a large arena is many chunks of `MAX_CHUNK`: a size the allocator
/// serves exactly (a power of two), where one large allocation would be rounded up to the
/// allocator's next size class (up to a quarter more, resident once its pages were reused).
const MIN_CHUNK: usize = 4 << 10;
const MAX_CHUNK: usize = 1 << 20;

/// One allocation of an arena: `len` of its `cap` bytes written.
struct Chunk {
    ptr: NonNull<u8>,
    cap: usize,
    len: usize,
}

impl Chunk {
    fn new(cap: usize) -> Chunk {
        let layout = Layout::array::<u8>(cap).expect("arena chunk size");
        // SAFETY: `cap > 0` (callers never ask for an empty chunk), so the layout is not zero-sized.
        let ptr = unsafe { alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| handle_alloc_error(layout));
        Chunk { ptr, cap, len: 0 }
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        let layout = Layout::array::<u8>(self.cap).expect("arena chunk size");
        // SAFETY: allocated in `Chunk::new` with this layout, freed once.
        unsafe { dealloc(self.ptr.as_ptr(), layout) }
    }
}

/// Append-only byte storage whose bytes never move: what [`Arena::copy`] returns stays valid
/// and unchanged until the arena is dropped, however the arena itself is moved.
#[derive(Default)]
pub struct Arena {
    chunks: Vec<Chunk>,
    used: usize,
    /// Bytes the arena was told to expect, and how many of them it has no chunks for yet.
    plan: usize,
    planned: usize,
}

// SAFETY: an arena owns its chunks exclusively (as a `Vec<u8>` owns its buffer); nothing in it
// is shared, so it may move to, or be read from, another thread.
unsafe impl Send for Arena {}
unsafe impl Sync for Arena {}

impl Arena {
    /// An empty arena; it allocates nothing until bytes are copied into it.
    pub fn new() -> Arena {
        Arena::default()
    }

    /// An arena told to expect about `bytes` (what a builder expects to copy): its chunks are
    /// sized by what remains of that, so an exact estimate leaves little slack, and a high one
    /// none beyond the last chunk (chunks are allocated only as they are needed).
    pub fn with_capacity(bytes: usize) -> Arena {
        Arena {
            plan: bytes,
            planned: bytes,
            ..Arena::default()
        }
    }

    /// Copies `bytes` into the arena and returns where they now are. The pointer stays valid,
    /// and the bytes unchanged, until the arena is dropped. Empty input needs no room and
    /// returns a dangling (never read) pointer.
    pub fn copy(&mut self, bytes: &[u8]) -> NonNull<u8> {
        if bytes.is_empty() {
            return NonNull::dangling();
        }
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.cap - c.len >= bytes.len());
        if !fits {
            // What remains of the plan, else geometric growth (a chunk as large as what was
            // stored beyond the plan), within bounds; always room for this copy. (Copies that
            // do not fit a chunk's end leave a few bytes unplanned for.)
            let size = if self.planned > 0 {
                self.planned.min(MAX_CHUNK)
            } else {
                (self.used.saturating_sub(self.plan)).clamp(MIN_CHUNK, MAX_CHUNK)
            };
            let cap = size.max(bytes.len());
            self.planned = self.planned.saturating_sub(cap);
            self.chunks.push(Chunk::new(cap));
        }
        let chunk = self.chunks.last_mut().expect("a chunk with room");
        // SAFETY: `len + bytes.len() <= cap`, so the destination is inside the chunk's
        // allocation, and written bytes are never written again (no overlap with `bytes`,
        // which is not the arena's: the arena hands out no mutable access).
        let dst = unsafe {
            let dst = chunk.ptr.as_ptr().add(chunk.len);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
            NonNull::new_unchecked(dst)
        };
        chunk.len += bytes.len();
        self.used += bytes.len();
        dst
    }

    /// Bytes copied in so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Bytes the arena holds: every chunk at its capacity.
    pub fn heap_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.cap).sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Chunk>()
    }
}

/// How a value is stored in an arrangement's batch (see the module's documentation).
///
/// The defaults store a clone: right for every type whose heap bytes, if any, are not worth an
/// arena. A type that implements `arena_copy` returns a value that may point into the arena,
/// owns nothing there, and frees nothing when dropped.
pub trait ArenaCopy: Clone {
    /// Whether `arena_copy` ever puts bytes in an arena (a builder skips sizing its arena when
    /// neither its keys nor its vals do).
    const USES_ARENA: bool = false;

    /// Bytes `arena_copy` would copy into an arena (a builder sizes its arena by them).
    #[inline]
    fn arena_len(&self) -> usize {
        0
    }

    /// A copy of `self` whose heap bytes, if any, live in `arena`.
    ///
    /// # Safety
    ///
    /// The copy may borrow `arena` without a lifetime: the caller must stop using it before
    /// `arena` is dropped, and must hand it out only by reference (its clones are owned and
    /// independent of the arena, so those may go anywhere).
    #[inline]
    unsafe fn arena_copy(&self, _arena: &mut Arena) -> Self {
        self.clone()
    }
}

// Std scalars: `std_scalars!` in lib.rs.
impl<T: Clone> ArenaCopy for Vec<T> {}
impl<T: Clone> ArenaCopy for Option<T> {}
impl<T: Clone, E: Clone> ArenaCopy for Result<T, E> {}
impl<T: Clone> ArenaCopy for Box<T> {}
impl<T: ?Sized> ArenaCopy for std::rc::Rc<T> {}
impl<T: ?Sized> ArenaCopy for std::sync::Arc<T> {}

macro_rules! tuple {
    ($($t:ident),*) => {
        impl<$($t: Clone),*> ArenaCopy for ($($t,)*) {}
    };
}
tuple!(A);
tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);
tuple!(A, B, C, D, E);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copied_bytes_stay_put_while_the_arena_grows_and_moves() {
        let mut arena = Arena::with_capacity(10);
        let mut copies = Vec::new();
        for i in 0..2000usize {
            let bytes: Vec<u8> = (0..(i % 97)).map(|j| (i + j) as u8).collect();
            let at = arena.copy(&bytes);
            copies.push((at, bytes));
        }
        // Moving the arena moves no bytes.
        let moved = arena;
        for (at, bytes) in &copies {
            // SAFETY: `moved` is alive and was never written at these bytes again.
            let stored = unsafe { std::slice::from_raw_parts(at.as_ptr(), bytes.len()) };
            assert_eq!(stored, &bytes[..]);
        }
        let total: usize = copies.iter().map(|(_, b)| b.len()).sum();
        assert_eq!(moved.used(), total);
        assert!(moved.heap_bytes() >= total);
        // Geometric growth bounds the slack: at most one chunk's worth beyond what is stored.
        assert!(moved.heap_bytes() <= 2 * total + MIN_CHUNK + 4096);
    }

    #[test]
    fn a_planned_arena_leaves_little_slack() {
        let mut arena = Arena::with_capacity(300);
        for _ in 0..3 {
            arena.copy(&[7u8; 100]);
        }
        assert_eq!(arena.used(), 300);
        assert_eq!(arena.chunks.len(), 1);
        assert!(Arena::new().heap_bytes() == 0 && Arena::new().copy(&[]) == NonNull::dangling());
        // A large plan: chunks of MAX_CHUNK as they fill, the last one what remains; copies
        // that do not fit a chunk's end start the next, so a little more is needed at the end.
        let (row, rows) = (vec![1u8; 117], 30_000);
        let mut arena = Arena::with_capacity(row.len() * rows);
        for _ in 0..rows {
            arena.copy(&row);
        }
        assert!(arena
            .chunks
            .iter()
            .rev()
            .skip(2)
            .all(|c| c.cap == MAX_CHUNK));
        let slack = arena.heap_bytes() - arena.used();
        assert!(slack <= MIN_CHUNK + 4 * row.len() + 1024, "slack {slack}");
        // A plan far too high allocates no more than what is copied needs, chunk by chunk.
        let mut arena = Arena::with_capacity(1 << 30);
        arena.copy(&row);
        assert_eq!(arena.heap_bytes() - arena.chunks.capacity() * 24, MAX_CHUNK);
    }
}
