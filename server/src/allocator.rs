//! The allocator's own figures (jemalloc's `stats.*`), logged periodically when
//! `KPG_LOG_ALLOCATOR_SECS` is set: what the program has allocated, what jemalloc holds in
//! pages it uses, and what is resident or mapped, to tell live data from the allocator's
//! retention and fragmentation when RSS and the arrangements' bytes disagree (issue 17).

use std::ffi::CStr;
use std::time::Duration;

/// jemalloc's process-wide byte counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Bytes the program has allocated and not freed.
    pub allocated: u64,
    /// Bytes in pages holding some allocation (allocated plus the slack of those pages).
    pub active: u64,
    /// jemalloc's own bookkeeping.
    pub metadata: u64,
    /// Bytes in resident pages jemalloc maps (active, dirty free pages, metadata).
    pub resident: u64,
    /// Bytes jemalloc has mapped.
    pub mapped: u64,
    /// Bytes unmapped back to the system but kept as address space.
    pub retained: u64,
}

/// Reads a `size_t` statistic by name (a NUL-terminated jemalloc name).
fn read(name: &CStr) -> u64 {
    let mut value: usize = 0;
    let mut len = std::mem::size_of::<usize>();
    // SAFETY: `name` is NUL-terminated; `value` and `len` describe a writable size_t (`usize`),
    // the type of every `stats.*` byte count; no new value is written.
    let rc = unsafe {
        tikv_jemalloc_sys::mallctl(
            name.as_ptr(),
            (&mut value as *mut usize).cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc == 0 {
        value as u64
    } else {
        0
    }
}

/// The current figures (the statistics are refreshed first: jemalloc caches them per epoch).
pub fn stats() -> Stats {
    let mut epoch: u64 = 1;
    let mut len = std::mem::size_of::<u64>();
    // SAFETY: writing `epoch` (a u64, its documented type) refreshes the cached statistics;
    // the old value is read into the same u64.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            c"epoch".as_ptr(),
            (&mut epoch as *mut u64).cast(),
            &mut len,
            (&mut epoch as *mut u64).cast(),
            std::mem::size_of::<u64>(),
        );
    }
    Stats {
        allocated: read(c"stats.allocated"),
        active: read(c"stats.active"),
        metadata: read(c"stats.metadata"),
        resident: read(c"stats.resident"),
        mapped: read(c"stats.mapped"),
        retained: read(c"stats.retained"),
    }
}

/// Starts a thread logging [`stats`] every `KPG_LOG_ALLOCATOR_SECS` seconds, if it is set.
pub fn log_periodically() {
    let Some(secs) = std::env::var("KPG_LOG_ALLOCATOR_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
    else {
        return;
    };
    let every = Duration::from_secs_f64(secs);
    let spawned = std::thread::Builder::new()
        .name("allocator-stats".into())
        .spawn(move || loop {
            let s = stats();
            let mib = |b: u64| b / (1024 * 1024);
            tracing::info!(
                allocated_mib = mib(s.allocated),
                active_mib = mib(s.active),
                metadata_mib = mib(s.metadata),
                resident_mib = mib(s.resident),
                mapped_mib = mib(s.mapped),
                retained_mib = mib(s.retained),
                "allocator"
            );
            std::thread::sleep(every);
        });
    if let Err(e) = spawned {
        tracing::warn!("allocator statistics not logged: {e}");
    }
}
