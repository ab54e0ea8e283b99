/**
 * The workflows in Russian, as the editor and the command line show them with the shipped bundle: the drain's
 * question, its detail, its button, the run's name and its result; cordon's question; the sudo question; a refused
 * schedule and an upgrade target that is not a version; the titles of the node operations. With the English
 * catalogue, the same texts as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DRAIN_OPTIONS } from '../../../src/core/drain/classify';
import { parseInventory } from '../../../src/core/inventory/parse';
import { askSudoPassword } from '../../../src/engine/workflows/become';
import { cordonWorkflow, drainWorkflow, type DrainWorkflowInput } from '../../../src/engine/workflows/drainWorkflow';
import { nodeOperationTitle } from '../../../src/engine/workflows/nodesWorkflow';
import { intervalWords, scheduleWorkflow } from '../../../src/engine/workflows/scheduleWorkflow';
import { upgradeWorkflow } from '../../../src/engine/workflows/upgradeWorkflow';
import { ScriptedUi } from './scriptedUi';
import { Cluster } from './drainCluster';
import { CYRILLIC, inRussianAsync as inRussian } from '../l10n/inRussian';

const ROOT = join(__dirname, '../../..');
const inventory = parseInventory(readFileSync(join(ROOT, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;

/** One worker whose pods are gone once evicted. */
const worker = (): Cluster => new Cluster({ name: 'labs-k8s-w02' });

const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d9c' };
function drainInput(c: Cluster): DrainWorkflowInput {
  c.pods = [
    { namespace: 'default', name: 'cache-1', uid: 'u1', phase: 'Running', hasEmptyDir: true, controller: rs },
    { namespace: 'default', name: 'web-1', uid: 'u2', phase: 'Running', hasEmptyDir: false, controller: rs },
  ];
  return {
    cluster: c, node: 'labs-k8s-w02', context: 'admin@labs-k8s', refusedPods: 'stop',
    options: { ...DEFAULT_DRAIN_OPTIONS, deleteEmptyDirData: true, gracePeriodSeconds: -1, dryRun: 'none', readyTimeoutSeconds: 600, uncordonAfter: true, retryIntervalMs: 20, pollIntervalMs: 5, settleMs: 0 },
  };
}

test('drain and cordon in Russian: the question, its detail and button, the run and its result', async () => {
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await inRussian(() => drainWorkflow(ui, drainInput(worker())));
  assert.ok(out.kind === 'ran' && out.result.ok, JSON.stringify(out));
  const [q] = ui.confirms;
  assert.equal(q?.message, 'Освободить узел labs-k8s-w02 (drain): вытеснить подов: 2?');
  assert.deepEqual(q?.actions, ['Освободить узел и удалить данные emptyDir']);
  assert.equal(
    q?.detail,
    'Кластер admin@labs-k8s. Подов, остающихся на узле: 0. План открыт рядом с этим окном.\n' +
      'Данные emptyDir подов default/cache-1 удаляются безвозвратно.\n' +
      'В конце labs-k8s-w02 снова открывается для планирования (uncordon).',
  );
  assert.match(ui.messages('info')[0]!, /^node\/labs-k8s-w02 освобождён: вытеснено подов: 2, оставлено: 0 \(\d+ с\)\. Снова открыт для планирования \(uncordon\)\.$/);
  assert.equal(ui.runs[0]?.name, 'Kubeadm: drain labs-k8s-w02');
  assert.match(ui.runs[0]?.finished?.summary ?? '', /^node\/labs-k8s-w02 освобождён за \d+ с$/);
  assert.ok(ui.transcript.includes('progress: Освобождение узла labs-k8s-w02'), ui.transcript.join('\n'));

  const cordon = new ScriptedUi({ confirm: () => undefined });
  const c = worker();
  assert.equal((await inRussian(() => cordonWorkflow(cordon, { cluster: c, node: 'labs-k8s-w02', cordon: true, context: 'admin@labs-k8s', server: 'https://10.3.60.100:6443', dryRun: 'none' }))).kind, 'not-confirmed');
  assert.equal(cordon.confirms[0]?.message, 'Закрыть узел labs-k8s-w02 для планирования (cordon)?');
  assert.equal(cordon.confirms[0]?.detail, 'Устанавливает spec.unschedulable: новые поды на узел не планируются; работающие там поды остаются. Кластер: admin@labs-k8s (https://10.3.60.100:6443).');
  assert.deepEqual(cordon.confirms[0]?.actions, ['Закрыть для планирования (cordon)']);

  // English, as before
  const en = new ScriptedUi({ confirm: (r) => r.actions[0] });
  await drainWorkflow(en, drainInput(worker()));
  assert.equal(en.confirms[0]?.message, 'Drain labs-k8s-w02: evict 2 pod(s)?');
  assert.match(en.messages('info')[0]!, /^node\/labs-k8s-w02 drained: 2 pod\(s\) evicted, 0 kept \(\d+ s\)\. Uncordoned\.$/);
});

test('the sudo question, a refused schedule, a target that is not a version and the node operations, in Russian', async () => {
  const ui = new ScriptedUi();
  await inRussian(async () => {
    assert.equal(await askSudoPassword(ui, new Map([['labs-k8s-m01', 'kw'], ['labs-k8s-m02', 'kw']])), 'cancelled');
    const noControlPlane = { ...inventory, hosts: inventory.hosts.filter((h) => !h.roles.includes('control-plane')) };
    const refused = await scheduleWorkflow(ui, { inventory: noControlPlane, action: { kind: 'remove' }, run: {} as never });
    assert.equal(refused.kind, 'refused');
    const upgrade = await upgradeWorkflow(ui, { deps: { inventory } as never, loginUser: () => 'root', target: '1.34', hooks: {} as never, run: {} as never });
    assert.equal(upgrade.kind, 'invalid');
    assert.equal(intervalWords(12 * 3600), 'каждые 12 ч');
    assert.equal(nodeOperationTitle({ operation: 'remove', host: 'labs-k8s-w02' }), 'Удаление labs-k8s-w02 из кластера');
    assert.equal(nodeOperationTitle({ operation: 'replace', host: 'labs-k8s-m03', replacement: { name: 'labs-k8s-m04', address: '10.3.60.57' } }), 'Замена labs-k8s-m03 на labs-k8s-m04');
  });
  assert.equal(ui.secrets[0]?.title, 'пароль sudo для kw');
  assert.equal(ui.secrets[0]?.prompt, 'Вход на хосты (2: labs-k8s-m01, labs-k8s-m02) выполняется как kw: каждый шаг идёт через sudo. Оставьте пустым, если sudo там не требует пароля.');
  assert.deepEqual(ui.messages('error'), [
    'Снимки etcd по расписанию для labs-k8s отклонены: в инвентаре нет хоста управляющего слоя (таймеры работают рядом с каждым членом etcd).',
    '«1.34» — не версия Kubernetes (пример: 1.34.12)',
  ]);
  for (const m of ui.messages()) assert.match(m, CYRILLIC, m);

  const en = new ScriptedUi();
  await askSudoPassword(en, new Map([['labs-k8s-m01', 'kw']]));
  assert.equal(en.secrets[0]?.title, 'sudo password for kw');
  assert.equal(en.secrets[0]?.prompt, 'labs-k8s-m01 is reached as kw: every step runs through sudo. Leave empty when sudo needs no password there.');
  assert.equal(intervalWords(1800), 'every 30 min');
  assert.equal(nodeOperationTitle({ operation: 'reset', host: 'labs-k8s-w02' }), 'Reset labs-k8s-w02');
});
