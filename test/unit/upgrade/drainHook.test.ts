/**
 * The upgrade's drain (its hook over our drain code): a pod with emptyDir data stops it, as kubectl drain does,
 * unless --delete-emptydir-data was given; the plan says which. Over an in-memory cluster (the drain's own
 * orchestration is tested against a real kube-apiserver in test/integration/live/drain.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DrainPod } from '../../../src/core/drain/classify';
import type { DrainCluster } from '../../../src/core/drain/drainNode';
import { renderPlan } from '../../../src/core/plan/types';
import { buildUpgradePlan } from '../../../src/core/upgrade/plan';
import { targetPackageSource } from '../../../src/core/upgrade/packageSource';
import { upgradeHooks } from '../../../src/engine/upgrade';
import { lab, recordingHooks } from './fixtures';

/** A worker with one Deployment pod that keeps a cache in an emptyDir volume. */
function worker(evicted: string[]): DrainCluster {
  let pods: DrainPod[] = [{ namespace: 'default', name: 'cache-1', uid: 'uid-cache-1', phase: 'Running', hasEmptyDir: true, controller: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cache-5d9c' } }];
  return {
    getNode: async (name) => ({ name, unschedulable: false, ready: true, controlPlane: false }),
    setUnschedulable: async () => undefined,
    listPodsOnNode: async () => pods.map((p) => ({ ...p })),
    daemonSet: async () => ({ exists: true }),
    eviction: () => ({
      evict: async (p) => {
        evicted.push(p.name);
        pods = pods.filter((x) => x.name !== p.name);
        return { kind: 'accepted' };
      },
      getPod: async () => undefined,
    }),
    controlPlaneMembers: async () => [],
    leaderLeases: async () => [],
  };
}

const hooksOver = (evicted: string[], deleteEmptyDirData?: boolean) => upgradeHooks({
  backup: { inventory: lab(), ssh: undefined as never, become: () => undefined as never }, backupDir: 'unused', cluster: async () => worker(evicted),
  ...(deleteEmptyDirData !== undefined ? { deleteEmptyDirData } : {}),
});

test('the upgrade\'s drain stops at a pod with emptyDir data (nothing evicted) unless --delete-emptydir-data; the plan says which', async () => {
  const kept: string[] = [];
  await assert.rejects(hooksOver(kept).drain('labs-k8s-w01'), /local storage.*--delete-emptydir-data/i);
  assert.deepEqual(kept, [], 'the emptyDir pod was not evicted');
  const evicted: string[] = [];
  await hooksOver(evicted, true).drain('labs-k8s-w01');
  assert.deepEqual(evicted, ['cache-1']);
  const inv = lab();
  const target = { major: 1, minor: 34, patch: 12 };
  const planWith = (drainDeletesEmptyDirData: boolean) => renderPlan(buildUpgradePlan({ inventory: inv, target, source: targetPackageSource(inv, target) }, { ...recordingHooks(), drainDeletesEmptyDirData }));
  assert.match(planWith(false), /a pod with emptyDir data stops the drain: --delete-emptydir-data evicts it/);
  assert.match(planWith(true), /pods with emptyDir volumes are evicted and that data is DELETED \(--delete-emptydir-data\)/);
  assert.equal(hooksOver([]).drainDeletesEmptyDirData, false);
});
