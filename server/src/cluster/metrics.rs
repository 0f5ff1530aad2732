//! The cluster's counters and gauges in `/metrics` (`canopy_cluster_*`), registered
//! once when a node joins. Invariant: every one of them is listed in docs/cluster.md.

use prometheus::{IntCounter, IntGauge};

/// The cluster's counters in `/metrics`.
#[derive(Debug, Clone)]
pub struct ClusterMetrics {
    /// `canopy_cluster_forwarded_total`: requests passed to another node.
    pub forwarded: IntCounter,
    /// `canopy_cluster_forward_failures_total`: passed requests that got no answer.
    pub forward_failures: IntCounter,
    /// `canopy_cluster_served_total`: requests other nodes passed to this one.
    pub served: IntCounter,
    /// `canopy_cluster_websockets_passed`: WebSockets passed on to an owner, open now.
    pub websockets_passed: IntGauge,
    /// `canopy_cluster_replicas`: replicas of other nodes' rooms this node relays.
    pub replicas: IntGauge,
    /// `canopy_cluster_leases`: room leases this node holds.
    pub leases: IntGauge,
    /// `canopy_cluster_leases_lost_total`: leases this node lost (stepped down).
    pub leases_lost: IntCounter,
    /// `canopy_cluster_renew_failures_total`: lease renewals that failed.
    pub renew_failures: IntCounter,
    /// `canopy_cluster_takeovers_total`: rooms this node took over from their journal.
    pub takeovers: IntCounter,
}

impl ClusterMetrics {
    pub(super) fn new(metrics: &crate::metrics::Metrics) -> Self {
        use canopy_room::metrics::registered;
        let r = metrics.registry();
        let counter = |name: &str, help: &str| {
            registered(r, IntCounter::new(name, help).expect("valid counter"))
        };
        let gauge =
            |name: &str, help: &str| registered(r, IntGauge::new(name, help).expect("valid gauge"));
        ClusterMetrics {
            forwarded: counter(
                "canopy_cluster_forwarded_total",
                "HTTP requests passed to the node that owns their room",
            ),
            forward_failures: counter(
                "canopy_cluster_forward_failures_total",
                "Passed requests the other node did not answer",
            ),
            served: counter(
                "canopy_cluster_served_total",
                "HTTP requests other nodes passed to this one",
            ),
            websockets_passed: gauge(
                "canopy_cluster_websockets_passed",
                "WebSockets passed on to the node that owns their room, open now",
            ),
            leases: gauge("canopy_cluster_leases", "Room leases this node holds"),
            replicas: gauge(
                "canopy_cluster_replicas",
                "Replicas of rooms other nodes own that this node relays",
            ),
            leases_lost: counter(
                "canopy_cluster_leases_lost_total",
                "Room leases this node lost and stepped down from",
            ),
            renew_failures: counter(
                "canopy_cluster_renew_failures_total",
                "Lease renewals that failed (NATS away, or the lease taken)",
            ),
            takeovers: counter(
                "canopy_cluster_takeovers_total",
                "Rooms this node took over from their journal after their owner's lease expired",
            ),
        }
    }
}
