import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintText } from '../../../src/core/lint/registry';

const dir = join(__dirname, '../../../examples/labs-k8s');
const read = (f: string) => ({ path: f, text: readFileSync(join(dir, f), 'utf8') });

test('without an inventory, haproxy.cfg and keepalived.conf are compared with the other config files of the set', () => {
  const haproxy = read('haproxy.cfg');
  const keepalived = read('keepalived.conf');
  const kubeadm = read('kubeadm-config.yaml');
  assert.deepEqual(lintText(haproxy, { siblings: [keepalived, kubeadm] }).filter((f) => f.rule.startsWith('cross-file/')), []);
  const moved = { ...haproxy, text: haproxy.text.replace('bind 10.3.60.100:6443', 'bind 10.3.60.101:6443') };
  const findings = lintText(moved, { siblings: [keepalived, kubeadm] }).filter((f) => f.rule.startsWith('cross-file/'));
  assert.ok(findings.length > 0, 'the HAProxy VIP disagrees with kubeadm and keepalived');
  const line = moved.text.split('\n')[findings[0]!.range.start.line]!;
  assert.match(line, /bind 10\.3\.60\.101:6443/);
  const vip = { ...keepalived, text: keepalived.text.replace('10.3.60.100/24', '10.3.60.99/24') };
  assert.ok(lintText(vip, { siblings: [haproxy, kubeadm] }).some((f) => f.rule === 'cross-file/vip'));
});
