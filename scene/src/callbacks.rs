//! Per-node update callbacks (OpenSceneGraph's update callbacks) and the built-in ones.
//!
//! A node may carry a chain of callbacks. Each tick, before propagation, the room calls
//! [`Hierarchy::run_update_callbacks`], which runs every chain once: the first callback
//! of a chain gets a `next` continuation that runs the rest of the chain, and decides
//! whether and when to call it (as OSG's nested callbacks do with `traverse`). The cost is
//! proportional to the number of nodes with callbacks, not to the room. Invariant: only
//! live nodes have callbacks; a removed node's chain is dropped at the next update.

use std::f32::consts::TAU;

use canopy_protocol::NodeId;
use glam::{Quat, Vec3};

use super::Hierarchy;

/// What a callback sees: the tick, the time step and the hierarchy to edit.
pub struct UpdateContext<'a> {
    /// The tick being prepared.
    pub tick: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// `tick * dt`, in seconds: lets periodic motions depend on the tick only.
    pub time: f64,
    /// The room's hierarchy, to read and edit (edits take effect in this tick).
    pub hierarchy: &'a mut Hierarchy,
}

/// A per-node update callback.
pub trait UpdateCallback: Send + Sync {
    /// Runs for `node` once per tick. Call `next(ctx)` to run the rest of the node's chain
    /// (not calling it stops the chain here).
    fn update(
        &mut self,
        node: NodeId,
        ctx: &mut UpdateContext<'_>,
        next: &mut dyn FnMut(&mut UpdateContext<'_>),
    );
}

/// The callbacks of one node, run first to last.
pub(crate) type CallbackChain = Vec<Box<dyn UpdateCallback>>;

fn run_chain(chain: &mut [Box<dyn UpdateCallback>], node: NodeId, ctx: &mut UpdateContext<'_>) {
    if let Some((first, rest)) = chain.split_first_mut() {
        first.update(node, ctx, &mut |ctx| run_chain(rest, node, ctx));
    }
}

impl Hierarchy {
    /// Replaces the node's callbacks with `cb`. False for an unknown node.
    pub fn set_update_callback(&mut self, id: NodeId, cb: Box<dyn UpdateCallback>) -> bool {
        if !self.contains(id) {
            return false;
        }
        self.callbacks.insert(id, vec![cb]);
        true
    }

    /// Appends `cb` to the node's chain (a nested callback: it runs when the one before
    /// it calls `next`). False for an unknown node.
    pub fn add_update_callback(&mut self, id: NodeId, cb: Box<dyn UpdateCallback>) -> bool {
        if !self.contains(id) {
            return false;
        }
        self.callbacks.entry(id).or_default().push(cb);
        true
    }

    /// Same as [`add_update_callback`](Self::add_update_callback), under OSG's name.
    pub fn add_nested(&mut self, id: NodeId, cb: Box<dyn UpdateCallback>) -> bool {
        self.add_update_callback(id, cb)
    }

    /// Drops every callback of the node; returns how many there were.
    pub fn remove_update_callbacks(&mut self, id: NodeId) -> usize {
        self.callbacks.remove(&id).map_or(0, |c| c.len())
    }

    /// Nodes that have callbacks.
    pub fn callback_count(&self) -> usize {
        self.callbacks.len()
    }

    /// The update traversal: runs every node's callback chain once, in id order (so that
    /// runs are reproducible). Call it each tick before `update_dirty`.
    pub fn run_update_callbacks(&mut self, tick: u64, dt: f32) {
        if self.callbacks.is_empty() {
            return;
        }
        // The chains leave the hierarchy while they run, so that they may edit it.
        let mut chains = std::mem::take(&mut self.callbacks);
        let mut order = std::mem::take(&mut self.scratch.callback_order);
        order.clear();
        order.extend(chains.keys().copied());
        order.sort_unstable();
        let mut ctx = UpdateContext {
            tick,
            dt,
            time: tick as f64 * f64::from(dt),
            hierarchy: self,
        };
        for &id in &order {
            if !ctx.hierarchy.contains(id) {
                continue;
            }
            if let Some(chain) = chains.get_mut(&id) {
                run_chain(chain, id, &mut ctx);
            }
        }
        self.scratch.callback_order = order;
        // Callbacks set while the chains ran go after the existing ones.
        let added = std::mem::replace(&mut self.callbacks, chains);
        for (id, mut list) in added {
            self.callbacks.entry(id).or_default().append(&mut list);
        }
        let slots = &self.slots;
        self.callbacks.retain(|id, _| slots.is_live(*id));
    }
}

/// Turns the node about `axis` (local frame of the parent) at `rad_per_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spin {
    /// The rotation axis, normalized when used (zero: the Y axis).
    pub axis: Vec3,
    /// Angular speed, radians per second (negative turns the other way).
    pub rad_per_s: f32,
}

impl UpdateCallback for Spin {
    fn update(
        &mut self,
        node: NodeId,
        ctx: &mut UpdateContext<'_>,
        next: &mut dyn FnMut(&mut UpdateContext<'_>),
    ) {
        let axis = self.axis.try_normalize().unwrap_or(Vec3::Y);
        if let Some(l) = ctx.hierarchy.local(node) {
            let r = Quat::from_array(l.r);
            let turned = (Quat::from_axis_angle(axis, self.rad_per_s * ctx.dt) * r).normalize();
            let _ = ctx.hierarchy.set_local(node, None, Some(turned), None);
        }
        next(ctx);
    }
}

/// Moves the node on a circle of `radius` around `center`, in the plane normal to `axis`,
/// at `rad_per_s`, starting at angle `phase`. Sets the local translation from the time,
/// so the motion depends on the tick only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    /// The circle's centre, in the parent's frame.
    pub center: Vec3,
    /// The normal of the circle's plane, normalized when used (zero: the Y axis).
    pub axis: Vec3,
    /// The circle's radius, in the parent's units.
    pub radius: f32,
    /// Angular speed, radians per second.
    pub rad_per_s: f32,
    /// The angle at time 0, radians.
    pub phase: f32,
}

impl UpdateCallback for Orbit {
    fn update(
        &mut self,
        node: NodeId,
        ctx: &mut UpdateContext<'_>,
        next: &mut dyn FnMut(&mut UpdateContext<'_>),
    ) {
        let axis = self.axis.try_normalize().unwrap_or(Vec3::Y);
        let start = axis.any_orthonormal_vector() * self.radius;
        let angle = (f64::from(self.phase) + f64::from(self.rad_per_s) * ctx.time) as f32;
        let t = self.center + Quat::from_axis_angle(axis, angle) * start;
        let _ = ctx.hierarchy.set_local(node, Some(t), None, None);
        next(ctx);
    }
}

/// Moves the node back and forth along `axis` by up to `amplitude`, `hz` times a second,
/// around the translation it had when the callback first ran (`origin`, captured then
/// unless given).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bob {
    /// The direction of motion, normalized when used (zero: no motion).
    pub axis: Vec3,
    /// The largest distance from `origin`, in the parent's units.
    pub amplitude: f32,
    /// Oscillations per second.
    pub hz: f32,
    /// The centre of the motion; `None`: the local translation at the first run.
    pub origin: Option<Vec3>,
}

impl Bob {
    /// A bob about the node's translation when it first runs.
    pub fn new(axis: Vec3, amplitude: f32, hz: f32) -> Bob {
        Bob {
            axis,
            amplitude,
            hz,
            origin: None,
        }
    }
}

impl UpdateCallback for Bob {
    fn update(
        &mut self,
        node: NodeId,
        ctx: &mut UpdateContext<'_>,
        next: &mut dyn FnMut(&mut UpdateContext<'_>),
    ) {
        if let Some(l) = ctx.hierarchy.local(node) {
            let origin = *self.origin.get_or_insert(Vec3::from_array(l.t));
            let phase = (f64::from(TAU) * f64::from(self.hz) * ctx.time).sin() as f32;
            let t = origin + self.axis.normalize_or_zero() * (self.amplitude * phase);
            let _ = ctx.hierarchy.set_local(node, Some(t), None, None);
        }
        next(ctx);
    }
}
