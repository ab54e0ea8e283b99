/**
 * A kubeadm-shaped PKI made by the real openssl under a temporary root: the three CAs, every leaf with its
 * issuer and SANs, kubeconfigs embedding a client certificate and key, the kubelet's rotated
 * cert+key file and its config.yaml. Validity and SANs are parameters so a test can make one certificate
 * short-lived or wrong.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../../tempDir';

export interface PkiOptions {
  /** Node address (goes into apiserver and etcd SANs). */
  address: string;
  /** controlPlaneEndpoint host (the VIP) put into the apiserver SANs; omit to leave it out. */
  endpointHost?: string;
  /** Days of validity per id (default 365, CAs 3650). */
  days?: Record<string, number>;
  controlPlane?: boolean;
  rotate?: boolean;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export class PkiFixture {
  readonly root = tempDir('kw-pki-');
  private readonly work = join(this.root, '.work');

  constructor(readonly opts: PkiOptions) {
    mkdirSync(this.work, { recursive: true });
    const days = (id: string, d: number) => String(opts.days?.[id] ?? d);
    const cp = opts.controlPlane ?? true;
    if (cp) {
      this.ca('ca', '/etc/kubernetes/pki/ca', 'kubernetes', days('ca', 3650));
      this.ca('front-proxy-ca', '/etc/kubernetes/pki/front-proxy-ca', 'front-proxy-ca', days('front-proxy-ca', 3650));
      this.ca('etcd/ca', '/etc/kubernetes/pki/etcd/ca', 'etcd-ca', days('etcd/ca', 3650));
      const apiSans = ['DNS:kubernetes', 'DNS:kubernetes.default', 'IP:10.96.0.1', `IP:${opts.address}`, ...(opts.endpointHost ? [`IP:${opts.endpointHost}`] : [])];
      this.leaf('/etc/kubernetes/pki/apiserver', 'ca', '/CN=kube-apiserver', days('apiserver', 365), 'serverAuth', apiSans);
      this.leaf('/etc/kubernetes/pki/apiserver-kubelet-client', 'ca', '/O=kubeadm:cluster-admins/CN=kube-apiserver-kubelet-client', days('apiserver-kubelet-client', 365), 'clientAuth');
      this.leaf('/etc/kubernetes/pki/front-proxy-client', 'front-proxy-ca', '/CN=front-proxy-client', days('front-proxy-client', 365), 'clientAuth');
      this.leaf('/etc/kubernetes/pki/apiserver-etcd-client', 'etcd/ca', '/CN=kube-apiserver-etcd-client', days('apiserver-etcd-client', 365), 'clientAuth');
      const etcdSans = ['DNS:localhost', 'IP:127.0.0.1', 'IP:0:0:0:0:0:0:0:1', `IP:${opts.address}`];
      this.leaf('/etc/kubernetes/pki/etcd/server', 'etcd/ca', '/CN=node', days('etcd/server', 365), 'serverAuth,clientAuth', etcdSans);
      this.leaf('/etc/kubernetes/pki/etcd/peer', 'etcd/ca', '/CN=node', days('etcd/peer', 365), 'serverAuth,clientAuth', etcdSans);
      this.leaf('/etc/kubernetes/pki/etcd/healthcheck-client', 'etcd/ca', '/CN=kube-etcd-healthcheck-client', days('etcd/healthcheck-client', 365), 'clientAuth');
      for (const [id, cn] of [
        ['admin.conf', '/O=kubeadm:cluster-admins/CN=kubernetes-admin'],
        ['super-admin.conf', '/O=system:masters/CN=kubernetes-super-admin'],
        ['controller-manager.conf', '/CN=system:kube-controller-manager'],
        ['scheduler.conf', '/CN=system:kube-scheduler'],
      ] as const) {
        this.kubeconfig(`/etc/kubernetes/${id}`, cn, days(id, 365));
      }
    } else {
      this.ca('ca', '/etc/kubernetes/pki/ca', 'kubernetes', days('ca', 3650));
    }
    // The kubelet: kubelet.conf points at the rotated file, which holds certificate and key together.
    const kc = this.leaf('/var/lib/kubelet/pki/kubelet-client-2026', 'ca', '/O=system:nodes/CN=system:node:n1', days('kubelet-client', 365), 'clientAuth');
    this.write('/var/lib/kubelet/pki/kubelet-client-current.pem', kc.cert + kc.key);
    this.write('/etc/kubernetes/kubelet.conf', 'users:\n- name: default-auth\n  user:\n    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem\n    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem\n');
    this.write('/var/lib/kubelet/config.yaml', `kind: KubeletConfiguration\nrotateCertificates: ${opts.rotate ?? true}\n`);
  }

  path(p: string): string {
    return join(this.root, p);
  }

  read(p: string): string {
    return readFileSync(this.path(p), 'utf8');
  }

  write(p: string, text: string): void {
    mkdirSync(dirname(this.path(p)), { recursive: true });
    writeFileSync(this.path(p), text);
  }

  private ca(id: string, base: string, cn: string, days: string): void {
    mkdirSync(dirname(this.path(base)), { recursive: true });
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', this.path(`${base}.key`), '-out', this.path(`${base}.crt`), '-days', days, '-subj', `/CN=${cn}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], this.work);
    this.caBase.set(id, base);
  }

  private readonly caBase = new Map<string, string>();

  /** Signs a leaf with CA `caId`; writes BASE.crt and BASE.key; answers their PEM. */
  leaf(base: string, caId: string, subj: string, days: string | number, eku: string, sans: string[] = []): { cert: string; key: string } {
    mkdirSync(dirname(this.path(base)), { recursive: true });
    const ca = this.caBase.get(caId)!;
    const csr = join(this.work, 'leaf.csr');
    const ext = join(this.work, 'leaf.ext');
    writeFileSync(ext, `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=${eku}\n${sans.length ? `subjectAltName=${sans.join(',')}\n` : ''}`);
    openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', this.path(`${base}.key`), '-out', csr, '-subj', subj], this.work);
    openssl(['x509', '-req', '-in', csr, '-CA', this.path(`${ca}.crt`), '-CAkey', this.path(`${ca}.key`), '-CAcreateserial', '-out', this.path(`${base}.crt`), '-days', String(days), '-extfile', ext], this.work);
    return { cert: this.read(`${base}.crt`), key: this.read(`${base}.key`) };
  }

  private kubeconfig(path: string, subj: string, days: string): void {
    const { cert, key } = this.leaf(join(this.work.slice(this.root.length), 'kc'), 'ca', subj, days, 'clientAuth');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    this.write(
      path,
      [
        'apiVersion: v1',
        'clusters:',
        '- cluster:',
        `    certificate-authority-data: ${b64(this.read('/etc/kubernetes/pki/ca.crt'))}`,
        '    server: https://10.3.60.100:6443',
        '  name: kubernetes',
        'users:',
        '- name: kubernetes-admin',
        '  user:',
        `    client-certificate-data: ${b64(cert)}`,
        `    client-key-data: ${b64(key)}`,
        '',
      ].join('\n'),
    );
  }
}
