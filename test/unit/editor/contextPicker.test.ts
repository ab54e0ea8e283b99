import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMessages } from '../../../src/core/l10n';
import { browseLabel, contextPickModel } from '../../../src/editor/contextPickerModel';

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
  assert.ok(labels.includes(browseLabel()));
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

test('in Russian the picker speaks Russian from the shipped bundle; context names, servers and setting names stay as they are', () => {
  const bundle = JSON.parse(readFileSync(join(__dirname, '../../../l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;
  assert.deepEqual(useMessages('ru', bundle), []);
  try {
    const m = contextPickModel({ choice }, undefined, '10.3.60.100:6443');
    assert.equal(m.title, 'Контекст кластера (/home/u/.kube/config)');
    assert.equal(m.placeholder, 'API-сервер отказоустойчивого кластера kubeadm — это его VIP (controlPlaneEndpoint)');
    const lab = m.entries.find((e) => e.action?.kind === 'context' && e.action.name === 'lab')!;
    assert.equal(lab.detail, 'кластер lab · пользователь admin · current-context · controlPlaneEndpoint из инвентаря');
    const labels = m.entries.map((e) => e.label);
    assert.ok(labels.includes('$(folder-opened) Выбрать файл kubeconfig…') && labels.includes('$(rocket) Развернуть кластер…'), labels.join(' | '));
    assert.equal(m.entries.find((e) => e.action?.kind === 'settings')!.description, 'kubeadmWorkbench.kubeconfig');
    const missing = contextPickModel({ error: 'ENOENT', missing: true, looked: ['/home/u/.kube/config'] }, undefined, undefined);
    assert.equal(missing.title, 'Файл kubeconfig не найден (проверены: /home/u/.kube/config)');
  } finally {
    useMessages('en', undefined);
  }
});
