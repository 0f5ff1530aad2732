//! A tick's routing of its changes to the room's follow scopes: each changed node goes
//! to the scopes it concerns (those holding it, those whose band files it, those whose
//! anchor it is near), after the scopes whose followed node moved are placed again.
//!
//! Invariant: when it returns [`FollowPass::Events`], every changed node a live follow
//! scope could have to enter, leave, update or re-file this tick is in that scope's
//! events (positions in the diff, ascending, each once); a scope with none has nothing
//! to do (its followed node, which it always holds, did not change).

use super::diff::TickDiff;
use super::follow::{ChangedBoxes, FollowPass, conservative_step};
use super::follow_band::{reach, slack};
use super::outbox::ConnId;
use super::scene_state::SceneState;
use super::scope::centre_of;
use super::subscribers::Subscribers;

impl Subscribers {
    /// Hands each live follow scope the tick's changed nodes it may enter or leave (those
    /// it holds and those within its radius of its new centre), after placing the
    /// scopes whose followed node moved at their new centres; answers
    /// [`FollowPass::Reevaluate`] instead when the tick changed more than twice what the
    /// scopes hold, where routing would cost more than each scope re-evaluating.
    pub(super) fn route_follow_changes(
        &mut self,
        diff: &TickDiff,
        scene: &SceneState,
        boxes: &ChangedBoxes,
    ) -> FollowPass {
        self.place_moved_centres(diff, scene);
        if diff.entries.len() > 2 * self.follows.held() {
            return FollowPass::Reevaluate;
        }
        let Subscribers {
            list,
            index,
            follows,
            ..
        } = self;
        let mut hand = |conn: ConnId, i: u32| {
            if let Some(&at) = index.get(&conn)
                && let Some(state) = list[at].follow.as_mut()
                && state.events.last() != Some(&i)
            {
                state.events.push(i);
            }
        };
        for (i, (e, b)) in diff.entries.iter().zip(boxes.iter()).enumerate() {
            let i = i as u32;
            for conn in follows.concerned(e.id) {
                hand(conn, i);
            }
            if let Some((lo, hi, mask)) = *b {
                follows.within_radius((lo, hi, mask), |conn| hand(conn, i));
            }
        }
        FollowPass::Events
    }

    /// Moves each follow scope whose followed node the tick changed to the node's new
    /// position in the grid (a removed node's scope stays: its tick takes it out).
    fn place_moved_centres(&mut self, diff: &TickDiff, scene: &SceneState) {
        let Subscribers {
            list,
            index,
            follows,
            moved,
        } = self;
        moved.clear();
        // Whichever is shorter: the followed nodes, or the tick's changes.
        if follows.followed_nodes() < diff.entries.len() {
            for node in follows.followed() {
                if diff.change_of(node).is_some() {
                    moved.extend_from_slice(follows.followers_of(node));
                }
            }
        } else {
            for e in &diff.entries {
                moved.extend_from_slice(follows.followers_of(e.id));
            }
        }
        for conn in moved.iter() {
            let sub = &mut list[index[conn]];
            // Re-anchored only past the band's slack: within it, the scope's reach
            // around the anchor still covers everything its tick must look at.
            if let (Some(f), Some(state)) = (&sub.scope.follow, &mut sub.follow)
                && let Some(c) = centre_of(scene, f.node)
                && conservative_step(state.placed, c, reach(f)) > slack(f)
            {
                follows.move_centre(*conn, (reach(f), sub.scope.mask), state.placed, c);
                state.placed = c;
                state.band.invalidate((&mut *follows, *conn));
            }
        }
    }
}
