/**
 * An in-memory cluster for the drain, cordon and uncordon workflows (drainWorkflow.test.ts, and the same workflows read
 * in Russian in russianWorkflows.test.ts).
 */
import type { DrainPod } from '../../../src/core/drain/classify';
import type { ControlPlaneMember } from '../../../src/core/drain/controlPlaneGuard';
import type { DaemonSetAnswer, DrainCluster, DrainNodeInfo } from '../../../src/core/drain/drainNode';

/** A cluster whose evicted pods are gone at the first poll; `evictions` hang until aborted when `hang` is set. */
export class Cluster implements DrainCluster {
  nodes = new Map<string, DrainNodeInfo>();
  pods: DrainPod[] = [];
  members: ControlPlaneMember[] = [];
  evicted: string[] = [];
  hang = false;
  constructor(node: Partial<DrainNodeInfo> & { name: string }) {
    this.nodes.set(node.name, { unschedulable: false, ready: true, controlPlane: false, ...node });
  }
  async getNode(name: string) {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`nodes "${name}" not found`);
    return { ...n };
  }
  async setUnschedulable(name: string, value: boolean) {
    this.nodes.get(name)!.unschedulable = value;
  }
  async listPodsOnNode() {
    return this.pods.map((p) => ({ ...p }));
  }
  async daemonSet(): Promise<DaemonSetAnswer> {
    return { exists: true };
  }
  eviction() {
    return {
      evict: async (p: DrainPod) => {
        if (this.hang) return { kind: 'too-many-requests' as const, message: 'PDB' };
        this.evicted.push(p.name);
        this.pods = this.pods.filter((x) => x.name !== p.name);
        return { kind: 'accepted' as const };
      },
      getPod: async () => undefined,
    };
  }
  async controlPlaneMembers() {
    return this.members;
  }
  async leaderLeases() {
    return [];
  }
  cordoned(name: string) {
    return this.nodes.get(name)!.unschedulable;
  }
}
