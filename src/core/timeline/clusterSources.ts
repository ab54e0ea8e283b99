/**
 * Reads the timeline's best sources from the machines themselves, through whatever runs a shell
 * script on a host (SSH in the editor and the CLI): the audit log of each control-plane node (the one
 * holding the create served it), and the kubelet/containerd journal and CNI leases of the pod's node.
 * What cannot be read is said, with how to get it; the timeline then draws from the next best source
 * (events, conditions, watch) — nothing is ever guessed.
 */
import type { RemoteExec } from '../live/etcdSource';
import { AUDIT_LOG_PATH, auditCommand, parseAuditLog } from './audit';
import { IPAM_LEASES_COMMAND, journalCommand, parseIpamLeases, parseNodeJournal, sandboxIdsOf, type PodRef } from './journal';
import type { Evidence, MoreEvidence, SourceNote } from './model';
import { errorMessage } from '../errors';
import { sh, type RemoteCommand } from '../ssh/command';

export interface SourceHost { host: string; sudo: boolean }

export interface TimelineHosts {
  /** The pod's node as an inventory host, when it is one. */
  node?: SourceHost;
  controlPlanes: SourceHost[];
}

const MARK = '--- kubeadm-workbench: cni leases ---';
const prefix = (h: SourceHost): RemoteCommand => (h.sudo ? sh`sudo -n ` : sh``);

/** The sources the API alone gives: always there. */
export const API_SOURCE: SourceNote = { source: 'API', state: 'read', text: 'Events (scheduler µs, kubelet s), conditions and container statuses (s), the POST, 201 and watch in this machine\'s clock (ms).' };

/** Before the user asks for the machines' logs. */
export const NOT_READ_YET: SourceNote[] = [
  { source: 'API server audit log', state: 'missing', text: 'not read yet: "Read machine logs" reads it over SSH from the control-plane nodes (the API server\'s own stages, µs).' },
  { source: 'kubelet and containerd journal', state: 'missing', text: 'not read yet: "Read machine logs" reads it over SSH from the pod\'s node (sync, sandbox, CNI ADD, pull, create, start, µs).' },
];

export async function readClusterSources(remote: RemoteExec | undefined, hosts: TimelineHosts | undefined, pod: PodRef & { node?: string }, sinceMs: number): Promise<MoreEvidence> {
  const sources: SourceNote[] = [API_SOURCE];
  if (!remote || !hosts) {
    const why = 'no SSH: open the cluster\'s inventory.yaml in a trusted workspace so the timeline can read the machines\' logs';
    sources.push({ source: 'API server audit log', state: 'missing', text: `not read (${why}); the API server's own stages are left out.` });
    sources.push({ source: 'kubelet and containerd journal', state: 'missing', text: `not read (${why}); sync, sandbox, CNI ADD, pull, create and start come from Events (second precision).` });
    return { sources };
  }
  const evidence: Evidence[] = [];
  const [audit, node] = await Promise.all([readAudit(remote, hosts.controlPlanes, pod), readNode(remote, hosts.node, pod, sinceMs)]);
  evidence.push(...audit.evidence, ...node.evidence);
  sources.push(audit.note, ...node.notes);
  return { evidence, sources };
}

async function readAudit(remote: RemoteExec, cps: SourceHost[], pod: PodRef): Promise<{ evidence: Evidence[]; note: SourceNote }> {
  const source = 'API server audit log';
  if (!cps.length) return { evidence: [], note: { source, state: 'missing', text: 'no control-plane host in inventory.yaml to read it from.' } };
  const results = await Promise.all(cps.map(async (h) => {
    try {
      const r = await remote.exec(h.host, sh`${prefix(h)}test -r ${AUDIT_LOG_PATH} || { echo 'no audit log' >&2; exit 3; }; ${prefix(h)}sh -c ${auditCommand(pod.namespace).text}`.text);
      return { host: h.host, code: r.code, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      return { host: h.host, code: -1, stdout: '', stderr: errorMessage(e) };
    }
  }));
  // The create went to whichever API server the VIP chose; the binding to the one the scheduler talks to (its own
  // node's): each node's log holds what it served, so the steps are taken from all of them.
  const parsed = results.map((r) => ({ host: r.host, ev: parseAuditLog(r.stdout, pod, r.host) }));
  const served = parsed.find((p) => p.ev.some((e) => e.step === 'request-received' || e.step === 'stored'));
  if (served) {
    const evidence = parsed.flatMap((p) => p.ev);
    const binding = parsed.find((p) => p.ev.some((e) => e.step === 'bound'));
    const also = binding && binding.host !== served.host ? `; ${binding.host} served the binding` : '';
    return { evidence, note: { source, state: 'read', text: `${served.host} served the create: its stages in µs${also} (${evidence.length} lines).` } };
  }
  if (results.every((r) => r.code === 3)) {
    return { evidence: [], note: { source, state: 'missing', text: `the API servers write no audit log (${AUDIT_LOG_PATH}). Set cluster.apiServerAuditLog: true in inventory.yaml before the bring-up (or generate kubeadm-config.yaml with it): its policy logs pod creates, and the API server's stages show here.` } };
  }
  const failed = results.filter((r) => r.code !== 0 && r.code !== 1 && r.code !== 3);
  return { evidence: [], note: { source, state: 'missing', text: failed.length ? `not read on ${failed.map((r) => `${r.host} (${firstLine(r.stderr)})`).join(', ')}.` : 'no line for this pod: the policy does not log pod creates, or the log rotated.' } };
}

async function readNode(remote: RemoteExec, node: SourceHost | undefined, pod: PodRef & { node?: string }, sinceMs: number): Promise<{ evidence: Evidence[]; notes: SourceNote[] }> {
  const source = 'kubelet and containerd journal';
  if (!node) return { evidence: [], notes: [{ source, state: 'missing', text: pod.node ? `${pod.node} is not a host of inventory.yaml: add it to read its journal.` : 'the pod has no node yet.' }] };
  let out: { code: number; stdout: string; stderr: string };
  try {
    out = await remote.exec(node.host, sh`${prefix(node)}${journalCommand((sinceMs - 5000) / 1000)}; echo ${MARK}; ${IPAM_LEASES_COMMAND}`.text);
  } catch (e) {
    return { evidence: [], notes: [{ source, state: 'missing', text: `not read on ${node.host}: ${errorMessage(e)}` }] };
  }
  const [journalText = '', leases = ''] = out.stdout.split(`${MARK}\n`);
  const journal = parseNodeJournal(journalText, pod);
  const cni = parseIpamLeases(leases, sandboxIdsOf(journal));
  const notes: SourceNote[] = [journal.length
    ? { source, state: 'read', text: `${node.host}: ${journal.length} steps in µs.` }
    : { source, state: 'missing', text: `nothing about this pod on ${node.host}${out.stderr ? ` (${firstLine(out.stderr)})` : ''}.` }];
  notes.push(cni.length
    ? { source: 'CNI lease', state: 'read', text: `the IP's host-local lease on ${node.host} dates the CNI ADD.` }
    : { source: 'CNI lease', state: 'missing', text: `no host-local IPAM lease of the sandbox on ${node.host}: the CNI ADD is not shown (a CNI plugin with its own IPAM keeps no such file).` });
  return { evidence: [...journal, ...cni], notes };
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0]?.slice(0, 160) ?? '';
}

