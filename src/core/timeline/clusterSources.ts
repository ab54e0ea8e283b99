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
import { t } from '../l10n';
import { sh, type RemoteCommand } from '../ssh/command';

export interface SourceHost { host: string; sudo: boolean }

export interface TimelineHosts {
  /** The pod's node as an inventory host, when it is one. */
  node?: SourceHost;
  controlPlanes: SourceHost[];
}

const MARK = '--- kubeadm-workbench: cni leases ---';
const prefix = (h: SourceHost): RemoteCommand => (h.sudo ? sh`sudo -n ` : sh``);

/** Each source's name in the display language, with its id. */
const AUDIT = (): Pick<SourceNote, 'source' | 'id'> => ({ source: t('API server audit log'), id: 'audit' });
const JOURNAL = (): Pick<SourceNote, 'source' | 'id'> => ({ source: t('kubelet and containerd journal'), id: 'journal' });
const CNI = (): Pick<SourceNote, 'source' | 'id'> => ({ source: t('CNI lease'), id: 'cni' });

/** The sources the API alone gives: always there. */
export function apiSource(): SourceNote {
  return { source: 'API', id: 'api', state: 'read', text: t('Events (scheduler µs, kubelet s), conditions and container statuses (s), the POST, 201 and watch in this machine\'s clock (ms).') };
}

/** Before the user asks for the machines' logs. */
export function notReadYet(): SourceNote[] {
  return [
    { ...AUDIT(), state: 'missing', text: t('not read yet: "Read machine logs" reads it over SSH from the control-plane nodes (the API server\'s own stages, µs).') },
    { ...JOURNAL(), state: 'missing', text: t('not read yet: "Read machine logs" reads it over SSH from the pod\'s node (sync, sandbox, CNI ADD, pull, create, start, µs).') },
  ];
}

export async function readClusterSources(remote: RemoteExec | undefined, hosts: TimelineHosts | undefined, pod: PodRef & { node?: string }, sinceMs: number): Promise<MoreEvidence> {
  const sources: SourceNote[] = [apiSource()];
  if (!remote || !hosts) {
    const why = t('no SSH: open the cluster\'s inventory.yaml in a trusted workspace so the timeline can read the machines\' logs');
    sources.push({ ...AUDIT(), state: 'missing', text: t('not read ({0}); the API server\'s own stages are left out.', why) });
    sources.push({ ...JOURNAL(), state: 'missing', text: t('not read ({0}); sync, sandbox, CNI ADD, pull, create and start come from Events (second precision).', why) });
    return { sources };
  }
  const evidence: Evidence[] = [];
  const [audit, node] = await Promise.all([readAudit(remote, hosts.controlPlanes, pod), readNode(remote, hosts.node, pod, sinceMs)]);
  evidence.push(...audit.evidence, ...node.evidence);
  sources.push(audit.note, ...node.notes);
  return { evidence, sources };
}

async function readAudit(remote: RemoteExec, cps: SourceHost[], pod: PodRef): Promise<{ evidence: Evidence[]; note: SourceNote }> {
  const source = AUDIT();
  if (!cps.length) return { evidence: [], note: { ...source, state: 'missing', text: t('no control-plane host in inventory.yaml to read it from.') } };
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
    const also = binding && binding.host !== served.host ? t('; {0} served the binding', binding.host) : '';
    return { evidence, note: { ...source, state: 'read', text: t('{0} served the create: its stages in µs{1} ({2} lines).', served.host, also, evidence.length) } };
  }
  if (results.every((r) => r.code === 3)) {
    return { evidence: [], note: { ...source, state: 'missing', text: t('the API servers write no audit log ({0}). Set cluster.apiServerAuditLog: true in inventory.yaml before the bring-up (or generate kubeadm-config.yaml with it): its policy logs pod creates, and the API server\'s stages show here.', AUDIT_LOG_PATH) } };
  }
  const failed = results.filter((r) => r.code !== 0 && r.code !== 1 && r.code !== 3);
  return { evidence: [], note: { ...source, state: 'missing', text: failed.length ? t('not read on {0}.', failed.map((r) => `${r.host} (${firstLine(r.stderr)})`).join(', ')) : t('no line for this pod: the policy does not log pod creates, or the log rotated.') } };
}

async function readNode(remote: RemoteExec, node: SourceHost | undefined, pod: PodRef & { node?: string }, sinceMs: number): Promise<{ evidence: Evidence[]; notes: SourceNote[] }> {
  const source = JOURNAL();
  if (!node) return { evidence: [], notes: [{ ...source, state: 'missing', text: pod.node ? t('{0} is not a host of inventory.yaml: add it to read its journal.', pod.node) : t('the pod has no node yet.') }] };
  let out: { code: number; stdout: string; stderr: string };
  try {
    out = await remote.exec(node.host, sh`${prefix(node)}${journalCommand((sinceMs - 5000) / 1000)}; echo ${MARK}; ${IPAM_LEASES_COMMAND}`.text);
  } catch (e) {
    return { evidence: [], notes: [{ ...source, state: 'missing', text: t('not read on {0}: {1}', node.host, errorMessage(e)) }] };
  }
  const [journalText = '', leases = ''] = out.stdout.split(`${MARK}\n`);
  const journal = parseNodeJournal(journalText, pod);
  const cni = parseIpamLeases(leases, sandboxIdsOf(journal));
  const notes: SourceNote[] = [journal.length
    ? { ...source, state: 'read', text: t('{0}: {1} steps in µs.', node.host, journal.length) }
    : { ...source, state: 'missing', text: t('nothing about this pod on {0}{1}.', node.host, out.stderr ? ` (${firstLine(out.stderr)})` : '') }];
  notes.push(cni.length
    ? { ...CNI(), state: 'read', text: t('the IP\'s host-local lease on {0} dates the CNI ADD.', node.host) }
    : { ...CNI(), state: 'missing', text: t('no host-local IPAM lease of the sandbox on {0}: the CNI ADD is not shown (a CNI plugin with its own IPAM keeps no such file).', node.host) });
  return { evidence: [...journal, ...cni], notes };
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0]?.slice(0, 160) ?? '';
}

