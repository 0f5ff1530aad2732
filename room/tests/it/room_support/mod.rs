//! Rooms driven tick by tick in tests: [`CheckedTick::checked_tick`] runs a tick and then
//! the room's whole invariant check (scene, octree against hierarchy, history,
//! subscribers, outboxes), so every test that ticks a room also checks it.

use canopy_room::{Room, TickReport};

/// A tick followed by [`Room::assert_well_formed`].
pub(crate) trait CheckedTick {
    /// Runs one tick at `now_ms`, then checks the room whole.
    fn checked_tick(&mut self, now_ms: u64) -> TickReport;
}

impl CheckedTick for Room {
    fn checked_tick(&mut self, now_ms: u64) -> TickReport {
        let report = self.tick(now_ms);
        self.assert_well_formed();
        report
    }
}
