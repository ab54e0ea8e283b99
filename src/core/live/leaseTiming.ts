/**
 * The node-lifecycle controller's timing (see ./leases.ts), apart from the leases model: the Leases view shows the
 * grace period in its tooltips from activation on, and importing this file loads nothing of the model.
 */

/** --node-monitor-grace-period: 50 s by default since Kubernetes 1.32 (40 s before). */
export const NODE_MONITOR_GRACE_MS = 50_000;
/** --node-monitor-period: how often the controller looks. */
export const NODE_MONITOR_PERIOD_MS = 5_000;
