//! Decoding big messages off the async workers. A batch of a quarter of a million ops
//! takes milliseconds to decode; on a tokio worker it would hold up every request queued
//! behind it, health checks among them, so both edges hand messages of
//! [`OFF_WORKER_BYTES`] or more to tokio's blocking pool and wait for the result.
//!
//! Invariant: the caller awaits the decode before it reads its next message, so a
//! connection's messages keep their order; and at most one decode per CPU runs at once,
//! so a flood of big messages over many connections waits its turn rather than holding
//! a decoded copy of every one of them at the same time.

use std::sync::LazyLock;

use bytes::Bytes;
use tokio::sync::Semaphore;

/// Big decodes running at once: one per CPU, as many as could run in parallel anyway.
static DECODERS: LazyLock<Semaphore> =
    LazyLock::new(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())));

/// From this size on a message is decoded on the blocking pool. Below it, decoding
/// costs less than the hand-off.
pub(crate) const OFF_WORKER_BYTES: usize = 256 * 1024;

/// `decode(bytes)`, on the blocking pool when `bytes` is big. A panic in `decode` is
/// raised again here, as if it had run inline.
pub(crate) async fn decode<T, F>(bytes: Bytes, decode: F) -> T
where
    T: Send + 'static,
    F: FnOnce(&[u8]) -> T + Send + 'static,
{
    if bytes.len() < OFF_WORKER_BYTES {
        return decode(&bytes);
    }
    let _turn = DECODERS
        .acquire()
        .await
        .expect("the semaphore is never closed");
    match tokio::task::spawn_blocking(move || decode(&bytes)).await {
        Ok(decoded) => decoded,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn small_and_big_messages_decode_alike() {
        for len in [
            0,
            10,
            OFF_WORKER_BYTES - 1,
            OFF_WORKER_BYTES,
            3 * OFF_WORKER_BYTES,
        ] {
            let bytes = Bytes::from(vec![7u8; len]);
            let sum = decode(bytes, |b| b.iter().map(|&x| x as usize).sum::<usize>()).await;
            assert_eq!(sum, 7 * len);
        }
    }

    #[tokio::test]
    #[should_panic(expected = "bad decoder")]
    async fn a_panic_in_the_pool_is_raised_again() {
        let bytes = Bytes::from(vec![0u8; OFF_WORKER_BYTES]);
        decode(bytes, |_| -> () { panic!("bad decoder") }).await;
    }
}
