//! [`Stop`]: the signal that ends a phase of the run (the load, or the subscribers).
//!
//! A thin wrapper over a `watch` channel of `bool`. Invariant: once raised, a signal
//! stays raised, and [`Stop::raised`] completes at once for every holder, whenever it
//! is awaited; the guard `watch` hands out is dropped inside, so tasks that wait on it
//! stay `Send`.

use tokio::sync::watch;

/// The raising side.
#[derive(Debug)]
pub(crate) struct StopSender(watch::Sender<bool>);

/// The waiting side; cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct Stop(watch::Receiver<bool>);

/// A fresh, lowered signal.
pub(crate) fn channel() -> (StopSender, Stop) {
    let (tx, rx) = watch::channel(false);
    (StopSender(tx), Stop(rx))
}

impl StopSender {
    /// Raises the signal for every holder.
    pub(crate) fn raise(&self) {
        self.0.send_replace(true);
    }
}

impl Stop {
    /// Completes once the signal is raised (or its sender is gone).
    pub(crate) async fn raised(&mut self) {
        let _ = self.0.wait_for(|s| *s).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn raised_completes_for_every_holder() {
        let (tx, mut a) = channel();
        let mut b = a.clone();
        tx.raise();
        a.raised().await;
        b.raised().await;
        a.raised().await;
    }
}
