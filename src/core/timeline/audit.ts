/**
 * The API server's side of a `kubectl run`, from its audit log (audit.k8s.io/v1 Events, one JSON
 * object a line, µs timestamps): the create's RequestReceived (before authentication, authorization
 * and admission) and ResponseComplete (after the etcd write; its 201), the scheduler's POST binding,
 * and the kubelet's status patches (the seed's step 8). The kubeadm config we generate offers the
 * policy that logs exactly these (generate/auditPolicy.ts). Lines from several control-plane nodes may
 * be concatenated; the node that has the create is the one that served it.
 */
// `t` names a reading's time in this file
import { t as l10n } from '../l10n';
import { sh, type RemoteCommand } from '../ssh/command';
import type { Evidence } from './model';
import { readTime } from './causal';

export const AUDIT_LOG_PATH = '/var/log/kubernetes/audit/audit.log';

/**
 * The remote command (root, on each control-plane node): pod writes in the namespace, newest lines.
 * Not filtered by name: a create's RequestReceived has no name yet (it is in the body), only its auditID.
 */
export function auditCommand(namespace: string): RemoteCommand {
  // grep -F with a fixed string (one shell word through the sh tag); the namespace is a DNS label besides.
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace)) throw new Error(`not a namespace: ${namespace}`);
  return sh`tail -n 50000 ${AUDIT_LOG_PATH} | grep -F ${`"namespace":"${namespace}"`} | grep -F ${'"resource":"pods"'}`;
}

interface AuditEvent {
  auditID?: string;
  stage?: string;
  verb?: string;
  requestURI?: string;
  user?: { username?: string };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  stageTimestamp?: string;
  requestReceivedTimestamp?: string;
  annotations?: Record<string, string>;
}

export function parseAuditLog(text: string, pod: { namespace: string; name: string }, servedBy?: string): Evidence[] {
  const out: Evidence[] = [];
  const seen = new Set<string>();
  const events: AuditEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    try { events.push(JSON.parse(line) as AuditEvent); } catch { continue; }
  }
  // A create is named only once the body is decoded: its RequestReceived is found by its auditID.
  const ours = new Set(events.filter((e) => e.objectRef?.name === pod.name && e.auditID).map((e) => e.auditID));
  for (const ev of events) {
    const ref = ev.objectRef;
    if (ref?.resource !== 'pods' || ref.namespace !== pod.namespace || !(ref.name === pod.name || (!ref.name && ours.has(ev.auditID)))) continue;
    const key = `${ev.auditID}/${ev.stage}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const t = readTime(ev.stageTimestamp);
    if (!t) continue;
    const who = `${ev.user?.username ?? '?'}${ev.userAgent ? ` (${ev.userAgent.split(' ')[0]})` : ''}`;
    const from = servedBy ? ` on ${servedBy}` : '';
    const decision = ev.annotations?.['authorization.k8s.io/decision'];
    // A ResponseComplete is stamped once the answer is written: the etcd write it reports came after the request
    // arrived and before that, and a watch may have delivered it to a client before the stamp.
    const received = ev.stage === 'ResponseComplete' ? readTime(ev.requestReceivedTimestamp) : undefined;
    const earlierBy = received && received.at <= t.at ? { earlierBy: t.at - received.at } : {};
    const base = { lane: 'apiserver' as const, at: t.at, precision: t.precision, source: 'audit' as const, ...earlierBy };
    if (ev.verb === 'create' && !ref.subresource) {
      if (ev.stage === 'RequestReceived') out.push({ ...base, step: 'request-received', label: l10n('POST pods received'), detail: l10n('from {0}; next: authentication, authorization, admission', `${who}${from}`) });
      else if (ev.stage === 'ResponseComplete') {
        const code = ev.responseStatus?.code;
        out.push({ ...base, step: code === 201 ? 'stored' : 'other', label: code === 201 ? l10n('201 sent: admitted, stored in etcd') : l10n('create answered {0}', code ?? '?'), detail: decision ? l10n('authorization: {0}; {1}', decision, `${who}${from}`) : `${who}${from}`, ...(code === 201 ? {} : { warning: true }) });
      }
    } else if (ev.verb === 'create' && ref.subresource === 'binding' && ev.stage === 'ResponseComplete') {
      out.push({ ...base, step: ev.responseStatus?.code === 201 ? 'bound' : 'other', label: l10n('POST binding stored (nodeName set)'), detail: `${who}${from}` });
    } else if ((ev.verb === 'patch' || ev.verb === 'update') && ref.subresource === 'status' && ev.stage === 'ResponseComplete') {
      out.push({ ...base, step: 'other', label: 'PATCH status', detail: `${who}${from}` });
    }
  }
  return out;
}
