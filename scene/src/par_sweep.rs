//! The full sweep on several threads, for rooms big enough that it pays.
//!
//! The slot order puts every parent before its children but does not keep subtrees
//! contiguous, so the work is split by slot range, not by subtree: the slots are cut into
//! chunks of [`ParallelSweep::chunk_slots`], which the threads claim in increasing order
//! from one queue. A thread recomputes its chunk exactly as the serial sweep would; a
//! parent in the same chunk was done earlier in it, and a parent in an earlier chunk is
//! read from that chunk once its owner has published it. Publishing hands the finished
//! chunk over as a shared slice through a `OnceLock`, so the whole split is safe Rust: a
//! chunk is only ever either one thread's `&mut` (while it is computed) or everyone's `&`
//! (after), and the lock's release/acquire pairing orders the writes before the reads.
//!
//! Progress: the lowest unfinished chunk only waits for chunks below it, which are all
//! finished, so some thread always advances; correctness never depends on the threads
//! actually running at the same time (one thread alone claims every chunk and never
//! waits). In a room where subtrees interleave (the common case: parents sit far below
//! their children in slot order) the threads almost never wait; a chain runs its chunks
//! one after the other, but the depth limit (1024 by default) keeps a chain within two
//! chunks of 4,096.
//!
//! Paying: below [`ParallelSweep::min_nodes`] the threads cost more than they save. Above
//! it they save only if the other cores are free: a sweep waits for its slowest thread,
//! and on a machine whose cores are taken by other work, a helper thread that starts
//! late or is preempted while it holds a chunk makes the sweep slower than the serial
//! one. So each parallel sweep times itself against the calling thread's own rate (its
//! time per chunk, waits excluded, times all the chunks: what it alone would have
//! taken); one that did not come in under 0.9 of that, because the helpers started late
//! or sat preempted on a chunk, sends the next sweeps to the serial path, twice as many
//! each time it happens again, up to [`MAX_BACK_OFF`], before trying again. The
//! estimate is generous when the calling thread is itself time-shared, so on a busy
//! machine the sweep may stay parallel at about the serial speed; the back-off catches
//! helpers that contribute next to nothing.
//!
//! Invariant on return: the world transforms and the `moved` list are exactly what the
//! serial sweep gives, bit for bit and in the same order (the per-chunk lists are merged
//! back in chunk order).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use canopy_protocol::NodeId;

use super::store::{Topo, Trs, Xf};
use super::sweep;

/// When and how [`Hierarchy::update_all`](super::Hierarchy::update_all) uses several
/// threads. The default sweeps rooms of at least 100,000 live nodes on every available
/// core and smaller rooms on the calling thread only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParallelSweep {
    /// Live nodes at least for the sweep to use threads. Starting a helper thread costs
    /// 45-70 µs, so a second core starts to pay at about 30,000 nodes (150 µs on one
    /// core); the default, 100,000 (half a millisecond), leaves a margin.
    pub min_nodes: usize,
    /// Threads at most, the calling one included; 0 means
    /// `std::thread::available_parallelism()`. 1 keeps every sweep serial.
    pub threads: usize,
    /// Slots per unit of work. Large enough that claiming a chunk and merging its list of
    /// moved nodes is noise next to computing it, small enough to balance the threads
    /// when one of them is preempted.
    pub chunk_slots: usize,
    /// After a parallel sweep slower than about 0.9 of its serial estimate, sweep serially
    /// for a while (see the module docs). Off, every sweep over `min_nodes` uses threads
    /// (tests use it to force the parallel path).
    pub back_off: bool,
}

/// Serial sweeps at most after parallel sweeps that did not pay, before trying again.
pub(crate) const MAX_BACK_OFF: u32 = 64;

impl ParallelSweep {
    /// The defaults (see the type's docs).
    pub const DEFAULT: ParallelSweep = ParallelSweep {
        min_nodes: 100_000,
        threads: 0,
        chunk_slots: 4096,
        back_off: true,
    };

    /// Never use more than the calling thread.
    pub const SERIAL: ParallelSweep = ParallelSweep {
        min_nodes: usize::MAX,
        threads: 1,
        chunk_slots: 4096,
        back_off: false,
    };

    /// The threads a sweep over a room of `live` nodes in `slots` slots should use: 1
    /// means the serial sweep.
    pub(crate) fn threads_for(&self, live: usize, slots: usize) -> usize {
        if live < self.min_nodes {
            return 1;
        }
        let threads = match self.threads {
            0 => available_threads(),
            n => n,
        };
        // More threads than chunks would only idle.
        threads.min(slots.div_ceil(self.chunk_slots.max(1))).max(1)
    }
}

impl Default for ParallelSweep {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// `available_parallelism` reads the cgroup files on Linux, which costs more than a small
/// sweep: read it once per process.
fn available_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Reusable buffers of the parallel sweep: the chunk list and the per-thread lists are
/// kept from sweep to sweep, so the only allocations of a sweep are the helper threads'
/// own (stack and handle, once per thread, never per node). Not state.
#[derive(Debug, Default)]
pub(crate) struct SweepScratch {
    /// One per thread, the calling one first.
    workers: Vec<WorkerOut>,
    /// The published chunks' storage, kept empty between sweeps (see [`recycle`]).
    done: Vec<OnceLock<&'static [Xf]>>,
    /// Sweeps left to run serially after one that did not pay.
    skip: u32,
    /// How many to skip the next time one does not pay.
    next_skip: u32,
}

impl SweepScratch {
    /// Whether this sweep may use threads, as far as the back-off is concerned; counts a
    /// skipped sweep.
    pub(crate) fn parallel_turn(&mut self, back_off: bool) -> bool {
        if !back_off || self.skip == 0 {
            return true;
        }
        self.skip -= 1;
        false
    }

    /// Records whether a parallel sweep paid: `total` its wall time, `busy` the calling
    /// thread's time computing (not waiting), over `own` of the `chunks` chunks.
    fn judge(&mut self, total: Duration, busy: Duration, own: usize, chunks: usize) {
        let serial = busy.as_secs_f64() / own.max(1) as f64 * chunks as f64;
        if total.as_secs_f64() <= 0.9 * serial {
            self.next_skip = 1;
        } else {
            // `next_skip` starts at 0 (the default): the first miss skips one sweep.
            self.skip = self.next_skip.max(1);
            self.next_skip = (self.skip * 2).min(MAX_BACK_OFF);
        }
    }
}

/// What one thread found: the ids it moved, and for each chunk it computed, the chunk's
/// index and where its ids end in `moved`.
#[derive(Debug, Default)]
struct WorkerOut {
    moved: Vec<NodeId>,
    spans: Vec<(usize, usize)>,
    /// The merge's position in `spans`.
    at: usize,
    /// Time spent waiting for other threads' chunks.
    waited: Duration,
}

/// What every thread of one sweep shares.
struct Shared<'a, 'd> {
    topo: &'a [Topo],
    chunk_slots: usize,
    /// The chunks not yet claimed, in slot order.
    queue: Mutex<std::iter::Enumerate<std::slice::ChunksMut<'a, Xf>>>,
    /// Each finished chunk, readable by all.
    done: &'d [OnceLock<&'a [Xf]>],
    /// A thread panicked: whoever waits for its chunk would wait forever, so it gives up.
    failed: AtomicBool,
}

/// Sweeps `xf` (as long as `topo`) on up to `threads` threads and appends the moved ids
/// to `moved` in slot order. Same result as the serial sweep in `propagate.rs`.
pub(crate) fn sweep(
    topo: &[Topo],
    xf: &mut [Xf],
    moved: &mut Vec<NodeId>,
    threads: usize,
    chunk_slots: usize,
    scratch: &mut SweepScratch,
) {
    let chunk_slots = chunk_slots.max(1);
    let chunks = topo.len().div_ceil(chunk_slots);
    let mut done = recycle(std::mem::take(&mut scratch.done));
    done.resize_with(chunks, OnceLock::new);
    scratch
        .workers
        .resize_with(threads.max(1), WorkerOut::default);
    for w in &mut scratch.workers {
        w.moved.clear();
        w.spans.clear();
        w.waited = Duration::ZERO;
    }
    let shared = Shared {
        topo,
        chunk_slots,
        queue: Mutex::new(xf.chunks_mut(chunk_slots).enumerate()),
        done: &done,
        failed: AtomicBool::new(false),
    };
    let start = Instant::now();
    let mut busy = Duration::ZERO;
    std::thread::scope(|scope| {
        let (first, rest) = scratch
            .workers
            .split_first_mut()
            .expect("one worker at least");
        for out in rest {
            let shared = &shared;
            // A thread that cannot be started is not needed: the others claim its chunks.
            let _ = std::thread::Builder::new()
                .name("canopy-sweep".into())
                .spawn_scoped(scope, move || work(shared, out));
        }
        let own_start = Instant::now();
        work(&shared, first);
        busy = own_start.elapsed().saturating_sub(first.waited);
    });
    let total = start.elapsed();
    let own = scratch.workers[0].spans.len();
    scratch.judge(total, busy, own, chunks);
    merge(&mut scratch.workers, chunks, moved);
    scratch.done = recycle(done);
}

/// Empties a list of published chunks and gives its allocation a new lifetime, so that
/// the list outlives the borrow of the store between sweeps. An in-place collect: the
/// element type keeps its layout, so the standard library reuses the buffer.
fn recycle<'b>(mut done: Vec<OnceLock<&'_ [Xf]>>) -> Vec<OnceLock<&'b [Xf]>> {
    done.clear();
    done.into_iter().map(|_| OnceLock::new()).collect()
}

/// One thread's loop: claim the next chunk, compute it, publish it.
fn work(shared: &Shared<'_, '_>, out: &mut WorkerOut) {
    let _guard = FailGuard(&shared.failed);
    let c = shared.chunk_slots;
    // The earlier chunk the last parent outside this chunk was read from.
    let mut cached: (usize, &[Xf]) = (usize::MAX, &[]);
    loop {
        // The lock is held only for the claim; a panic while it is held leaves the
        // iterator usable, so a poisoned lock is taken as it is.
        let next = shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .next();
        let Some((k, chunk)) = next else { break };
        let base = k * c;
        let topo = &shared.topo[base..base + chunk.len()];
        // A parent before the chunk is read from its published chunk.
        let waited = &mut out.waited;
        let outer = |p: usize| -> &Trs {
            // Also a miss while nothing is cached (the empty slice).
            if p.wrapping_sub(cached.0) >= cached.1.len() {
                let pk = p / c;
                cached = (pk * c, wait_for(shared, pk, waited));
            }
            &cached.1[p - cached.0].world
        };
        sweep::sweep_run(topo, chunk, base, outer, &mut out.moved);
        out.spans.push((k, out.moved.len()));
        let finished: &[Xf] = chunk;
        // Only this thread claimed chunk `k`, so it is published once.
        let _ = shared.done[k].set(finished);
    }
}

/// Chunk `k`'s slice, waiting until its thread has published it. It is already claimed
/// (chunks are claimed in order and `k` is below the caller's), so the wait ends.
fn wait_for<'a>(shared: &Shared<'a, '_>, k: usize, waited: &mut Duration) -> &'a [Xf] {
    if let Some(chunk) = shared.done[k].get() {
        return chunk;
    }
    let since = Instant::now();
    let mut spins = 0u32;
    loop {
        if let Some(chunk) = shared.done[k].get() {
            *waited += since.elapsed();
            return chunk;
        }
        assert!(
            !shared.failed.load(Ordering::Relaxed),
            "a sweep thread panicked"
        );
        // A short spin covers the usual wait (the end of one chunk); past it, the thread
        // we wait for is probably preempted, so give it the core.
        spins += 1;
        if spins < 1 << 10 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// Marks the sweep failed when its thread unwinds.
struct FailGuard<'a>(&'a AtomicBool);

impl Drop for FailGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// Appends the threads' moved ids in chunk order, which is slot order: the serial list.
fn merge(workers: &mut [WorkerOut], chunks: usize, moved: &mut Vec<NodeId>) {
    // Each thread's spans are in increasing chunk order, so one cursor per thread.
    for w in workers.iter_mut() {
        w.at = 0;
    }
    for k in 0..chunks {
        for w in workers.iter_mut() {
            if let Some(&(chunk, end)) = w.spans.get(w.at)
                && chunk == k
            {
                let start = if w.at == 0 { 0 } else { w.spans[w.at - 1].1 };
                moved.extend_from_slice(&w.moved[start..end]);
                w.at += 1;
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use canopy_protocol::{Op, Transform};

    use std::time::Duration;

    use super::super::Hierarchy;
    use super::{MAX_BACK_OFF, ParallelSweep, SweepScratch};

    /// A sweep that did not pay sends the next ones to the serial path, twice as many
    /// each time in a row up to the cap; one that paid resets the count.
    #[test]
    fn back_off_doubles_and_resets() {
        let ms = Duration::from_millis;
        let mut s = SweepScratch::default();
        let serial_runs = |s: &mut SweepScratch| {
            let mut n = 0;
            while !s.parallel_turn(true) {
                n += 1;
            }
            n
        };
        // A first sweep that does not pay skips one.
        let mut fresh = SweepScratch::default();
        fresh.judge(ms(9), ms(8), 10, 10);
        assert_eq!(serial_runs(&mut fresh), 1);
        // 4 ms on one thread for half of 10 chunks: 8 ms serial; 6 ms in all pays.
        s.judge(ms(6), ms(4), 5, 10);
        assert_eq!(serial_runs(&mut s), 0);
        // The calling thread did all 10 chunks in 8 ms and the sweep took 9: no gain.
        let mut runs = Vec::new();
        for _ in 0..8 {
            s.judge(ms(9), ms(8), 10, 10);
            runs.push(serial_runs(&mut s));
        }
        assert_eq!(runs, [1, 2, 4, 8, 16, 32, MAX_BACK_OFF, MAX_BACK_OFF]);
        s.judge(ms(5), ms(4), 5, 10);
        s.judge(ms(9), ms(8), 10, 10);
        assert_eq!(serial_runs(&mut s), 1);
        // With the back-off off, every sweep may use threads.
        s.judge(ms(9), ms(8), 10, 10);
        assert!(s.parallel_turn(false));
    }

    /// A sweep reuses the list of published chunks (the in-place collect of `recycle`
    /// keeps the buffer) and the per-thread lists.
    #[test]
    fn sweeps_reuse_their_buffers() {
        let mut h = Hierarchy::new();
        h.set_parallel_sweep(ParallelSweep {
            min_nodes: 0,
            threads: 2,
            chunk_slots: 4,
            back_off: false,
        });
        let ops: Vec<Op> = (0..200u32)
            .map(|i| {
                Op::add(
                    Some(i),
                    i.checked_sub(1).map(|p| p / 3),
                    Transform::IDENTITY,
                )
            })
            .collect();
        h.apply_batch(&ops).unwrap();
        h.update_all();
        h.finish_tick();
        let buffers = |h: &Hierarchy| {
            let s = &h.scratch.sweep;
            let moved: Vec<_> = s.workers.iter().map(|w| w.moved.capacity()).collect();
            (s.done.as_ptr(), s.done.capacity(), moved)
        };
        let first = buffers(&h);
        assert_eq!(first.1, 50, "one entry per chunk");
        let mut last = first.2.clone();
        for round in 0..4 {
            h.apply_batch(&[Op::set_t(0, [round as f32 + 1.0, 0.0, 0.0])])
                .unwrap();
            assert_eq!(h.update_all().moved.len(), 200);
            h.finish_tick();
            let now = buffers(&h);
            assert_eq!(
                (now.0, now.1),
                (first.0, first.1),
                "round {round}: chunk list"
            );
            // The threads' shares vary from sweep to sweep, so a list may still grow, but
            // it is never dropped and made again.
            for (was, is) in last.iter().zip(&now.2) {
                assert!(is >= was, "round {round}: a thread's list was replaced");
            }
            last = now.2;
        }
        h.assert_well_formed();
    }
}
