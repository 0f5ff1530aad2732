//! The machine's memory read bandwidth, on one thread and on two: the ceiling of the
//! parallel full update at 1M nodes (`hierarchy` bench, "parallel vs serial at 1M").
//!
//! A 1M-node sweep reads 96 bytes per node (a 32-byte link record and a 64-byte pair of
//! local and world transforms) from arrays far larger than the caches, so once the serial
//! sweep streams near one thread's bandwidth, a second thread can add only what the
//! memory system gives two threads beyond one. This bench measures exactly that: a plain
//! read of a 256 MiB array (its words XORed in four chains, nothing written) by one thread,
//! then by two threads taking a half each, several rounds interleaved, and prints the
//! median of each and their ratio. No criterion: one number per configuration and round
//! is what is compared, both measured in the same run.
//!
//! `cargo bench -p canopy-benches --bench memory_bandwidth`

use std::hint::black_box;
use std::time::Instant;

/// 256 MiB of u64: far beyond any cache of the machine.
const WORDS: usize = 256 * 1024 * 1024 / 8;
const ROUNDS: usize = 9;

fn read(words: &[u64]) -> u64 {
    // Four independent XOR chains, so the loop is bound by the loads, not by one chain.
    let mut acc = [0u64; 4];
    for c in words.chunks_exact(4) {
        for (a, w) in acc.iter_mut().zip(c) {
            *a ^= *w;
        }
    }
    acc.iter().fold(0, |x, a| x ^ a)
}

/// GB/s for reading all of `words` on `threads` threads, one contiguous share each.
fn gbps(words: &[u64], threads: usize) -> f64 {
    let share = words.len() / threads;
    let began = Instant::now();
    std::thread::scope(|s| {
        let parts: Vec<_> = words
            .chunks(share)
            .map(|part| s.spawn(move || black_box(read(part))))
            .collect();
        for p in parts {
            black_box(p.join().expect("reader panicked"));
        }
    });
    (words.len() * 8) as f64 / began.elapsed().as_secs_f64() / 1e9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let words: Vec<u64> = (0..WORDS as u64).collect();
    println!(
        "workload: read {} MiB, {ROUNDS} rounds, one thread and two threads alternating",
        WORDS * 8 / (1024 * 1024)
    );
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        one.push(gbps(&words, 1));
        two.push(gbps(&words, 2));
    }
    let (one, two) = (median(one), median(two));
    println!("read bandwidth, 1 thread (median)      {one:.1} GB/s");
    println!("read bandwidth, 2 threads (median)     {two:.1} GB/s");
    println!("2 threads / 1 thread                   {:.2}x", two / one);
    println!(
        "a 96-byte-per-node sweep at those rates: {:.2} ns per node on 1 thread, {:.2} on 2",
        96.0 / one,
        96.0 / two
    );
}
