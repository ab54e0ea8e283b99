/**
 * Certificate renewal as the user meets it, front-end aside: the certificates read and narrated, the quorum guard's
 * refusal in one message, --plan — the one workflow the editor's "Renew Certificates…" and the CLI's `certs renew`
 * run, over the engine's real preparation against hosts that answer as etcd and kubeadm's PKI do (openssl-made).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseCertificate } from '../../../src/core/certs/x509';
import { renewWorkflow, type RenewWorkflowInput } from '../../../src/engine/workflows/renewWorkflow';
import { EtcdHosts, inv } from '../backup/etcdHosts';
import { PkiFixture } from '../certs/pkiFixture';
import { ScriptedUi } from './scriptedUi';
import { tempDir } from '../../tempDir';

const pki = new PkiFixture({ address: '10.3.60.51', endpointHost: '10.3.60.100' });
const ok = (stdout: string) => ({ code: 0, signal: null, stdout, stderr: '' });
const served = parseCertificate(pki.read('/etc/kubernetes/pki/apiserver.crt'));

/** The hosts: etcd from EtcdHosts; the PKI script and `cat` of apiserver.crt/admin.conf from the fixture. */
function hosts() {
  return new EtcdHosts({
    leader: 'm01',
    extra: (_host, text) => {
      if (text.includes('kw-file')) {
        const marked = text.replace(/'\/(etc|var)\//g, `'${pki.root}/$1/`).replace(/ \/(etc|var)\//g, ` ${pki.root}/$1/`);
        return ok(execFileSync('sh', ['-c', marked], { encoding: 'utf8' }).split(pki.root).join(''));
      }
      if (text.includes('cat /etc/kubernetes/pki/apiserver.crt')) return ok(pki.read('/etc/kubernetes/pki/apiserver.crt'));
      return undefined;
    },
  });
}

function input(planOnly = false): RenewWorkflowInput {
  const ssh = hosts();
  return {
    deps: { inventory: inv, ssh, served: async () => served, readyz: async () => true },
    loginUser: () => 'root', hosts: [], planOnly,
    run: { stateDir: join(tempDir('kw-renew-wf-'), 'state'), ssh: Object.assign(ssh, { loginUser: () => 'root' }), maxParallelHosts: 1, again: { resume: 'r', startOver: 's' } },
  };
}

test('--plan: the certificates read and narrated, then the plan one node at a time; nothing asked', async () => {
  const ui = new ScriptedUi();
  const out = await renewWorkflow(ui, input(true));
  assert.equal(out.kind, 'planned');
  assert.deepEqual(ui.transcript, ['progress: Reading the certificates of labs-k8s…', 'show: certs-renew-plan.txt']);
  assert.match(ui.documents.get('certs-renew-plan.txt')!, /m01[\s\S]*m02[\s\S]*m03/);
  assert.equal(ui.confirms.length + ui.secrets.length, 0);
});

test('a host that carries no kubeadm certificates: refused in one message; no plan, no question', async () => {
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await renewWorkflow(ui, { ...input(), hosts: ['m01', 'w09'] });
  assert.equal(out.kind, 'refused');
  assert.equal(ui.messages('error')[0], "Certificate renewal refused; nothing was done: w09 is not a control-plane host of the inventory: only control-plane nodes carry kubeadm's certificates");
  assert.equal(ui.documents.size, 0);
  assert.equal(ui.confirms.length, 0);
});

test('not confirmed: the plan was shown and asked about, nothing ran, no node timed', async () => {
  const ui = new ScriptedUi({ confirm: () => undefined });
  const out = await renewWorkflow(ui, input());
  assert.ok(out.kind === 'not-confirmed' && 'perNode' in out && out.perNode.length === 0, JSON.stringify(out));
  assert.match(ui.confirms[0]!.message, /^Run \d+ steps on 3 hosts of labs-k8s\?$/);
  assert.match(ui.confirms[0]!.detail!, /^Certificate renewal of labs-k8s\./);
});

test('a run that fails after a node\'s server went into HAProxy maintenance says which servers are still out of the VIP, and both ways back', async () => {
  const withLbs = { ...inv, hosts: [...inv.hosts, { name: 'lb1', address: '10.3.60.50', roles: ['loadbalancer' as const] }, { name: 'lb2', address: '10.3.60.56', roles: ['loadbalancer' as const] }] };
  const ran: string[] = [];
  const ssh = new EtcdHosts({
    leader: 'm01',
    extra: (host, text) => {
      if (host.startsWith('lb')) return (ran.push(`${host}: ${/state (maint|ready)/.exec(text)?.[0] ?? 'check'}`), ok(''));
      if (text.includes('kw-file')) {
        const marked = text.replace(/'\/(etc|var)\//g, `'${pki.root}/$1/`).replace(/ \/(etc|var)\//g, ` ${pki.root}/$1/`);
        return ok(execFileSync('sh', ['-c', marked], { encoding: 'utf8' }).split(pki.root).join(''));
      }
      if (text.includes('cat /etc/kubernetes/pki/apiserver.crt')) return ok(pki.read('/etc/kubernetes/pki/apiserver.crt'));
      if (text.includes('kubeadm certs renew all')) return ok('');
      // etcd does not come back on m01: its restart step fails.
      if (text.includes("--name '^etcd$'")) return { code: 1, signal: null, stdout: '', stderr: 'crictl: the runtime does not answer' };
      return undefined;
    },
  });
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await renewWorkflow(ui, {
    deps: { inventory: withLbs, ssh, served: async () => served, readyz: async () => true },
    loginUser: () => 'root', hosts: [], planOnly: false,
    run: { stateDir: join(tempDir('kw-renew-wf-'), 'state'), ssh: Object.assign(ssh, { loginUser: () => 'root' }), maxParallelHosts: 1, again: { resume: 'r', startOver: 's' } },
  });
  assert.ok(out.kind === 'ran' && !out.result.ok, JSON.stringify(out));
  assert.ok(ran.includes('lb1: state maint') && ran.includes('lb2: state maint'), ran.join('\n'));
  assert.ok(!ran.some((r) => r.endsWith('state ready')), 'the run stopped before any ready step');
  const warning = ui.messages('warning').find((m) => m.startsWith('Still in HAProxy maintenance'));
  assert.ok(warning, ui.transcript.join('\n'));
  assert.match(warning, /lb1: \S+; lb2: \S+\./);
  assert.match(warning, /Run the renewal again to resume/);
  assert.match(warning, /echo 'set server kubernetes-master-nodes\/<server> state ready' \| socat stdio unix-connect:\/run\/haproxy\/admin\.sock/);
});
