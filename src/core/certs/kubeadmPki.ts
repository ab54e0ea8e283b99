/**
 * The certificates kubeadm manages on a node, and the read-only script that fetches them over SSH.
 *
 * The script prints only CERTIFICATE blocks (sed keeps BEGIN…END CERTIFICATE and nothing else) and, from
 * the kubeconfig files, only the `client-certificate(-data)` lines: private keys — the `*.key` files,
 * `client-key-data`, the key half of kubelet-client-current.pem — never leave the host.
 */
import { sh, type RemoteCommand } from '../ssh/command';
import { pemBlocks } from './x509';

export type CertRole = 'ca' | 'serving' | 'client' | 'serving+client';

export interface PkiFile {
  /** Stable id used in reports and JSON (`apiserver`, `etcd/server`, `admin.conf`…). */
  id: string;
  path: string;
  role: CertRole;
  /** Only on control-plane nodes (the kubelet files are on every node). */
  controlPlane: boolean;
  /** What a missing file means: kubeadm always writes it (`required`) or only sometimes. */
  required: boolean;
  /** Which address a serving certificate must cover (`apiserver` also the endpoint; see assess.ts). */
  serves?: 'apiserver' | 'etcd';
  kubeconfig?: boolean;
}

const PKI = '/etc/kubernetes/pki';

export const KUBEADM_FILES: readonly PkiFile[] = [
  { id: 'ca', path: `${PKI}/ca.crt`, role: 'ca', controlPlane: true, required: true },
  { id: 'apiserver', path: `${PKI}/apiserver.crt`, role: 'serving', controlPlane: true, required: true, serves: 'apiserver' },
  { id: 'apiserver-kubelet-client', path: `${PKI}/apiserver-kubelet-client.crt`, role: 'client', controlPlane: true, required: true },
  { id: 'front-proxy-ca', path: `${PKI}/front-proxy-ca.crt`, role: 'ca', controlPlane: true, required: true },
  { id: 'front-proxy-client', path: `${PKI}/front-proxy-client.crt`, role: 'client', controlPlane: true, required: true },
  { id: 'apiserver-etcd-client', path: `${PKI}/apiserver-etcd-client.crt`, role: 'client', controlPlane: true, required: true },
  { id: 'etcd/ca', path: `${PKI}/etcd/ca.crt`, role: 'ca', controlPlane: true, required: true },
  { id: 'etcd/server', path: `${PKI}/etcd/server.crt`, role: 'serving+client', controlPlane: true, required: true, serves: 'etcd' },
  { id: 'etcd/peer', path: `${PKI}/etcd/peer.crt`, role: 'serving+client', controlPlane: true, required: true, serves: 'etcd' },
  { id: 'etcd/healthcheck-client', path: `${PKI}/etcd/healthcheck-client.crt`, role: 'client', controlPlane: true, required: true },
  { id: 'admin.conf', path: '/etc/kubernetes/admin.conf', role: 'client', controlPlane: true, required: true, kubeconfig: true },
  // Written on the node that ran `kubeadm init` only (kubeadm ≥ 1.29).
  { id: 'super-admin.conf', path: '/etc/kubernetes/super-admin.conf', role: 'client', controlPlane: true, required: false, kubeconfig: true },
  { id: 'controller-manager.conf', path: '/etc/kubernetes/controller-manager.conf', role: 'client', controlPlane: true, required: true, kubeconfig: true },
  { id: 'scheduler.conf', path: '/etc/kubernetes/scheduler.conf', role: 'client', controlPlane: true, required: true, kubeconfig: true },
  // The kubelet's client certificate: kubelet.conf points at the rotated file (or embeds one when rotation is off).
  { id: 'kubelet.conf', path: '/etc/kubernetes/kubelet.conf', role: 'client', controlPlane: false, required: false, kubeconfig: true },
  { id: 'kubelet-client', path: '/var/lib/kubelet/pki/kubelet-client-current.pem', role: 'client', controlPlane: false, required: false },
  { id: 'kubelet-serving', path: '/var/lib/kubelet/pki/kubelet.crt', role: 'serving', controlPlane: false, required: false },
  // With serverTLSBootstrap the serving certificate comes from a CSR instead, rotated like the client one.
  { id: 'kubelet-serving-current', path: '/var/lib/kubelet/pki/kubelet-server-current.pem', role: 'serving', controlPlane: false, required: false },
];

export const KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';

/** The files to read on a host with (or without) the control-plane role. */
export function filesFor(controlPlane: boolean): PkiFile[] {
  return KUBEADM_FILES.filter((f) => controlPlane || !f.controlPlane);
}

const MARK = '\u001ekw-';

/**
 * A read-only POSIX sh script (the paths come from the list above, each one word through the sh tag); the caller
 * wraps it in `sh -c` and sudo when needed. `-r` first: a missing file is reported, not an error. `root` prefixes
 * every path (tests read a PKI laid out under a temporary directory).
 */
export function readPkiScript(controlPlane: boolean, root = ''): RemoteCommand {
  const files = filesFor(controlPlane);
  const certs = files.filter((f) => !f.kubeconfig).map((f) => root + f.path);
  const confs = files.filter((f) => f.kubeconfig).map((f) => root + f.path);
  return sh`for f in ${certs}; do
  if [ -r "$f" ]; then printf '\\036kw-file %s\\n' "$f"; sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p' "$f";
  else printf '\\036kw-missing %s\\n' "$f"; fi
done
for f in ${confs}; do
  if [ -r "$f" ]; then printf '\\036kw-file %s\\n' "$f"; grep -E '^[[:space:]]*client-certificate(-data)?:' "$f" || true;
  else printf '\\036kw-missing %s\\n' "$f"; fi
done
printf '\\036kw-kubelet-config\\n'; grep -E '^(rotateCertificates|serverTLSBootstrap):' ${root + KUBELET_CONFIG} 2>/dev/null || true
exit 0`;
}

export interface RawPkiFile {
  path: string;
  present: boolean;
  /** PEM blocks in the file, or (kubeconfig) the decoded client-certificate-data. */
  pems: string[];
  /** kubeconfig only: `client-certificate:` pointing at a file instead of embedding it. */
  certificateFile?: string;
}

export interface RawPki {
  files: Map<string, RawPkiFile>;
  /** From the kubelet's config.yaml; undefined when the file or the key is absent. */
  rotateCertificates?: boolean;
  serverTLSBootstrap?: boolean;
}

/** Parses the script's output (`root`: the prefix given to readPkiScript, taken off again). */
export function parsePkiOutput(stdout: string, root = ''): RawPki {
  const files = new Map<string, RawPkiFile>();
  const out: RawPki = { files };
  let current: RawPkiFile | undefined;
  let body: string[] = [];
  let inKubelet = false;
  const flush = () => {
    if (current) {
      const text = body.join('\n');
      const data = /^\s*client-certificate-data:\s*"?([A-Za-z0-9+/=]+)"?\s*$/m.exec(text);
      const file = /^\s*client-certificate:\s*"?([^"\n]+?)"?\s*$/m.exec(text);
      if (data) current.pems.push(...pemBlocks(Buffer.from(data[1]!, 'base64').toString('utf8')));
      else if (file) current.certificateFile = file[1]!;
      else current.pems.push(...pemBlocks(text));
    }
    current = undefined;
    body = [];
  };
  for (const line of stdout.split('\n')) {
    if (line.startsWith(MARK)) {
      flush();
      inKubelet = false;
      const [tag, ...rest] = line.slice(MARK.length).split(' ');
      const shown = rest.join(' ');
      const path = root && shown.startsWith(root) ? shown.slice(root.length) : shown;
      if (tag === 'file') {
        current = { path, present: true, pems: [] };
        files.set(path, current);
      } else if (tag === 'missing') files.set(path, { path, present: false, pems: [] });
      else if (tag === 'kubelet-config') inKubelet = true;
      continue;
    }
    if (inKubelet) {
      const m = /^(rotateCertificates|serverTLSBootstrap):\s*(true|false)\s*$/.exec(line.trim());
      if (m) out[m[1] as 'rotateCertificates' | 'serverTLSBootstrap'] = m[2] === 'true';
    } else if (current) body.push(line);
  }
  flush();
  return out;
}
