import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configRoot, siblingsOf } from '../../../src/core/lint/siblings';

test('config roots: etc/... belongs to the folder above, per-host folders to their parent', () => {
  const hosts = new Set(['lb1', 'lb2']);
  assert.equal(configRoot('haproxy.cfg'), '');
  assert.equal(configRoot('etc/sysctl.d/99-kubernetes-cri.conf'), '');
  assert.equal(configRoot('generated/etc/containerd/config.toml'), 'generated');
  assert.equal(configRoot('generated/keepalived-lb1.conf'), 'generated');
  assert.equal(configRoot('cluster/lb1/keepalived.conf', hosts), 'cluster');
  assert.equal(configRoot('cluster/hosts/lb2/etc/sysctl.d/x.conf', hosts), 'cluster');
  assert.equal(configRoot('C:\\work\\gen\\haproxy.cfg'), 'C:/work/gen');
  assert.equal(configRoot('/etc/haproxy/haproxy.cfg'), '');
});

test('siblings are the other files of the same config set', () => {
  const files = ['haproxy.cfg', 'keepalived.conf', 'etc/sysctl.d/a.conf', 'generated/haproxy.cfg', 'generated/keepalived.conf', 'lb2/keepalived.conf'].map((path) => ({ path }));
  const hosts = new Set(['lb2']);
  assert.deepEqual(siblingsOf('keepalived.conf', files, hosts).map((f) => f.path), ['haproxy.cfg', 'etc/sysctl.d/a.conf', 'lb2/keepalived.conf']);
  assert.deepEqual(siblingsOf('generated/haproxy.cfg', files, hosts).map((f) => f.path), ['generated/keepalived.conf']);
});
