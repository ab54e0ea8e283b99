/**
 * kubeadm/audit-log-dropped: the inventory turns the API server audit log on, and a ClusterConfiguration of the
 * user's (the kubeadmExtraConfig, which replaces the generated one whole, or a kubeadm file of the workspace) has
 * apiServer extraArgs/extraVolumes without the audit flags or their mounts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKubeadmConfig } from '../../../src/core/generate/kubeadm';
import { lintKubeadm } from '../../../src/core/kubeadm/lint';
import { lintText } from '../../../src/core/lint/registry';
import type { Inventory } from '../../../src/core/inventory/types';
import { applyEdits, exampleInventory } from './helpers';

const base = exampleInventory();
const audited: Inventory = { ...base, cluster: { ...base.cluster, apiServerAuditLog: true, kubeadmExtraConfig: 'kubeadm-extra.yaml' } };
const version = `v${base.cluster.kubernetesVersion.replace(/^v/, '')}`;

/** The lab's kind of extra config: its own ClusterConfiguration, with API server flags of its own. */
const extraV4 = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: ${version}
controlPlaneEndpoint: ${base.cluster.controlPlaneEndpoint}
apiServer:
  certSANs: [${base.cluster.controlPlaneEndpoint.split(':')[0]}]
  extraArgs:
    - name: max-requests-inflight
      value: "800"
  extraVolumes:
    - name: extra
      hostPath: /srv/extra
      mountPath: /srv/extra
      readOnly: true
`;

const audit = (text: string, path = 'kubeadm-extra.yaml', inv: Inventory = audited) => lintKubeadm({ path, text }, { inventory: inv }).filter((f) => f.rule === 'kubeadm/audit-log-dropped');

describe('kubeadm/audit-log-dropped', () => {
  it('the generated config with the audit log is clean; the same file without it is flagged once the inventory asks for it', () => {
    assert.deepEqual(audit(generateKubeadmConfig(audited, { auditLog: true }), 'kubeadm-config.yaml'), []);
    const without = generateKubeadmConfig(audited);
    const [f] = audit(without, 'kubeadm-config.yaml');
    assert.equal(f?.severity, 'warning');
    assert.match(f!.message, /no --audit-policy-file, no --audit-log-path, no mount of \/etc\/kubernetes\/audit, no mount of \/var\/log\/kubernetes\/audit/);
    // Not asked for: nothing to say.
    assert.deepEqual(audit(without, 'kubeadm-config.yaml', { ...audited, cluster: { ...audited.cluster, apiServerAuditLog: false } }), []);
  });

  it('a kubeadmExtraConfig whose apiServer has flags and mounts of its own: flagged at apiServer, saying it replaces the generated one; the fix adds both flags and both mounts', () => {
    const [f] = audit(extraV4);
    assert.ok(f, 'flagged');
    assert.equal(f.range.start.line, extraV4.split('\n').indexOf('apiServer:'));
    assert.match(f.message, /kubeadmExtraConfig: its ClusterConfiguration replaces the generated one/);
    assert.match(f.message, /write no audit log the kubectl run timeline can read/);
    const fixed = applyEdits(extraV4, f.fixes![0]!.edits);
    assert.deepEqual(audit(fixed), [], fixed);
    assert.match(fixed, /- name: max-requests-inflight\n {6}value: "800"\n {4}- name: audit-policy-file\n {6}value: \/etc\/kubernetes\/audit\/policy\.yaml\n/);
    // The whole file still lints clean of structural findings (the inserted YAML decodes).
    assert.deepEqual(lintKubeadm({ path: 'kubeadm-extra.yaml', text: fixed }, { inventory: audited }).filter((x) => x.rule.startsWith('kubeadm/unknown') || x.rule === 'kubeadm/yaml-syntax' || x.rule === 'kubeadm/type'), []);
  });

  it('the policy flag without a mount of its folder is an error: kube-apiserver cannot open the policy', () => {
    const text = extraV4.replace('    - name: max-requests-inflight\n      value: "800"\n', '    - name: audit-policy-file\n      value: /etc/kubernetes/audit/policy.yaml\n    - name: audit-log-path\n      value: /var/log/kubernetes/audit/audit.log\n');
    const [f] = audit(text);
    assert.equal(f?.severity, 'error');
    assert.match(f!.message, /apiServer has no mount of \/etc\/kubernetes\/audit, no mount of \/var\/log\/kubernetes\/audit\..*cannot open the policy/);
    // A mount of the folder under another name, or of a parent, counts.
    const mountedParent = text.replace('      hostPath: /srv/extra\n      mountPath: /srv/extra\n', '      hostPath: /etc/kubernetes/audit\n      mountPath: /etc/kubernetes/audit\n    - name: logs\n      hostPath: /var/log/kubernetes\n      mountPath: /var/log/kubernetes\n');
    assert.deepEqual(audit(mountedParent), []);
    // A log path elsewhere than where the timeline reads: said, and no blind fix.
    const elsewhere = audit(mountedParent.replace('/var/log/kubernetes/audit/audit.log', '/var/log/kubernetes/api.log'));
    assert.match(elsewhere[0]!.message, /--audit-log-path \/var\/log\/kubernetes\/api\.log instead of \/var\/log\/kubernetes\/audit\/audit\.log/);
    assert.equal(elsewhere[0]!.fixes, undefined);
  });

  it('v1beta3 (extraArgs a map) and a ClusterConfiguration without apiServer: the fix writes each in its own shape', () => {
    const v3 = `apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: ${version}\napiServer:\n  extraArgs:\n    max-requests-inflight: "800"\n`;
    const [f3] = audit(v3);
    const fixed3 = applyEdits(v3, f3!.fixes![0]!.edits);
    assert.match(fixed3, /\n {4}max-requests-inflight: "800"\n {4}audit-policy-file: \/etc\/kubernetes\/audit\/policy\.yaml\n {4}audit-log-path: \/var\/log\/kubernetes\/audit\/audit\.log\n {2}extraVolumes:\n {4}- name: audit-policy\n/);
    assert.deepEqual(audit(fixed3), [], fixed3);
    const bare = `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: ${version}\n`;
    const [fb] = audit(bare);
    assert.equal(fb!.range.start.line, 1, 'on the kind line');
    assert.deepEqual(audit(applyEdits(bare, fb!.fixes![0]!.edits)), []);
  });

  it('through the registry, as the editor and the lint CLI run it', () => {
    assert.ok(lintText({ path: 'kubeadm-extra.yaml', text: extraV4 }, { inventory: audited }).some((f) => f.rule === 'kubeadm/audit-log-dropped'));
  });
});
