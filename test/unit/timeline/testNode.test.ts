import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { testNodeChoices } from '../../../src/core/timeline/testNode';
import type { Node } from '../../../src/core/live/types';

const node = (name: string, images: string[], opts: { cp?: boolean; cordoned?: boolean; notReady?: boolean } = {}): Node => ({
  metadata: { name },
  spec: { ...(opts.cp ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {}), ...(opts.cordoned ? { unschedulable: true } : {}) },
  status: { conditions: [{ type: 'Ready', status: opts.notReady ? 'False' : 'True' }], images: [{ names: images, sizeBytes: 1 }] },
});

test('the test pod\'s node: any (first), then each schedulable node, saying whether its start will be cold or warm', () => {
  const web = '10.3.60.1:5000/kwlab/web:1.0';
  const choices = testNodeChoices([node('w02', []), node('m01', [web], { cp: true }), node('w01', [web]), node('w03', [web], { cordoned: true }), node('w04', [], { notReady: true })], web);
  assert.deepEqual(choices.map((c) => [c.node, c.description]), [
    [undefined, 'the scheduler decides'],
    ['w01', 'has the image: a warm start'],
    ['w02', 'does not report the image: it is pulled (a cold start)'],
    ['w04', 'not Ready · does not report the image: it is pulled (a cold start)'],
  ]);
});

test('an image named the short way is found under the name the node reports', () => {
  assert.match(testNodeChoices([node('w01', ['docker.io/library/nginx:latest'])], 'nginx')[1]!.description, /^has the image/);
  assert.match(testNodeChoices([node('w01', ['docker.io/library/busybox:1.36'])], 'busybox:1.36')[1]!.description, /^has the image/);
  assert.match(testNodeChoices([node('w01', ['docker.io/library/busybox:1.36'])], 'busybox')[1]!.description, /^does not report/);
});
