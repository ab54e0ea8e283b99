/**
 * The command line's usage follows the locale for the etcd verb family: `kubeadm-workbench --help` and `etcd`'s own
 * usage and usage mistakes are in Russian under a Russian LANG — the command lines one types stay as written and
 * the lines under the first stay aligned with it — and byte for byte the English of before without one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mainInLocale } from './inLocale';

const inLocale = mainInLocale;

const ENGLISH_USAGE =
  'usage: kubeadm-workbench etcd status --inventory FILE [--json]\n' +
  '       kubeadm-workbench etcd defrag --inventory FILE [--plan] [--yes] [--fresh] [--json]\n' +
  '       kubeadm-workbench etcd alarms --inventory FILE [--disarm [--plan] [--yes] [--fresh]] [--json]\n' +
  '       common: [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]\n';

test('etcd usage in English is the text of before; etcd --help prints it and exits 0', async () => {
  const missing = await inLocale(undefined, ['etcd']);
  assert.equal(missing.code, 2);
  assert.equal(missing.err, `etcd needs a subcommand\n${ENGLISH_USAGE}`);
  const help = await inLocale('C', ['etcd', '--help']);
  assert.deepEqual(help, { code: 0, err: ENGLISH_USAGE, out: '' });
});

test('under a Russian LANG: the etcd usage, its mistakes and its line of --help in Russian, command lines unchanged', async () => {
  const missing = await inLocale('ru_RU.UTF-8', ['etcd']);
  assert.equal(missing.code, 2);
  const [first, ...lines] = missing.err.split('\n');
  assert.equal(first, 'для etcd нужна подкоманда');
  assert.equal(lines[0], 'использование: kubeadm-workbench etcd status --inventory FILE [--json]');
  const indent = ' '.repeat('использование: '.length);
  assert.equal(lines[1], `${indent}kubeadm-workbench etcd defrag --inventory FILE [--plan] [--yes] [--fresh] [--json]`);
  assert.equal(lines[3], `${indent}общие флаги: [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]`);

  const unknown = await inLocale('ru_RU.UTF-8', ['etcd', 'compact']);
  assert.match(unknown.err, /^неизвестная подкоманда etcd «compact»\n/);
  const disarm = await inLocale('ru_RU.UTF-8', ['etcd', 'defrag', '--inventory', 'x.yaml', '--disarm']);
  assert.match(disarm.err, /^--disarm относится к `etcd alarms`\n/);

  const help = await inLocale('ru_RU.UTF-8', ['--help']);
  assert.equal(help.code, 0);
  assert.match(help.err, /^использование: kubeadm-workbench <verb> \[args\]\n\nкоманды:\n/);
  assert.match(help.err, /\n {2}etcd status\|defrag\|alarms \[--disarm\] --inventory F \[--plan\] \[--yes\] \[--json\] {3}обслуживание etcd: размер БД каждого участника/);
  // the other verbs' lines too, their command lines as typed
  assert.match(help.err, /\n {2}drift --inventory F \[--json\] {3}конфигурация с трёх сторон/);
  const english = await inLocale(undefined, ['--help']);
  assert.match(english.err, /^usage: kubeadm-workbench <verb> \[args\]\n\nverbs:\n/);
  assert.match(english.err, /\n {2}etcd status\|defrag\|alarms \[--disarm\] --inventory F \[--plan\] \[--yes\] \[--json\] {3}etcd maintenance: every member's DB size/);
});
