/**
 * Certificate inspection, read-only: every Kubernetes node's PKI over SSH (in parallel), the certificate
 * each API server serves (a TLS handshake with the endpoint and every control-plane node's 6443), and
 * the user's own kubeconfig credentials for this cluster — judged into one CertReport. The CLI's `certs`
 * and the editor's Certificates view both call `inspectCertificates`.
 */
import { readRegularText } from '../adapters/fs/safeFile';

/** A kubeconfig or a certificate file is kilobytes: a larger file (or a FIFO) is refused unread. */
const KUBECONFIG_BYTES = 16 * 1024 * 1024;
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { assessHost, certEntry, DEFAULT_THRESHOLDS, type CertEntry, type CertThresholds, type HostCerts } from '../core/certs/assess';
import { parsePkiOutput, readPkiScript } from '../core/certs/kubeadmPki';
import type { CertReport } from '../core/certs/report';
import { listCsrsCommand, parsePendingCsrs } from '../core/certs/kubelet';
import { assessServed, servedTargets, type ServedProbe } from '../core/certs/served';
import { userCredentials } from '../core/certs/userKubeconfig';
import type { CertFacts } from '../core/certs/x509';
import { asRoot } from '../core/drill/commands';
import type { Inventory } from '../core/inventory/types';
import { kubeconfigPaths } from '../core/live/kubeconfig';
import { sh, type SudoOptions } from '../core/ssh/command';
import type { SshTransport } from '../core/ssh/transport';
import { errorMessage } from '../core/errors';
import { summarizeFailure } from '../core/text/failureSummary';
import { kubernetesHosts } from '../core/inventory/types';

export interface CertsDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  /** A TLS handshake answering the served certificate (src/adapters/tls); absent: no served check. */
  served?: (address: string, port: number) => Promise<CertFacts>;
  /** The kubeconfig setting (colon-separated); empty: KUBECONFIG, else ~/.kube/config. Undefined: skip. */
  kubeconfig?: string;
  thresholds?: CertThresholds;
  now?: () => number;
  signal?: AbortSignal;
  /** Prefix of every remote path: only tests set it (a PKI laid out under a temporary directory). */
  pkiRoot?: string;
  /** Told as each host is read. */
  progress?: (host: string, ok: boolean) => void;
  /** Hosts known unreachable before any read (the preflight's failures): host → cause. Not contacted; "not read". */
  notRead?: ReadonlyMap<string, string>;
}

/** The hosts that carry Kubernetes certificates (balancers carry none). */
export function certificateHosts(inv: Inventory): Inventory['hosts'] {
  return kubernetesHosts(inv);
}

export async function inspectCertificates(deps: CertsDeps, only?: readonly string[]): Promise<CertReport> {
  const now = (deps.now ?? Date.now)();
  const t = deps.thresholds ?? DEFAULT_THRESHOLDS;
  const inv = deps.inventory;
  const targets = certificateHosts(inv).filter((h) => !only?.length || only.includes(h.name));
  const hostsP = Promise.all(
    targets.map(async (h): Promise<HostCerts> => {
      const controlPlane = h.roles.includes('control-plane');
      const known = deps.notRead?.get(h.name);
      if (known !== undefined) return { host: h.name, address: h.address, controlPlane, entries: [], error: known };
      try {
        const cmd = asRoot(sh`sh -c ${readPkiScript(controlPlane, deps.pkiRoot).text}`, deps.become(h.name));
        const r = await deps.ssh.exec(h.name, cmd, { timeoutMs: 30_000, ...(deps.signal ? { signal: deps.signal } : {}) });
        deps.progress?.(h.name, true);
        return assessHost(inv, h, parsePkiOutput(r.stdout, deps.pkiRoot), now, t);
      } catch (e) {
        deps.progress?.(h.name, false);
        const failure = summarizeFailure(e, h.name);
        return { host: h.name, address: h.address, controlPlane, entries: [], error: failure.cause, errorDetail: failure.detail };
      }
    }),
  );
  const probesP = deps.served ? probeServed(inv, deps.served) : Promise.resolve([]);
  const localP = deps.kubeconfig === undefined ? Promise.resolve([]) : localCredentials(inv, deps.kubeconfig, now, t);
  const csrsP = readPendingCsrs(deps, now);
  const [hosts, probes, local, csrs] = await Promise.all([hostsP, probesP, localP, csrsP]);
  const served = assessServed(
    probes.filter((p) => p.target === 'endpoint' || targets.some((h) => h.name === p.target)),
    hosts,
    now,
    t,
  );
  return { cluster: inv.cluster.name, at: new Date(now).toISOString(), thresholds: t, hosts, served, local, ...csrs };
}

/** The CSRs nobody decided yet, through the first control-plane node whose admin.conf answers. */
async function readPendingCsrs(deps: CertsDeps, now: number): Promise<Pick<CertReport, 'csrs' | 'csrsError'>> {
  const errors: string[] = [];
  // A host the preflight failed is not contacted for the CSRs either (its certificates are "not read" already).
  for (const h of deps.inventory.hosts.filter((x) => x.roles.includes('control-plane') && !deps.notRead?.has(x.name))) {
    try {
      const r = await deps.ssh.exec(h.name, asRoot(listCsrsCommand(), deps.become(h.name)), { timeoutMs: 20_000, ...(deps.signal ? { signal: deps.signal } : {}) });
      return { csrs: parsePendingCsrs(r.stdout, now) };
    } catch (e) {
      errors.push(`${h.name}: ${errorMessage(e)}`);
    }
  }
  return errors.length ? { csrsError: errors.join('; ') } : {};
}

async function probeServed(inv: Inventory, served: NonNullable<CertsDeps['served']>): Promise<ServedProbe[]> {
  return Promise.all(
    servedTargets(inv).map(async (t) => {
      try {
        return { ...t, facts: await served(t.address, t.port) };
      } catch (e) {
        return { ...t, error: errorMessage(e) };
      }
    }),
  );
}

/** The client certificates of the kubeconfig contexts that point at this cluster's endpoint. */
async function localCredentials(inv: Inventory, setting: string, now: number, t: CertThresholds): Promise<CertEntry[]> {
  const out: CertEntry[] = [];
  for (const path of kubeconfigPaths(setting, process.env.KUBECONFIG, homedir())) {
    let text: string;
    try {
      text = await readRegularText(path, { maxBytes: KUBECONFIG_BYTES });
    } catch {
      continue; // kubectl skips missing files in the list too
    }
    for (const c of userCredentials(text, inv.cluster.controlPlaneEndpoint)) {
      let pem = c.pem;
      if (!pem && c.certificateFile) {
        try {
          pem = await readRegularText(resolve(dirname(path), c.certificateFile), { maxBytes: KUBECONFIG_BYTES });
        } catch (e) {
          out.push({ host: 'local', id: `context ${c.context}`, path: `${path}#${c.user}`, role: 'client', problems: [{ severity: 'error', message: `cannot read ${c.certificateFile}: ${errorMessage(e)}` }], notes: [] });
          continue;
        }
      }
      const e = certEntry('local', `context ${c.context}`, `${path}#${c.user}`, 'client', pem!, now, t);
      if (e.expiry && e.expiry !== 'ok') e.notes.push('copied from admin.conf: renewing the cluster does not change this copy; refresh it after `certs renew`');
      out.push(e);
    }
  }
  return out;
}
