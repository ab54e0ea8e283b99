/**
 * The command line under a Russian locale, as a user meets it without a cluster: every verb's line of `--help`, the
 * usages of the day-2 and bring-up verbs with their notes, the usage mistakes, check-inventory, generate's result
 * lines and lint's summary in Russian — the command lines as one types them — and the same runs in English byte for
 * byte what they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mainInLocale } from './inLocale';
import { tempDir } from '../../tempDir';

const INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');
const RU = 'ru_RU.UTF-8';
const CYRILLIC = /[А-Яа-яЁё]/;

/** The verb words of the usages converted here and how each usage starts. */
const USAGES: [string[], string][] = [
  [['facts'], 'facts --inventory FILE'],
  [['plan'], 'plan --inventory FILE'],
  [['up'], 'up --inventory FILE'],
  [['join'], 'join --inventory FILE --host NAME'],
  [['backup'], 'backup --inventory FILE --out DIR'],
  [['backup', 'schedule'], 'backup schedule --inventory FILE'],
  [['certs'], 'certs --inventory FILE'],
  [['certs', 'renew'], 'certs renew --inventory FILE'],
  [['certs', 'fix-kubelet-conf'], 'certs fix-kubelet-conf --inventory FILE --host NAME'],
  [['restore'], 'restore --inventory FILE --from SNAPSHOT'],
  [['upgrade'], 'upgrade --inventory FILE --to VERSION'],
  [['remove'], 'remove --inventory FILE --host NAME'],
  [['replace'], 'replace --inventory FILE --host OLD --with NEW'],
  [['reset'], 'reset --inventory FILE --host NAME'],
  [['reconfigure'], 'reconfigure --inventory FILE'],
  [['drift'], 'drift --inventory FILE'],
];

/** A line a person reads as words: not a command line (`kubeadm-workbench …`, a continuation of flags). */
function prose(line: string): boolean {
  const bare = line.replace(/^(usage:|использование:)/, '').trim();
  return bare !== '' && !bare.startsWith('kubeadm-workbench ') && !bare.startsWith('[');
}

test('--help in Russian: every verb\'s line but the drill\'s (its own file\'s) has its summary in Russian, its command line as typed', async () => {
  const ru = await mainInLocale(RU, ['--help']);
  const en = await mainInLocale(undefined, ['--help']);
  assert.equal(ru.code, 0);
  const ruLines = ru.err.split('\n').filter((l) => l.startsWith('  '));
  const enLines = en.err.split('\n').filter((l) => l.startsWith('  '));
  assert.equal(ruLines.length, enLines.length);
  assert.ok(ruLines.length >= 26, `${ruLines.length} lines:\n${ru.err}`);
  for (const [i, line] of ruLines.entries()) {
    if (line.startsWith('  drill ')) continue;
    assert.match(line, CYRILLIC, line);
    // the command line is the English one's, as typed
    const command = enLines[i]!.slice(0, enLines[i]!.indexOf('   ', 2));
    assert.ok(line.startsWith(command), `${line}\n${command}`);
  }
  assert.match(ru.err, /\n {2}certs --inventory F .* {3}все сертификаты kubeadm по SSH .*; certs renew --inventory F \[--host NAME\]\.\.\. \[--kubeconfig F\] \[--yes\]: по одному узлу/);
  // English as it was
  assert.match(en.err, /\n {2}backup --inventory F --out DIR \[--json\] \| --out DIR --list {3}etcd snapshot from a healthy follower, verified, pulled 0600 with a manifest \(DIR outside any git tree\); backup schedule --inventory F \[--interval 12h\] \[--keep 5\] \| --remove \| --status: a systemd timer on each control-plane node\n/);
  assert.match(en.err, /\n {2}reset --inventory F --host NAME \[--yes\] {3}kubeadm reset and clean-up \(CNI config, iptables, IPVS\) of a host for re-use; refused while it is an etcd member or a Node\n/);
});

test('the usages in Russian: "использование:", the command lines as typed and aligned, the notes in Russian; English unchanged', async () => {
  for (const [words, first] of USAGES) {
    const ru = await mainInLocale(RU, [...words, '--help']);
    const en = await mainInLocale(undefined, [...words, '--help']);
    assert.equal(ru.code, 0, words.join(' '));
    assert.ok(ru.err.startsWith(`использование: kubeadm-workbench ${first}`), ru.err);
    assert.ok(en.err.startsWith(`usage: kubeadm-workbench ${first}`), en.err);
    const ruLines = ru.err.trimEnd().split('\n');
    const enLines = en.err.trimEnd().split('\n');
    assert.equal(ruLines.length, enLines.length, words.join(' '));
    for (const [i, line] of ruLines.entries()) {
      if (prose(line)) assert.match(line, CYRILLIC, `${words.join(' ')}: ${line}`);
      else assert.equal(line.trim().replace(/^использование: /, ''), enLines[i]!.trim().replace(/^usage: /, ''), words.join(' '));
    }
  }
  const upgrade = await mainInLocale(undefined, ['upgrade', '--help']);
  assert.equal(
    upgrade.err,
    'usage: kubeadm-workbench upgrade --inventory FILE --to VERSION --backup-dir DIR [--plan] [--yes] [--fresh] [--max-unavailable N] [--drain-timeout 300s] [--delete-emptydir-data]\n' +
      '                                 [--kubeconfig F] [--context N] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]\n' +
      '  --delete-emptydir-data: the drains evict pods with emptyDir volumes and that data is lost (without it such a pod stops the run at its node\'s drain)\n' +
      '  VERSION: the next minor (1.34.12 from 1.33.x) or a patch of the current one; DIR: where the pre-upgrade etcd snapshot goes (outside any git work tree)\n',
  );
  const backup = await mainInLocale(undefined, ['backup', '--help']);
  assert.equal(
    backup.err,
    'usage: kubeadm-workbench backup --inventory FILE --out DIR [--json]\n' +
      '                                [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]\n' +
      '       kubeadm-workbench backup --out DIR --list [--json]\n',
  );
});

test('usage mistakes that need no cluster, in Russian over the Russian usage; in English the words of before', async () => {
  const dir = tempDir('kw-ru-verbs-');
  const cases: [string[], string, string][] = [
    [['upgrade', '--inventory', INVENTORY], 'нужен --to VERSION (например, --to 1.34.12)', '--to VERSION is required (e.g. --to 1.34.12)'],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34'], '--to 1.34 — не версия Kubernetes (пример: 1.34.12)', '--to 1.34 is not a Kubernetes version (like 1.34.12)'],
    [['backup', '--inventory', INVENTORY], 'нужен флаг --out (папка вне любого рабочего дерева git)', '--out is required (a folder outside any git work tree)'],
    [['backup', 'schedule', '--inventory', INVENTORY, '--keep', '0'], '--keep должен быть целым числом ≥ 1', '--keep must be a whole number ≥ 1'],
    [['restore', '--inventory', INVENTORY], 'нужен --from (snapshot.db, записанный командой `backup`)', '--from is required (a snapshot.db written by `backup`)'],
    [['remove', '--inventory', INVENTORY], 'нужен флаг --host', '--host is required'],
    [['replace', '--inventory', INVENTORY, '--host', 'labs-k8s-w02'], 'нужен --with NEW: хост, который займёт его место', '--with NEW is required: the host that takes its place'],
    [['reset', '--inventory', INVENTORY, '--host', 'labs-k8s-w02', '--force', 'x'], 'у reset нет --force: он отклоняется, пока хост — член etcd или Node', 'reset has no --force: it is refused while the host is a member or a Node'],
    [['certs', '--inventory', INVENTORY, '--host', 'nope'], 'нет в инвентаре: nope', 'not in the inventory: nope'],
    [['certs', 'fix-kubelet-conf', '--inventory', INVENTORY], 'нужен --host NAME: узел, в kubelet.conf которого встроен его сертификат', '--host NAME is required: the node whose kubelet.conf embeds its certificate'],
    [['plan', '--inventory', INVENTORY, '--phases', 'bogus'], 'неизвестный этап bogus; этапы: ', 'unknown phase bogus; phases: '],
    [['plan', '--inventory', INVENTORY, '--format', 'yaml'], '--format — text или json, а не yaml', '--format is text or json, not yaml'],
    [['lint', join(dir, 'nothing-here')], 'нет такого файла или папки: ', 'no such file or directory: '],
    [['lint', '--timeout-ms', '0', 'x'], '--timeout-ms: нужно положительное целое число миллисекунд', '--timeout-ms needs a positive whole number of milliseconds'],
    [['import-ansible', 'a', 'b'], 'import-ansible: только один инвентарь за раз (получены a и b)', 'import-ansible: one inventory at a time (got a and b)'],
    [['import-ansible', '--cni', 'weave', 'a'], 'import-ansible: --cni должен быть одним из: ', 'import-ansible: --cni must be one of '],
  ];
  for (const [argv, russian, english] of cases) {
    const ru = await mainInLocale(RU, argv);
    assert.equal(ru.code, 2, `${argv.join(' ')}: ${ru.err}`);
    assert.ok(ru.err.startsWith(russian), `${argv.join(' ')}:\n${ru.err}`);
    assert.match(ru.err, /\nиспользование: kubeadm-workbench /, argv.join(' '));
    assert.ok(!ru.err.includes(english), `${argv.join(' ')}: English left:\n${ru.err}`);
    const en = await mainInLocale(undefined, argv);
    assert.equal(en.code, 2);
    assert.ok(en.err.startsWith(english), `${argv.join(' ')}:\n${en.err}`);
    assert.match(en.err, /\nusage: kubeadm-workbench /);
  }
});

test('check-inventory, an inventory a verb refuses, generate and lint: their result lines in Russian, in English as before', async () => {
  const dir = tempDir('kw-ru-results-');
  const missing = join(dir, 'missing.yaml');
  const unread = await mainInLocale(RU, ['check-inventory', missing]);
  assert.equal(unread.code, 2);
  assert.ok(unread.err.startsWith(`не удалось прочитать ${missing}: `), unread.err);

  const good = await mainInLocale(RU, ['check-inventory', INVENTORY]);
  assert.equal(good.code, 0, good.err);
  assert.match(good.out, /: хостов: \d+, точка входа 10\.3\.60\.100:6443\n$/);
  const goodEn = await mainInLocale(undefined, ['check-inventory', INVENTORY]);
  assert.match(goodEn.out, /: \d+ hosts, endpoint 10\.3\.60\.100:6443\n$/);

  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'cluster:\n  name: x\nhosts: []\n');
  const refused = await mainInLocale(RU, ['reset', '--inventory', bad, '--host', 'x']);
  assert.equal(refused.code, 2);
  assert.match(refused.err, /: недопустимый инвентарь \(запустите check-inventory\); ничего не сделано\.\n$/);
  const refusedEn = await mainInLocale(undefined, ['reset', '--inventory', bad, '--host', 'x']);
  assert.match(refusedEn.err, /: not a valid inventory \(run check-inventory\); nothing was done\.\n$/);

  // generate: a copy of the example (its VRRP password is kept beside the inventory)
  const inventory = join(dir, 'inventory.yaml');
  writeFileSync(inventory, readFileSync(INVENTORY, 'utf8'));
  const out = join(dir, 'generated');
  const first = await mainInLocale(RU, ['generate', '--inventory', inventory, '--out', out]);
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /^записан {7}\S+keepalived\.conf \(для labs-k8s-balancer\)$/m);
  assert.doesNotMatch(first.out, /wrote|\(for /);
  const again = await mainInLocale(undefined, ['generate', '--inventory', inventory, '--out', out]);
  assert.match(again.out, /^unchanged \S+kubeadm-config\.yaml\n/m);
  writeFileSync(join(out, 'kubeadm-config.yaml'), '# mine\n');
  const kept = await mainInLocale(RU, ['generate', '--inventory', inventory, '--out', out]);
  assert.equal(kept.code, 1);
  assert.match(kept.err, /kubeadm-config\.yaml уже существует и отличается от сгенерированного файла\nничего не записано; укажите --force, чтобы перезаписать\n$/);
  const keptEn = await mainInLocale(undefined, ['generate', '--inventory', inventory, '--out', out]);
  assert.match(keptEn.err, /kubeadm-config\.yaml exists and differs from the generated file\nnothing was written; pass --force to overwrite\n$/);
  const forced = await mainInLocale(undefined, ['generate', '--inventory', inventory, '--out', out, '--force']);
  assert.match(forced.out, /^replaced  \S+kubeadm-config\.yaml\n/m);
  assert.match(forced.out, /^unchanged \S+/m);

  // upgrade refuses before any host is asked when its drains cannot reach the API
  const kubeconfig = join(dir, 'no-kubeconfig');
  const upgrade = ['upgrade', '--inventory', INVENTORY, '--to', '1.34.12', '--backup-dir', join(dir, 'backups'), '--kubeconfig', kubeconfig];
  const upgradeRu = await mainInLocale(RU, upgrade);
  assert.equal(upgradeRu.code, 1);
  assert.match(upgradeRu.err, /^обновление отклонено; ничего не сделано: освобождение узлов \(drain\) идёт через Kubernetes API кластера из инвентаря: .* \(--kubeconfig F, --context N\)\n$/);
  const upgradeEn = await mainInLocale(undefined, upgrade);
  assert.match(upgradeEn.err, /^upgrade refused; nothing was done: the drains go through the Kubernetes API of the inventory's cluster: .* \(--kubeconfig F, --context N\)\n$/);

  const lint = await mainInLocale(RU, ['lint', '--inventory', INVENTORY, join(__dirname, '../../../examples/labs-k8s/haproxy.cfg')]);
  assert.match(lint.err, /проверено файлов: 1; ошибок: \d+, предупреждений: \d+, сведений: \d+\n$/);
  const lintEn = await mainInLocale(undefined, ['lint', '--inventory', INVENTORY, join(__dirname, '../../../examples/labs-k8s/haproxy.cfg')]);
  assert.match(lintEn.err, /^1 file checked: \d+ error\(s\), \d+ warning\(s\), \d+ info\n$/m);
});

test('--json is for scripts: under a Russian locale what it prints stays English (a backup folder with a broken manifest, listed)', async () => {
  const dir = tempDir('kw-json-english-');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(dir, 'b1'));
  writeFileSync(join(dir, 'b1', 'manifest.json'), '{"x":');
  writeFileSync(join(dir, 'b1', 'snapshot.db'), '');
  const human = await mainInLocale(RU, ['backup', '--out', dir, '--list']);
  assert.match(human.err, CYRILLIC, 'without --json the skipped folder is named in Russian');
  const json = await mainInLocale(RU, ['backup', '--out', dir, '--list', '--json']);
  assert.deepEqual(JSON.parse(json.out), []);
  assert.match(json.err, /skipped .*manifest\.json: it is not valid JSON/);
  assert.doesNotMatch(`${json.out}${json.err}`, CYRILLIC);
});
