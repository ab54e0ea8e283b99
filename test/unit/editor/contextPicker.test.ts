import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSE_LABEL, contextPickModel } from '../../../src/editor/contextPickerModel';

const choice = {
  paths: ['/home/u/.kube/config'],
  current: 'lab',
  contexts: [
    { name: 'lab', cluster: 'lab', user: 'admin', server: 'https://10.3.60.100:6443' },
    { name: 'other', cluster: 'other', user: 'me', server: 'https://192.0.2.7:6443' },
  ],
};

test('the picker lists the contexts, marks the selected one and the VIP match, and always offers Browse', () => {
  const m = contextPickModel({ choice }, 'other', '10.3.60.100:6443');
  const labels = m.entries.filter((e) => !e.separator).map((e) => e.label);
  assert.deepEqual(labels.slice(0, 2), ['$(server) lab', '$(check) other']);
  assert.ok(labels.includes(BROWSE_LABEL));
  assert.match(m.entries[0]!.detail!, /current-context · the inventory's controlPlaneEndpoint/);
  assert.deepEqual(m.entries[1]!.action, { kind: 'context', name: 'other' });
  assert.ok(m.entries[1]!.picked);
  assert.match(m.title, /\.kube\/config/);
});

test('with no kubeconfig the picker still opens: the title says where it looked, the ways out remain', () => {
  const m = contextPickModel({ error: 'kubeconfig problem (/home/u/.kube/config): no kubeconfig file found', missing: true, looked: ['/home/u/.kube/config'] }, undefined, undefined);
  assert.equal(m.title, 'No kubeconfig file found (looked at /home/u/.kube/config)');
  assert.deepEqual(m.entries.map((e) => e.action?.kind), ['browse', 'settings', 'bringUp']);
});

test('an unreadable kubeconfig is described in plain words, no Markdown backticks', () => {
  const m = contextPickModel({ error: 'cannot load kubeconfig: bad `clusters` entry', missing: false, looked: [] }, undefined, undefined);
  assert.equal(m.title, "The kubeconfig cannot be read: cannot load kubeconfig: bad 'clusters' entry");
  assert.ok(!m.title.includes('`'));
});
