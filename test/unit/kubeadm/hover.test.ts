import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fieldInfoAt } from '../../../src/core/kubeadm/hover';
import { EXAMPLE } from './helpers';

const example = readFileSync(join(EXAMPLE, 'kubeadm-config.yaml'), 'utf8');

describe('fieldInfoAt', () => {
  it('describes the key under the cursor from the upstream doc comments', () => {
    const at = example.indexOf('controlPlaneEndpoint') + 3;
    const info = fieldInfoAt(example, at)!;
    assert.equal(info.path, 'ClusterConfiguration.controlPlaneEndpoint');
    assert.match(info.description!, /stable IP address or DNS name/);
    assert.equal(info.type, 'string');
    assert.ok(info.siblings.includes('networking'));
  });

  it('follows nested maps and lists', () => {
    const info = fieldInfoAt(example, example.indexOf('- labs-k8s-m02') + 4)!;
    assert.equal(info.path, 'ClusterConfiguration.apiServer.certSANs');
    const kubelet = fieldInfoAt(example, example.indexOf('cgroupDriver') + 1)!;
    assert.equal(kubelet.path, 'KubeletConfiguration.cgroupDriver');
    assert.match(kubelet.description!, /cgroup/i);
  });

  it('nothing outside a known document', () => {
    assert.equal(fieldInfoAt('foo: bar\n', 1), undefined);
  });
});
