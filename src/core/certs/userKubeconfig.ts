/**
 * The user's own credentials for this cluster: every context of a kubeconfig whose cluster's server is the
 * inventory's controlPlaneEndpoint, and the client certificate its user carries (embedded, or a file the
 * caller reads). The bring-up merged admin.conf into such a context; it expires with admin.conf's
 * certificate, a year after init, and is the first thing to stop working.
 */
import { parse } from 'yaml';
import { serverMatchesEndpoint } from '../live/kubeconfig';
import { pemBlocks } from './x509';

export interface UserCredential {
  context: string;
  user: string;
  /** The embedded certificate's PEM. */
  pem?: string;
  /** `client-certificate:` pointing at a file (relative paths are relative to the kubeconfig). */
  certificateFile?: string;
}

interface Doc {
  clusters?: { name?: string; cluster?: { server?: string } }[];
  users?: { name?: string; user?: { 'client-certificate-data'?: string; 'client-certificate'?: string } }[];
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
}

/** Credentials of the contexts pointing at `endpoint` (host:port). Token and exec users carry no certificate and are left out. */
export function userCredentials(kubeconfigText: string, endpoint: string): UserCredential[] {
  let doc: Doc;
  try {
    doc = (parse(kubeconfigText) ?? {}) as Doc;
  } catch {
    return [];
  }
  if (typeof doc !== 'object') return [];
  const out: UserCredential[] = [];
  for (const ctx of Array.isArray(doc.contexts) ? doc.contexts : []) {
    const cluster = (doc.clusters ?? []).find((c) => c?.name === ctx?.context?.cluster);
    if (!ctx?.name || !serverMatchesEndpoint(cluster?.cluster?.server, endpoint)) continue;
    const user = (doc.users ?? []).find((u) => u?.name === ctx.context?.user);
    const data = user?.user?.['client-certificate-data'];
    const file = user?.user?.['client-certificate'];
    if (typeof data === 'string') {
      const pem = pemBlocks(Buffer.from(data, 'base64').toString('utf8'))[0];
      if (pem) out.push({ context: ctx.name, user: user!.name ?? '', pem });
    } else if (typeof file === 'string') out.push({ context: ctx.name, user: user!.name ?? '', certificateFile: file });
  }
  return out;
}
