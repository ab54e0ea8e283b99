import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { defaultTestImage } from '../../../src/core/timeline/defaultImage';
import type { Node } from '../../../src/core/live/types';

const node = (name: string, images: string[][], opts: { cp?: boolean } = {}): Node => ({
  metadata: { name },
  spec: opts.cp ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {},
  status: { images: images.map((names) => ({ names, sizeBytes: 1 })) },
});

const pause = ['registry.lab:5000/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a', 'registry.lab:5000/pause:3.10'];
const flannel = ['ghcr.io/flannel-io/flannel:v0.26.7'];

test('air-gapped: the default test image is one every schedulable node already holds, the pause image first', () => {
  const nodes = [node('m01', [pause, ['registry.lab:5000/etcd:3.6.5-0']], { cp: true }), node('w01', [flannel, pause]), node('w02', [pause, flannel])];
  assert.deepEqual(defaultTestImage(nodes, undefined, 'nginx'), { image: 'registry.lab:5000/pause:3.10', why: 'already on all 2 schedulable nodes: nothing to pull' });
  // The last image the user chose wins when the nodes have it.
  assert.equal(defaultTestImage(nodes, undefined, 'ghcr.io/flannel-io/flannel:v0.26.7').image, 'ghcr.io/flannel-io/flannel:v0.26.7');
  // No pause in common: another image all of them hold.
  assert.equal(defaultTestImage([node('w01', [flannel]), node('w02', [flannel, pause])], undefined, undefined).image, 'ghcr.io/flannel-io/flannel:v0.26.7');
});

test('without node images: the inventory registry\'s pause image, never nginx', () => {
  assert.equal(defaultTestImage([node('w01', [])], 'registry.lab:5000/k8s', undefined).image, 'registry.lab:5000/k8s/pause:3.10');
  assert.equal(defaultTestImage([], undefined, undefined).image, 'registry.k8s.io/pause:3.10');
});
