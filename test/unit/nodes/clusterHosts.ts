/**
 * The hosts of the example cluster played below SSH, for the node workflow's tests (unit, and the extension-host
 * suite that runs the editor's commands over it): the probes a removal asks first (who answers, etcd's members and
 * health, the API, the Node) answered the way the lab's hosts answer them, and a worker removal's steps played with
 * their effects — a drain, the Node deleted, a host reset — so that each step's check sees what its run did. The
 * real path with SSH, etcd and HAProxy is the lab tier's (test/lab/nodes.test.ts).
 */
import type { Inventory } from '../../../src/core/inventory/types';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import type { HostKeyAcceptance, RefusedHostKey } from '../../../src/core/ssh/hostKeyPolicy';
import { RemoteCommandCancelled, RemoteCommandError, SshConnectError, type ExecOptions, type ExecResult, type SshTransport } from '../../../src/core/ssh/transport';

export interface ClusterState {
  /** Hosts that do not answer over SSH. */
  down: Set<string>;
  /** etcd members that do not answer (their host may still answer SSH). */
  etcdDown: Set<string>;
  /** The cluster's Nodes. */
  nodes: Set<string>;
  /** Hosts reset (kubeadm reset and the clean-up ran there). */
  reset: Set<string>;
  /** A command matching this exits 1 (a step that fails). */
  fail?: RegExp;
  /** A command matching this runs until it is cancelled (a drain that takes long). */
  hang?: RegExp;
  /** A re-imaged host: its key differs from the one on record, refused until the user accepts this fingerprint. */
  changedKey?: { host: string; fingerprint: string };
}

const ok = (stdout = ''): ExecResult => ({ code: 0, signal: null, stdout, stderr: '' });
const exit = (code: number, stderr = ''): ExecResult => ({ code, signal: null, stdout: '', stderr });

export class ClusterHosts implements SshTransport, HostKeyAcceptance {
  private readonly accepted = new Set<string>();
  /** `host: command` of every command asked, in order. */
  readonly log: string[] = [];
  readonly state: ClusterState;

  constructor(
    private readonly inv: Inventory,
    state: Partial<ClusterState> = {},
  ) {
    this.state = {
      down: new Set(), etcdDown: new Set(), reset: new Set(),
      nodes: new Set(inv.hosts.filter((h) => h.roles.includes('control-plane') || h.roles.includes('worker')).map((h) => h.name)),
      ...state,
    };
  }

  /** The hosts the commands went to, without the probes every host gets (`true`, the identity). */
  actedOn(): string[] {
    return this.log.filter((l) => !/: (true|echo "machine-id)/.test(l));
  }

  async close(): Promise<void> {}

  refusedKey(host: string): RefusedHostKey | undefined {
    const k = this.state.changedKey;
    if (k?.host !== host) return undefined;
    return { alias: host, name: this.inv.hosts.find((h) => h.name === host)?.address ?? host, port: 22, status: 'changed', keyType: 'ssh-ed25519', fingerprint: k.fingerprint, file: '/root/.ssh/known_hosts', line: 3 };
  }

  acceptKey(host: string, fingerprint: string): void {
    this.accepted.add(`${host} ${fingerprint}`);
  }

  loginUser(): string {
    return 'root';
  }

  async exec(host: string, cmd: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    const c = this.state;
    const t = cmd.text;
    this.log.push(`${host}: ${t.slice(0, 80)}`);
    if (c.down.has(host)) throw new Error(`${host}: connect ETIMEDOUT`);
    const k = c.changedKey;
    if (k?.host === host && !this.accepted.has(`${host} ${k.fingerprint}`)) {
      throw new SshConnectError(host, `host key CHANGED for ${host} — the server presented ssh-ed25519 ${k.fingerprint}, but /root/.ssh/known_hosts:3 records a different ssh-ed25519 key. Possible man-in-the-middle attack, or the host was reinstalled; connection refused`, 'host-key', 'changed');
    }
    const result = await this.answer(host, cmd, opts);
    if (result.code !== null && !(opts.okCodes ?? [0]).includes(result.code)) throw new RemoteCommandError(host, cmd, result);
    return result;
  }

  private async answer(host: string, cmd: RemoteCommand, opts: ExecOptions): Promise<ExecResult> {
    const c = this.state;
    const t = cmd.text;
    if (c.hang?.test(t)) {
      await new Promise<void>((resolve) => (opts.signal?.aborted ? resolve() : opts.signal?.addEventListener('abort', () => resolve(), { once: true })));
      throw new RemoteCommandCancelled(host, cmd, 'was cancelled');
    }
    if (c.fail?.test(t)) return exit(1, 'played failure');
    const cps = this.inv.hosts.filter((h) => h.roles.includes('control-plane')).map((h) => h.name);
    const address = (h: string) => this.inv.hosts.find((x) => x.name === h)!.address;
    if (t === 'true') return ok();
    if (t.includes('machine-id=')) return ok(`machine-id=${host}-machine\nboot-id=${host}-boot\ninstall-id=\n`);
    if (t.includes('member list')) {
      return ok(JSON.stringify({ header: { cluster_id: 7 }, members: cps.map((h, i) => ({ ID: i + 1, name: h, peerURLs: [`https://${address(h)}:2380`], clientURLs: [`https://${address(h)}:2379`] })) }));
    }
    if (t.includes('endpoint status')) {
      const up = cps.filter((h) => !c.etcdDown.has(h));
      const leader = cps.indexOf(up[0]!) + 1;
      return {
        code: up.length === cps.length ? 0 : 1, signal: null,
        stdout: JSON.stringify(up.map((h) => ({ Endpoint: `https://${address(h)}:2379`, Status: { header: { member_id: cps.indexOf(h) + 1, raft_term: 3 }, leader, raftIndex: 9, raftAppliedIndex: 9, version: '3.6.5', dbSize: 1000 } }))),
        stderr: cps.filter((h) => c.etcdDown.has(h)).map((h) => `Failed to get the status of endpoint https://${address(h)}:2379 (context deadline exceeded)`).join('\n'),
      };
    }
    if (t.includes('/readyz')) return ok();
    const node = /get 'node\/([^']+)'|get node\/(\S+)/.exec(t)?.slice(1).find(Boolean);
    // The preparation's question (it prints what the API answered) and a step's check (the Node is gone).
    if (node && t.includes('answer:')) return ok(`answer:${c.nodes.has(node) ? `node/${node}` : ''}\n`);
    if (node && t.includes('test -z')) return exit(c.nodes.has(node) ? 1 : 0);
    const drained = / drain (\S+) /.exec(t)?.[1];
    if (drained) return c.nodes.has(drained) ? ok(`node/${drained} drained\n`) : exit(1, `Error from server (NotFound): nodes "${drained}" not found`);
    const deleted = /delete '?node\/([^'\s]+)/.exec(t)?.[1];
    if (deleted) {
      c.nodes.delete(deleted);
      return ok(`node "${deleted}" deleted\n`);
    }
    if (t.startsWith('kubeadm reset -f')) {
      c.reset.add(host);
      return ok('[reset] done\n');
    }
    if (t.startsWith('! test -e /etc/kubernetes/kubelet.conf')) return exit(c.reset.has(host) ? 0 : 1);
    if (t.includes('kubeadm-config')) return exit(1, 'not found');
    return exit(1, `unscripted: ${t}`);
  }
}
