/**
 * A three-member stacked-etcd cluster as its control-plane hosts answer over SSH: etcdctl's JSON (member
 * list, endpoint status), the backup script's sections, a snapshot-shaped file streamed as raw bytes in uneven
 * chunks, and whatever else a test adds through `extra`. Below the lab test of the same paths.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Inventory } from '../../../src/core/inventory/types';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecOptions, type ExecResult, type SshTransport } from '../../../src/core/ssh/transport';

export const inv: Inventory = {
  cluster: { name: 'labs-k8s', kubernetesVersion: '1.34.12', controlPlaneEndpoint: '10.3.60.100:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'm01', address: '10.3.60.51', roles: ['control-plane'] },
    { name: 'm02', address: '10.3.60.52', roles: ['control-plane'] },
    { name: 'm03', address: '10.3.60.53', roles: ['control-plane'] },
  ],
};
export const IDS = { m01: '10276657743932975437', m02: '9372538179322589801', m03: '17662163412340010451' };
export const memberList = `{"header":{"cluster_id":14841639068965178418,"member_id":${IDS.m01},"raft_term":7},"members":[` +
  Object.entries(IDS).map(([n, id], i) => `{"ID":${id},"name":"${n}","peerURLs":["https://10.3.60.5${i + 1}:2380"],"clientURLs":["https://10.3.60.5${i + 1}:2379"]}`).join(',') + ']}';
export const statusOf = (leader: string, down: string[], VERSION = '3.6.5') => (n: string, i: number) =>
  down.includes(n) ? '' : `{"Endpoint":"https://10.3.60.5${i + 1}:2379","Status":{"header":{"cluster_id":14841639068965178418,"member_id":${IDS[n as keyof typeof IDS]},"revision":4321,"raft_term":7},"version":"${VERSION}","dbSize":2502656,"leader":${IDS[leader as keyof typeof IDS]},"raftIndex":5000,"raftTerm":7,"raftAppliedIndex":5000,"dbSizeInUse":1200128}}`;

/** A file shaped like `etcdctl snapshot save` output: 4 KiB pages, then the SHA-256 of them. */
export function snapshotBytes(pages = 37): Buffer {
  const body = randomBytes(4096 * pages);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

export interface FakeOptions {
  /** Answers other commands (undefined: not mine). */
  extra?: (host: string, text: string) => ExecResult | undefined;
  leader?: string;
  down?: string[];
  /** Members whose etcd does not answer (their host still does). */
  downMembers?: string[];
  corrupt?: boolean;
  etcdutl?: boolean;
  /** etcd 3.5: its server version 3.5.24, and a snapshot status whose storage version is an empty string. */
  etcd35?: boolean;
}

/** The cluster's hosts as seen through SSH: answers by what the command is. */
export class EtcdHosts implements SshTransport {
  readonly log: { host: string; display: string }[] = [];
  readonly snapshot = snapshotBytes();
  constructor(private readonly o: FakeOptions = {}) {}
  async exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    this.log.push({ host, display: command.display });
    const ok = (stdout: string): ExecResult => ({ code: 0, signal: null, stdout, stderr: '' });
    const t = command.text;
    if (this.o.down?.includes(host) && !t.includes('rm -f')) throw new RemoteCommandError(host, command, { code: 255, signal: null, stdout: '', stderr: 'connection refused' });
    // The preflight's login over a transport that cannot connect alone (engine/preflight.ts): the host answers.
    if (t === 'true') return ok('');
    if (t.includes('snapshot save')) {
      const stamp = /kw (\d{8,})/.exec(t)![1];
      const path = `/var/lib/etcd/kw-snapshot-${stamp}.db`;
      const status = this.o.etcdutl === false ? 'none' : `etcdutl in the etcd container\n{"hash":3928411029,"revision":4321,"totalKey":1104,"totalSize":${this.snapshot.length - 32},"version":"${this.o.etcd35 ? '' : '3.6.0'}"}`;
      const sha = createHash('sha256').update(this.snapshot).digest('hex');
      return ok(`\u001ekw-path ${path}\n\u001ekw-status ${status}\n\u001ekw-size ${this.snapshot.length}\n\u001ekw-sha256 ${sha}\n\u001ekw-revision [{"Status":{"header":{"revision":4321}}}]\n`);
    }
    if (t.includes(' member list ')) return ok(memberList);
    if (t.includes(' endpoint status ')) return ok(`[${Object.keys(IDS).map(statusOf(this.o.leader ?? 'm02', [...(this.o.down ?? []), ...(this.o.downMembers ?? [])], this.o.etcd35 ? '3.5.24' : '3.6.5')).filter(Boolean).join(',')}]`);
    if (/(^|')cat -- \/var\/lib\/etcd\/kw-snapshot-\d+\.db'?$/.test(t)) {
      const bytes = Buffer.from(this.snapshot);
      if (this.o.corrupt) bytes[5000] ^= 0xff;
      // raw bytes in uneven chunks, as a channel delivers them, into the caller's stream (waiting when it is full)
      const sink = opts.stdoutTo!;
      for (let i = 0; i < bytes.length; i += 997) {
        if (!sink.write(bytes.subarray(i, i + 997))) await new Promise((r) => sink.once('drain', r));
      }
      return ok('');
    }
    if (t.includes('kw-etcd-ca')) return ok(`\u001ekw-etcd-ca\n${CA}\n\u001ekw-cluster-configuration\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n`);
    if (t.includes('rm -f -- ')) return ok('');
    const other = this.o.extra?.(host, t);
    if (other) return other;
    throw new Error(`unexpected command on ${host}: ${command.display}`);
  }
  async close(): Promise<void> {}
}

