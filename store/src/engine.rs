//! The bodies of the two threads of the layer: the log thread (group commit, then
//! truncation) and the snapshot writer, and the step that runs a snapshot job.
//!
//! Invariant: the log thread is the only writer of the log, so there is never more than
//! one log fsync in flight; it sleeps only when there is nothing queued, nothing to
//! truncate and no shutdown asked; after a failure both threads stop and touch nothing.

use std::sync::Arc;

use super::error::Result;
use super::shared::Shared;
use super::snapwriter::{SnapJob, SnapWriter};
use super::writer::LogWriter;

impl Shared {
    pub(super) fn run_job(
        &self,
        w: &mut SnapWriter,
        job: SnapJob,
        durable: impl FnOnce(u64) -> bool,
    ) -> Result<()> {
        let change = match job {
            SnapJob::Write(snap) => w.write(&snap, durable)?,
            SnapJob::Deleted {
                room,
                incarnation,
                seq,
            } => Some(w.deleted(&room, incarnation, seq)?),
        };
        if let Some((inc, cover)) = change {
            self.cover.lock().insert(inc, cover);
            self.queue.lock().poke = true;
            self.work.notify_all();
        }
        Ok(())
    }

    pub(super) fn log_loop(self: Arc<Self>, mut log: LogWriter) -> Option<LogWriter> {
        loop {
            let (batch, stop, poke) = {
                let mut q = self.queue.lock();
                while q.pending.is_empty() && !q.shutdown && !q.poke && self.failed.get().is_none()
                {
                    self.work.wait(&mut q);
                }
                (
                    std::mem::take(&mut q.pending),
                    q.shutdown,
                    std::mem::take(&mut q.poke),
                )
            };
            if self.failed.get().is_some() {
                return None;
            }
            let drained = !batch.is_empty();
            if drained && let Err(e) = self.drain(&mut log, batch) {
                self.fail(e);
                return None;
            }
            if (poke || drained)
                && let Err(e) = self.truncate(&mut log)
            {
                self.fail(e);
                return None;
            }
            if stop && !drained {
                return Some(log);
            }
        }
    }

    pub(super) fn snap_loop(self: Arc<Self>, mut w: SnapWriter) {
        loop {
            let job = {
                let mut s = self.snaps.lock();
                loop {
                    if self.failed.get().is_some() {
                        return;
                    }
                    if let Some(job) = s.jobs.pop_front() {
                        s.busy = true;
                        break job;
                    }
                    if s.shutdown {
                        return;
                    }
                    self.snap_cv.wait(&mut s);
                }
            };
            let result = self.run_job(&mut w, job, |seq| self.wait_durable(seq).is_ok());
            self.snaps.lock().busy = false;
            self.snap_cv.notify_all();
            if let Err(e) = result {
                self.fail(e);
                return;
            }
        }
    }
}
