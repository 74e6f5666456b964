//! Keeps free headroom in wasm memory so it grows geometrically.
//!
//! The allocator (dlmalloc) grows linear memory by just the pages a request
//! needs. In V8 each `memory.grow` hands JS a new buffer that is counted as
//! fresh external memory, and once the memory is past V8's external soft limit
//! (64 MB) every grow forces a full GC: with a large in-memory store, a write
//! that happens to grow memory then costs milliseconds, every few dozen
//! writes (the bench's growth section showed p99 ≈ 4 ms at 100k claims).
//! After each API call, if memory grew since the last look, this allocates and
//! frees one block of an eighth of the memory: dlmalloc grows once, the block
//! goes back to its top chunk, and the next allocations use it — grows become
//! O(log size) in all, for at most 12.5% of memory kept free.

use std::cell::Cell;

thread_local! {
    static SEEN_PAGES: Cell<usize> = const { Cell::new(0) };
}

pub fn keep_headroom() {
    let pages = core::arch::wasm32::memory_size::<0>();
    if pages <= SEEN_PAGES.with(Cell::get) {
        return;
    }
    // black_box: an allocation nobody uses may otherwise be optimized away.
    drop(std::hint::black_box(Vec::<u8>::with_capacity(pages * 65536 / 8)));
    SEEN_PAGES.with(|s| s.set(core::arch::wasm32::memory_size::<0>()));
}
