/**
 * The reconfigure as the user meets it, front-end aside (the workflow the editor's "Reconfigure Control Plane…" and
 * the CLI's `reconfigure` run), over the engine's real preparation against hosts that answer as etcd and kubectl do:
 * refused in one message, before anything changes, while an etcd member is down or while another run (an upgrade)
 * holds a control-plane host; --plan shows the plan and asks nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { reconfigureWorkflow, type ReconfigureWorkflowInput } from '../../../src/engine/workflows/reconfigureWorkflow';
import { EtcdHosts, inv } from '../backup/etcdHosts';
import { ScriptedUi } from './scriptedUi';
import { tempDir } from '../../tempDir';

const cluster = `apiServer:
  certSANs:
  - 10.3.60.100
  extraArgs:
  - name: audit-log-maxbackup
    value: "3"
apiVersion: kubeadm.k8s.io/v1beta4
certificatesDir: /etc/kubernetes/pki
clusterName: labs-k8s
controlPlaneEndpoint: 10.3.60.100:6443
controllerManager: {}
kind: ClusterConfiguration
kubernetesVersion: v1.34.12
networking:
  podSubnet: 10.244.0.0/16
scheduler: {}
`;

/** The workspace asks for one more backup of the audit log. */
const WORKSPACE = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.12\napiServer:\n  certSANs: [10.3.60.100]\n  extraArgs:\n  - name: audit-log-maxbackup\n    value: "4"\n';

/** etcd answers from EtcdHosts; the ConfigMaps and each node's files (none: not part of what is judged here) from here. */
function hosts(downMembers: string[] = []): EtcdHosts {
  return new EtcdHosts({
    leader: 'm01',
    ...(downMembers.length ? { downMembers } : {}),
    extra: (_host, text) => {
      if (text.includes('kw-cluster')) return { code: 0, signal: null, stdout: `\u001ekw-cluster\n${cluster}\n\u001ekw-kubelet\n\n\u001ekw-proxy\n`, stderr: '' };
      if (text.includes('cat "$f"; echo')) return { code: 0, signal: null, stdout: '', stderr: '' };
      return undefined;
    },
  });
}

async function input(ssh: EtcdHosts, planOnly = false): Promise<ReconfigureWorkflowInput> {
  const dir = tempDir('kw-reconf-wf-');
  await writeFile(join(dir, 'kubeadm-config.yaml'), WORKSPACE);
  return {
    deps: { inventory: inv, inventoryDir: dir, readFile: (p) => readFile(p, 'utf8'), ssh, readyz: async () => true },
    loginUser: () => 'root', planOnly,
    run: { stateDir: join(dir, '.kubeadm-workbench'), ssh: Object.assign(ssh, { loginUser: () => 'root' }), maxParallelHosts: 1, again: { resume: 'r', startOver: 's' } },
  };
}

/** Nothing but reads went to the hosts: no patch, no kubeadm, no file moved. */
const onlyReads = (ssh: EtcdHosts) => assert.deepEqual(ssh.log.filter((l) => /patch cm|kubeadm (upgrade|init|config)|haproxy|systemctl/.test(l.display)), []);

test('--plan: the ConfigMap, then one node at a time, with the flag named; nothing asked, nothing changed', async () => {
  const ssh = hosts();
  const ui = new ScriptedUi();
  const out = await reconfigureWorkflow(ui, await input(ssh, true));
  assert.equal(out.kind, 'planned', ui.messages().join('\n'));
  const plan = ui.documents.get('reconfigure-plan.txt')!;
  assert.match(plan, /kube-apiserver: --audit-log-maxbackup=4/);
  assert.match(plan, /kubeadm-config ConfigMap[\s\S]*m01[\s\S]*m02[\s\S]*m03/);
  assert.equal(ui.confirms.length + ui.secrets.length, 0);
  onlyReads(ssh);
});

test('an etcd member down: refused in one message naming it, before any question; nothing changed', async () => {
  const ssh = hosts(['m03']);
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await reconfigureWorkflow(ui, await input(ssh));
  assert.equal(out.kind, 'refused');
  assert.match(ui.messages('error')[0]!, /^Reconfigure of the control plane of labs-k8s refused; nothing was done: etcd member m03 is unhealthy \(.*\): every member must be healthy before a control-plane node restarts$/);
  assert.equal(ui.confirms.length, 0);
  onlyReads(ssh);
});

test('another run (an upgrade) holding m02: refused naming the host and the run; nothing changed', async () => {
  const ssh = hosts();
  const wf = await input(ssh);
  await mkdir(wf.run.stateDir, { recursive: true, mode: 0o700 });
  const other = new HostLocks(join(wf.run.stateDir, 'locks'), 'upgrade-20261205');
  await other.acquire('m02');
  try {
    const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
    const out = await reconfigureWorkflow(ui, wf);
    assert.equal(out.kind, 'refused');
    assert.match(ui.messages('error')[0]!, /refused; nothing was done: m02 is being changed by another run \(upgrade-20261205, pid \d+, since .*\); wait for it to end$/);
    assert.equal(ui.confirms.length, 0);
    onlyReads(ssh);
  } finally {
    await other.releaseAll();
  }
});
