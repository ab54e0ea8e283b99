/**
 * The verbs declared with defineVerb in this round (drain, cordon, uncordon, status, timeline, ssh-check, preflight,
 * generate, import-ansible, check-inventory, lint): `--help` answers with the usage and exit 0; a usage mistake names
 * itself over the usage with exit 2 and nothing on stdout; a failure the handler throws is one line under the verb's
 * name, never a stack; and under a Russian locale the usages, their mistakes and the verbs' lines of
 * `kubeadm-workbench --help` are Russian, the command lines as one types them and the lines under the first still
 * aligned with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mainInLocale } from './inLocale';
import { tempDir } from '../../tempDir';

const INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');

const run = (argv: string[], lang?: string) => mainInLocale(lang, argv);

/** Each verb and the first line of its usage. */
const VERBS: [string, string][] = [
  ['drain', 'usage: kubeadm-workbench drain NODE [--kubeconfig F]'],
  ['cordon', 'usage: kubeadm-workbench cordon NODE [--kubeconfig F]'],
  ['uncordon', 'usage: kubeadm-workbench uncordon NODE [--kubeconfig F]'],
  ['status', 'usage: kubeadm-workbench status --inventory FILE'],
  ['timeline', 'usage: kubeadm-workbench timeline --inventory FILE'],
  ['ssh-check', 'usage: kubeadm-workbench ssh-check|preflight --inventory FILE'],
  ['preflight', 'usage: kubeadm-workbench ssh-check|preflight --inventory FILE'],
  ['generate', 'usage: kubeadm-workbench generate [--inventory FILE]'],
  ['import-ansible', 'usage: kubeadm-workbench import-ansible FILE'],
  ['check-inventory', 'usage: kubeadm-workbench check-inventory FILE'],
  ['lint', 'usage: kubeadm-workbench lint [--inventory FILE]'],
];

test('--help: the usage and exit 0, nothing else (import-ansible on stdout, as it always printed it)', async () => {
  for (const [verb, first] of VERBS) {
    const r = await run([verb, '--help']);
    assert.equal(r.code, 0, verb);
    const [shown, other] = verb === 'import-ansible' ? [r.out, r.err] : [r.err, r.out];
    assert.ok(shown.startsWith(`${first}`), `${verb}: ${shown}`);
    assert.equal(other, '', verb);
  }
});

test('usage mistakes: the mistake, then the usage; exit 2 and nothing on stdout', async () => {
  const cases: [string[], string][] = [
    [['drain'], 'drain needs exactly one NODE'],
    [['drain', 'w01', '--then', 'true'], "--then runs the command on the node's inventory host over SSH: give --inventory"],
    [['drain', 'w01', '--timeout', 'soon'], '--timeout: "soon" is not a duration (e.g. 300s, 5m, 1h)'],
    [['cordon', 'a', 'b'], 'cordon needs exactly one NODE'],
    [['uncordon', 'w01', '--dry-run=later'], '--dry-run must be none, client or server (got "later")'],
    [['status', '--inventory', INVENTORY, '--frobnicate'], 'unknown argument --frobnicate'],
    [['status', '--warning-days', '5', '--error-days', '9'], '--error-days must not exceed --warning-days'],
    [['timeline', '--inventory', INVENTORY, '--name', 'UPPER'], '--name: "UPPER" is not a DNS label (lowercase letters, digits and -)'],
    [['ssh-check', '--kubeconfig', 'k'], '--kubeconfig goes with --cluster'],
    [['preflight', '--inventory', INVENTORY, '--max-parallel', '0'], '--max-parallel must be 1..64'],
    [['generate', '--containerd-version', 'latest'], '--containerd-version must look like 1.7 or 2.0 (got latest)'],
    [['import-ansible', 'a', 'b'], 'import-ansible: one inventory at a time (got a and b)'],
    [['check-inventory', 'a', '--strict'], 'unknown option --strict'],
    [['lint', '--format', 'yaml', 'x'], '--format must be text, json or sarif (got yaml)'],
  ];
  for (const [argv, message] of cases) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(' '));
    const first = VERBS.find(([v]) => v === argv[0])![1];
    assert.ok(r.err.startsWith(`${message}\n${first}`), `${argv.join(' ')}:\n${r.err}`);
    assert.equal(r.out, '', argv.join(' '));
  }
  // a missing FILE or --inventory: the usage alone, as before
  for (const argv of [['check-inventory'], ['status']]) {
    const r = await run(argv);
    assert.equal(r.code, 2);
    assert.ok(r.err.startsWith(VERBS.find(([v]) => v === argv[0])![1]), r.err);
  }
});

test("a failure the handler throws: one line under the verb's name, exit 1, no stack", async () => {
  const missing = join(tempDir('kw-verb-usage-'), 'no-kubeconfig');
  for (const verb of ['drain', 'cordon', 'uncordon']) {
    const r = await run([verb, 'w01', '--kubeconfig', missing, '--yes']);
    assert.equal(r.code, 1, verb);
    assert.match(r.err, new RegExp(`^kubeadm-workbench ${verb}: cannot connect to the cluster: kubeconfig problem \\(.*no-kubeconfig\\): no kubeconfig file found`), r.err);
    assert.equal(r.err.split('\n').length, 2, `one line: ${r.err}`);
    assert.equal(r.out, '');
  }
});

test('under a Russian LANG: the usages and the verbs\' lines of --help in Russian; command lines as typed, aligned', async () => {
  const english = await run(['status', '--help']);
  const russian = await run(['status', '--help'], 'ru_RU.UTF-8');
  const [en1, en2, en3] = english.err.split('\n');
  const [ru1, ru2, ru3] = russian.err.split('\n');
  assert.equal(ru1, en1!.replace(/^usage:/, 'использование:'));
  // the second line's flags start under the first line's, whatever the width of "usage:"
  assert.equal(ru2!.indexOf('[--ssh'), en2!.indexOf('[--ssh') + 'использование:'.length - 'usage:'.length);
  assert.equal(ru2!.trim(), en2!.trim());
  assert.match(en3!, /^ {2}--ssh: etcd over SSH when the API cannot/);
  assert.match(ru3!, /^ {2}--ssh: etcd по SSH, когда API не отвечает/);
  for (const [verb] of VERBS) {
    const r = await run([verb, '--help'], 'ru_RU.UTF-8');
    assert.match(verb === 'import-ansible' ? r.out : r.err, new RegExp(`^использование: kubeadm-workbench ${verb === 'preflight' ? 'ssh-check' : verb}`), verb);
  }
  // the mistakes too, over the Russian usage (English above, byte for byte)
  const mistakes: [string[], string][] = [
    [['drain'], 'drain: нужен ровно один NODE'],
    [['cordon', 'w01', '--bogus'], 'неизвестный флаг --bogus'],
    [['status', '--inventory', INVENTORY, 'extra'], 'неизвестный аргумент extra'],
    [['ssh-check', '--inventory', INVENTORY, '--timeout', '0'], '--timeout должен быть положительным числом секунд'],
    [['timeline', '--inventory', INVENTORY, '--name', 'UPPER'], '--name: «UPPER» — не метка DNS (строчные буквы, цифры и -)'],
  ];
  for (const [argv, message] of mistakes) {
    const r = await run(argv, 'ru_RU.UTF-8');
    assert.equal(r.code, 2, argv.join(' '));
    assert.ok(r.err.startsWith(`${message}\nиспользование: kubeadm-workbench ${argv[0]}`), r.err);
  }
  const timeline = await run(['timeline', '--help'], 'ru_RU.UTF-8');
  assert.match(timeline.err, /\n {2}создаёт тестовый под .*\n {2}с источником и длительностью и удаляет под/);
  const list = await run(['--help'], 'ru_RU.UTF-8');
  for (const line of [
    /\n {2}check-inventory FILE {12}проверить inventory\.yaml\n/,
    /\n {2}lint \[--inventory F\] .* PATH\.\.\. {3}проверить файлы конфигурации по правилам и по инвентарю\n/,
    /\n {2}drain NODE .* \[--yes\] {3}kubectl drain: сначала план, конечный тайм-аут и защита управляющего слоя\n/,
    /\n {2}status --inventory F .* {3}текущее состояние кластера; код выхода 1, если кластер деградировал\n/,
    /\n {2}preflight \.\.\. {20}то же, что ssh-check\n/,
  ]) assert.match(list.err, line);
  // English without a Russian locale: the lines of before
  const en = await run(['--help']);
  assert.match(en.err, /\n {2}check-inventory FILE {12}validate an inventory\.yaml\n/);
  assert.match(en.err, /\n {2}status --inventory F \[--kubeconfig F\] \[--context N\] \[--json\] {3}live cluster state; exit 1 when degraded\n/);
});
