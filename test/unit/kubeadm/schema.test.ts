import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { SchemaSet, KUBEADM_V1BETA3, KUBEADM_V1BETA4, KUBELET_API, didYouMean } from '../../../src/core/kubeadm/schema';
import { EXAMPLE, ROOT } from './helpers';
import { tempDir } from '../../tempDir';

const schema = (v: string) => JSON.parse(readFileSync(join(ROOT, 'schemas', `kubeadm-${v}.schema.json`), 'utf8'));

describe('kubeadm schemas (generated from the upstream Go types)', () => {
  it('have the kinds of each API version', () => {
    assert.deepEqual(SchemaSet.for(KUBEADM_V1BETA4).kindsOf(KUBEADM_V1BETA4), ['InitConfiguration', 'ClusterConfiguration', 'JoinConfiguration', 'ResetConfiguration', 'UpgradeConfiguration']);
    assert.deepEqual(SchemaSet.for(KUBEADM_V1BETA3).kindsOf(KUBEADM_V1BETA3), ['InitConfiguration', 'ClusterConfiguration', 'JoinConfiguration']);
    assert.ok(SchemaSet.for(KUBEADM_V1BETA3).kind(KUBELET_API, 'KubeletConfiguration')?.properties?.cgroupDriver);
  });

  it('carry the v1beta3 → v1beta4 differences', () => {
    const v3 = schema('v1beta3');
    const v4 = schema('v1beta4');
    assert.equal(v3.definitions.ControlPlaneComponent.properties.extraArgs.type, 'object');
    assert.equal(v4.definitions.ControlPlaneComponent.properties.extraArgs.type, 'array');
    assert.ok(v3.definitions.APIServer.properties.timeoutForControlPlane);
    assert.ok(!v4.definitions.APIServer.properties.timeoutForControlPlane);
    assert.ok(v4.definitions.Timeouts.properties.controlPlaneComponentHealthCheck);
    assert.deepEqual(v4.definitions.EncryptionAlgorithmType.enum, ['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096']);
    assert.equal(v4.definitions.BootstrapTokenString.pattern, '^[a-z0-9]{6}\\.[a-z0-9]{16}$');
    assert.match(v4.definitions.ClusterConfiguration.properties.controlPlaneEndpoint.description, /stable IP address or DNS name/);
  });

  it('did-you-mean', () => {
    assert.equal(didYouMean('clustrName', ['clusterName', 'networking']), 'clusterName');
    assert.equal(didYouMean('certsans', ['certSANs']), 'certSANs');
    assert.equal(didYouMean('zzz', ['clusterName']), undefined);
  });

  it('validate the example with a JSON Schema validator (what the YAML extension does)', (t) => {
    let Ajv: new (o: object) => { addSchema(s: object): void; compile(s: object): ((d: unknown) => boolean) & { errors?: unknown[] } };
    try {
      Ajv = createRequire(__filename)('ajv');
    } catch {
      t.skip('ajv is not installed (it comes with eslint); schema validation not exercised');
      return;
    }
    const ajv = new Ajv({ allErrors: true, schemaId: 'auto' });
    ajv.addSchema(schema('v1beta3'));
    ajv.addSchema(schema('v1beta4'));
    const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'kubeadm-any.schema.json'), 'utf8')));
    for (const d of parseAllDocuments(readFileSync(join(EXAMPLE, 'kubeadm-config.yaml'), 'utf8'))) assert.ok(validate(d.toJS()), JSON.stringify(validate.errors));
    assert.equal(validate({ apiVersion: KUBEADM_V1BETA3, kind: 'ClusterConfiguration', clustrName: 'x' }), false);
    assert.equal(validate({ apiVersion: KUBEADM_V1BETA4, kind: 'ClusterConfiguration', apiServer: { extraArgs: { a: 'b' } } }), false);
    assert.equal(validate({ apiVersion: KUBEADM_V1BETA4, kind: 'ClusterConfiguration', apiServer: { extraArgs: [{ name: 'a', value: 'b' }] } }), true);
  });

  it('the generator reproduces the committed schemas from the Go sources', (t) => {
    const mod = process.env.GOMODCACHE ?? join(process.env.HOME ?? '/root', 'go', 'pkg', 'mod');
    const k8s = join(mod, 'k8s.io', 'kubernetes@v1.34.12', 'cmd', 'kubeadm', 'app', 'apis');
    const kubelet = join(mod, 'k8s.io', 'kubelet@v0.34.12', 'config', 'v1beta1', 'types.go');
    const proxy = join(mod, 'k8s.io', 'kube-proxy@v0.34.12', 'config', 'v1alpha1', 'types.go');
    if (!existsSync(k8s) || !existsSync(kubelet)) {
      t.skip(`upstream Go sources not in ${mod} (a lab build puts them there); generator not re-run`);
      return;
    }
    const dir = tempDir('kw-schema-');
    try {
      for (const v of ['v1beta3', 'v1beta4']) {
        const out = join(dir, `${v}.json`);
        const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'gen-kubeadm-schema.ts'), '-o', out,
          `kubeadm.k8s.io/${v}=${join(k8s, 'kubeadm', v, 'types.go')}`, `kubelet.config.k8s.io/v1beta1=${kubelet}#KubeletConfiguration`,
          `kubeproxy.config.k8s.io/v1alpha1=${proxy}#KubeProxyConfiguration`, `+${join(k8s, 'bootstraptoken', 'v1', 'types.go')}`], { encoding: 'utf8', cwd: ROOT });
        assert.equal(r.status, 0, r.stderr);
        assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), schema(v), v);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
