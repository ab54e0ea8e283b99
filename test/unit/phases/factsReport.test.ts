/**
 * Gather Host Facts' report and notification count honestly: hosts not read are named apart with their cause (no
 * "0 host(s) in 6833 ms" over an empty table, no "6 problem(s) — see the Problems panel" while Problems is empty), and
 * "see the Problems panel" is said only of findings that go there. The facts of the host that is read come from the
 * real facts script run on this machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { analyzeFacts, parseFacts } from '../../../src/core/phases/facts';
import { factsSentence, renderFactsReport, type FactsRun } from '../../../src/core/phases/factsReport';
import { FACTS_SCRIPT } from '../../../src/core/phases/factsScript';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { sh } from '../../../src/core/ssh/command';

const inventory = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const hosts = inventory.hosts.map((h) => h.name);
const refused = 'cannot connect to 10.3.60.51:22: connect ECONNREFUSED (after 6 attempts)';

test('no host answered: no table, every host under "Not read" with its cause, and no Problems panel in the sentence', () => {
  const run: FactsRun = { hosts, facts: [], findings: [], notRead: hosts.map((host) => ({ host, cause: refused })), ms: 6833 };
  const report = renderFactsReport(run);
  assert.match(report, /^# Host facts\n\nNo host was read \(6 of 6 not read, 6\.8 s\)\./);
  assert.doesNotMatch(report, /\| host \||0 host\(s\) in/);
  assert.equal(report.match(/^- labs-k8s-\S+: cannot connect/gm)?.length, 6);
  assert.deepEqual(factsSentence(run), { text: `Host facts: 6 of 6 host(s) not read (${refused}).`, problems: false, notRead: true });
});

test('one host read with findings, the others not: the table has that host, the sentence both, in that order', async () => {
  let out = '';
  await new LocalExecutor().exec('local', sh`sh -c ${FACTS_SCRIPT}`, { onStdout: (t) => (out += t) });
  // The same machine read as two hosts: a cloned VM (same machine-id), a finding analyzeFacts makes on the hosts' lines.
  const facts = [parseFacts('labs-k8s-m01', out), parseFacts('labs-k8s-m02', out)];
  const findings = analyzeFacts(inventory, facts);
  const flagged = findings.filter((f) => f.severity !== 'info');
  assert.ok(flagged.some((f) => /machine-id/i.test(f.message)), findings.map((f) => f.message).join('\n'));
  const notRead = hosts.filter((h) => !facts.some((f) => f.host === h)).map((host) => ({ host, cause: 'timed out after 60 s before the command started (waiting for the connection)' }));
  const run: FactsRun = { hosts, facts, findings, notRead, ms: 2400 };
  const report = renderFactsReport(run);
  assert.match(report, /^2 of 6 host\(s\) read in 2\.4 s\./m);
  assert.equal(report.match(/^\| labs-k8s-m0[12] \|/gm)?.length, 2);
  assert.match(report, /## Findings[\s\S]*## Not read[\s\S]*- labs-k8s-w02: timed out/);
  const s = factsSentence(run)!;
  assert.equal(s.text, `Host facts: ${flagged.length} finding(s) on the hosts' lines of inventory.yaml — see the Problems panel; 4 of 6 host(s) not read (timed out after 60 s before the command started (waiting for the connection)).`);
  assert.deepEqual([s.problems, s.notRead], [true, true]);
});

test('every host read, nothing flagged: no notification at all', () => {
  assert.equal(factsSentence({ hosts: ['a'], facts: [], findings: [{ host: 'a', severity: 'info', rule: 'x', message: 'm', why: 'w' }], notRead: [], ms: 1 }), undefined);
});
