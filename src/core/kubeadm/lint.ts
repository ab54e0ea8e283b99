/**
 * Lints a kubeadm configuration file: structure (per document, memoised) plus the rules that compare
 * it with the inventory, the CNI manifest and the other documents of the file.
 */
import { isMap, isScalar, isSeq, type Node, type YAMLMap, type YAMLSeq } from 'yaml';
import type { Finding, Fix } from '../findings';
import { hostsWithRole, splitEndpoint, type HostSpec } from '../inventory/types';
import { textGuard } from '../lint/textGuard';
import type { LintContext, SourceFile } from '../lint/types';
import { cidrContains, cidrsOverlap, parseCidr } from '../net';
import { FLANNEL_DEFAULT_NETWORK, flannelNetwork, isFlannelManifest } from './cni';
import { nodeAt, scalarString, splitDocuments, stringAt, type KubeadmDoc } from './parse';
import { finding } from './rules';
import { argLines, auditLogGaps, describeGaps, volumeLines, type AuditLogGaps } from './auditLog';
import { KUBEADM_V1BETA3, KUBEADM_V1BETA4, KUBELET_API, KUBEPROXY_API } from './schema';
import { structuralFindings } from './structure';
import { hostFor, KubeadmFile, parseVersion } from './lintFile';
import { t } from '../l10n';

export { hostFor, kubeadmApiFor, parseVersion } from './lintFile';

/** The limit that keeps the editor responsive on files that cannot be kubeadm configurations (size is the text guard's). */
export const MAX_DOCUMENTS = 1000;
const TOKEN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;
const CA_HASH = /^sha256:[0-9a-fA-F]{64}$/;
const CERT_KEY = /^[0-9a-fA-F]{64}$/;

export function lintKubeadm(file: SourceFile, context: LintContext = {}): Finding[] {
  const text = file.text;
  const guarded = textGuard(text, 'kubeadm');
  if (guarded) return [guarded];
  const docs = splitDocuments(text);
  if (docs.length > MAX_DOCUMENTS) {
    return [finding('kubeadm/too-large', t('The file has {0} YAML documents; a kubeadm configuration has a handful, so it is not checked.', docs.length), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } })];
  }
  return new KubeadmLint(file, context, docs).run();
}

/** The rules, by document kind, over the file view of ./lintFile.ts. */
class KubeadmLint extends KubeadmFile {
  run(): Finding[] {
    for (const d of this.docs) {
      for (const f of structuralFindings(d)) {
        const fixes: Fix[] = [];
        if (f.fix) fixes.push({ title: f.fix.title, edits: f.fix.edits.map((e) => this.edit(d.chunk.start + e.start, d.chunk.start + e.end, e.newText)) });
        if (f.migrate) {
          const m = this.migrationFix();
          if (m) fixes.push(m);
        }
        this.out.push(finding(f.rule, f.message, this.lines.range(d.chunk.start + f.start, d.chunk.start + f.end), fixes, f.severity));
      }
    }
    this.fileRules();
    const cluster = this.one('ClusterConfiguration');
    if (cluster?.root) this.clusterRules(cluster);
    const init = this.one('InitConfiguration');
    if (init?.root) this.initRules(init);
    for (const j of this.all('JoinConfiguration')) if (j.root) this.joinRules(j);
    for (const k of this.docs.filter((d) => d.apiVersion === KUBELET_API && d.kind === 'KubeletConfiguration')) this.kubeletRules(k);
    for (const k of this.docs.filter((d) => d.apiVersion === KUBEPROXY_API && d.kind === 'KubeProxyConfiguration')) this.kubeProxyRules(k, cluster);
    return this.out;
  }

  // ---- file-level rules ----

  private fileRules(): void {
    const kubeadm = this.kubeadmDocs();
    const apis = new Set(kubeadm.map((d) => d.apiVersion));
    if (apis.size > 1) {
      const minority = kubeadm.filter((d) => d.apiVersion === KUBEADM_V1BETA3);
      for (const d of minority) this.report('kubeadm/mixed-api-versions', t('This file mixes {0} and {1} documents.', KUBEADM_V1BETA3, KUBEADM_V1BETA4), d, d.root?.get('apiVersion', true) as Node, this.migrationFixList());
    }
    const seen = new Map<string, KubeadmDoc>();
    for (const d of this.docs) {
      if (!d.kind || !d.apiVersion || !/kubeadm\.k8s\.io|kubelet\.config|kubeproxy\.config/.test(d.apiVersion)) continue;
      if (seen.has(d.kind)) this.reportDoc('kubeadm/duplicate-kind', t('A second {0} in this file; kubeadm uses only one.', d.kind), d);
      else seen.set(d.kind, d);
    }
    const init = this.one('InitConfiguration');
    const join = this.one('JoinConfiguration');
    if (init && join) this.reportDoc('kubeadm/init-and-join', t('This file has both an InitConfiguration and a JoinConfiguration; `kubeadm init` ignores the join part and `kubeadm join` the init part.'), join);
    const v = parseVersion(this.version());
    if (v && kubeadm.length) {
      const minor = v[0] > 1 ? 99 : v[1];
      const first = kubeadm[0]!;
      if (apis.has(KUBEADM_V1BETA3) && minor >= 31) {
        const d = kubeadm.find((x) => x.apiVersion === KUBEADM_V1BETA3)!;
        this.report('kubeadm/api-version-deprecated', t('{0} is deprecated for Kubernetes {1}; migrate to {2}.', KUBEADM_V1BETA3, v.join('.'), KUBEADM_V1BETA4), d, d.root?.get('apiVersion', true) as Node, this.migrationFixList());
      }
      if (apis.has(KUBEADM_V1BETA4) && minor < 31) {
        const d = kubeadm.find((x) => x.apiVersion === KUBEADM_V1BETA4) ?? first;
        this.report('kubeadm/api-version-unsupported', t('kubeadm {0}.{1} does not know {2} (added in 1.31); use {3}.', v[0], v[1], KUBEADM_V1BETA4, KUBEADM_V1BETA3), d, d.root?.get('apiVersion', true) as Node);
      }
    }
  }

  private migrationFixList(): Fix[] | undefined {
    const m = this.migrationFix();
    return m ? [m] : undefined;
  }

  // ---- ClusterConfiguration ----

  private clusterRules(d: KubeadmDoc): void {
    const root = d.root!;
    const inv = this.inv;
    const vip = this.vip();
    // controlPlaneEndpoint
    const epNode = nodeAt(root, 'controlPlaneEndpoint');
    const ep = scalarString(epNode);
    if (inv && vip) {
      if (!epNode || ep === undefined) {
        this.reportDoc('kubeadm/control-plane-endpoint', t('ClusterConfiguration has no controlPlaneEndpoint; set it to the VIP {0} so every component reaches the API through the balancers.', vip.text), d,
          [this.addTopLevel(t('Set controlPlaneEndpoint: {0}', vip.text), d, 'controlPlaneEndpoint', vip.text)]);
      } else if (ep !== vip.text) {
        const parsed = splitEndpoint(ep) ?? { host: ep, port: 6443 };
        const node = inv.hosts.find((h) => h.address === parsed.host || h.name === parsed.host);
        const message = node
          ? t("controlPlaneEndpoint {0} is {1}'s own address, not the VIP {2}.", ep, node.name, vip.text)
          : parsed.host === vip.host
            ? t('controlPlaneEndpoint {0} uses port {1}; the balancers listen on {2}.', ep, parsed.port === undefined ? '(none)' : parsed.port, vip.text)
            : t("controlPlaneEndpoint {0} differs from the inventory's VIP {1}.", ep, vip.text);
        this.report('kubeadm/control-plane-endpoint', message, d, epNode, [this.replaceFix(t('Use {0}', vip.text), d, epNode, vip.text)]);
      }
    }
    // certSANs
    if (inv && vip) this.certSans(d);
    // the audit log the inventory turns on
    if (inv?.cluster.apiServerAuditLog === true) this.auditLog(d);
    // networks
    this.networks(d);
    // version, image repository, cluster name
    if (inv) {
      const kvNode = nodeAt(root, 'kubernetesVersion');
      const kv = scalarString(kvNode);
      const want = `v${inv.cluster.kubernetesVersion.replace(/^v/, '')}`;
      if (kv === undefined) {
        this.reportDoc('kubeadm/kubernetes-version', t('ClusterConfiguration has no kubernetesVersion; kubeadm would look up "stable" on the internet instead of {0}.', want), d,
          [this.addTopLevel(t('Set kubernetesVersion: {0}', want), d, 'kubernetesVersion', want)], 'warning');
      } else if (kv.replace(/^v/, '') !== want.slice(1)) {
        this.report('kubeadm/kubernetes-version', t("kubernetesVersion {0} differs from the inventory's {1}.", kv, want), d, kvNode, [this.replaceFix(t('Use {0}', want), d, kvNode!, want)]);
      }
      const repoNode = nodeAt(root, 'imageRepository');
      const repo = scalarString(repoNode);
      if (inv.cluster.imageRepository && repo !== inv.cluster.imageRepository) {
        const fix = repoNode ? this.replaceFix(t('Use {0}', inv.cluster.imageRepository), d, repoNode, inv.cluster.imageRepository) : this.addTopLevel(t('Set imageRepository: {0}', inv.cluster.imageRepository), d, 'imageRepository', inv.cluster.imageRepository);
        if (repoNode) this.report('kubeadm/image-repository', t("imageRepository {0} differs from the inventory's {1}.", repo, inv.cluster.imageRepository), d, repoNode, [fix]);
        else this.reportDoc('kubeadm/image-repository', t('The inventory pulls images from {0}, but ClusterConfiguration has no imageRepository.', inv.cluster.imageRepository), d, [fix]);
      }
      const nameNode = nodeAt(root, 'clusterName');
      const name = scalarString(nameNode);
      if (nameNode && name !== undefined && name !== inv.cluster.name) {
        this.report('kubeadm/cluster-name', t("clusterName {0} differs from the inventory's {1}.", name, inv.cluster.name), d, nameNode, [this.replaceFix(t('Use {0}', inv.cluster.name), d, nameNode, inv.cluster.name)]);
      }
    }
  }

  private certSans(d: KubeadmDoc): void {
    const inv = this.inv!;
    const vip = this.vip()!;
    const required: string[] = [vip.host];
    for (const lb of hostsWithRole(inv, 'loadbalancer')) required.push(lb.address);
    for (const cp of hostsWithRole(inv, 'control-plane')) required.push(cp.name, cp.address);
    const unique = [...new Set(required)];
    const sansNode = nodeAt(d.root, 'apiServer.certSANs');
    const present = new Set<string>();
    if (sansNode && isSeq(sansNode)) for (const item of sansNode.items) {
      const s = scalarString(item as Node);
      if (s !== undefined) present.add(s);
    }
    const missing = unique.filter((x) => !present.has(x));
    if (!missing.length) return;
    const severity = missing.includes(vip.host) ? 'error' : 'warning';
    const message = t('apiServer.certSANs lacks {0}; the API server certificate must be valid for every address and name clients use.', missing.map((m) => (m === vip.host ? t('{0} (the VIP)', m) : m)).join(', '));
    const fix = this.certSansFix(d, sansNode, missing);
    if (sansNode) this.report('kubeadm/cert-sans', message, d, sansNode, fix ? [fix] : undefined, severity);
    else this.reportDoc('kubeadm/cert-sans', message, d, fix ? [fix] : undefined, severity);
  }

  private auditLog(d: KubeadmDoc): void {
    const api = d.apiVersion!;
    const gaps = auditLogGaps(d.root!, api);
    if (!gaps) return;
    const extra = this.inv!.cluster.kubeadmExtraConfig?.replace(/^\.\//, '');
    const isExtra = extra !== undefined && (this.file.path === extra || this.file.path.endsWith(`/${extra}`));
    const where = isExtra
      ? t("This file is the inventory's kubeadmExtraConfig: its ClusterConfiguration replaces the generated one, audit settings included")
      : t('The API servers started from this ClusterConfiguration');
    const effect = gaps.fatal
      ? t('kube-apiserver cannot open the policy it is given and does not start')
      : t('the API servers write no audit log the kubectl run timeline can read');
    const message = t('inventory.yaml turns the audit log on (cluster.apiServerAuditLog), but apiServer has {0}. {1}: {2}.', describeGaps(gaps), where, effect);
    const fix = this.auditLogFix(d, gaps, api);
    // At the apiServer key, where the user reads the section.
    const apiServer = d.root!.items.find((p) => scalarString(p.key as Node) === 'apiServer')?.key as Node | undefined;
    if (apiServer) this.report('kubeadm/audit-log-dropped', message, d, apiServer, fix ? [fix] : undefined, gaps.fatal ? 'error' : 'warning');
    else this.reportDoc('kubeadm/audit-log-dropped', message, d, fix ? [fix] : undefined, gaps.fatal ? 'error' : 'warning');
  }

  /** Adds the missing flags and mounts in block YAML; no fix when a flag has another value or the YAML is in flow style. */
  private auditLogFix(d: KubeadmDoc, gaps: AuditLogGaps, api: string): Fix | undefined {
    if (gaps.args.some((a) => a.have !== undefined)) return undefined;
    const title = t("Add the audit log's flags and mounts to apiServer");
    const apiServer = nodeAt(d.root, 'apiServer');
    if (!apiServer) {
      const at = this.nextLineStart(d.chunk.start + d.chunk.text.length);
      const body = `apiServer:\n${gaps.args.length ? `  extraArgs:\n${argLines(gaps, api, '    ')}` : ''}${gaps.volumes.length ? `  extraVolumes:\n${volumeLines(gaps, '    ')}` : ''}`;
      return { title, edits: [this.edit(at, at, this.insertText(at, body))] };
    }
    if (!isMap(apiServer) || apiServer.flow || !apiServer.items.length) return undefined;
    const indent = this.indentOf(d, apiServer);
    const inserts = new Map<number, string>();
    const add = (at: number, text: string) => inserts.set(at, (inserts.get(at) ?? '') + text);
    const afterApiServer = this.nextLineStart(this.abs(d, apiServer)[1]);
    // Under an existing block list or map: after its last item, at its items' indentation.
    const into = (node: Node, lines: (itemIndent: string) => string): boolean => {
      if ((!isSeq(node) && !isMap(node)) || node.flow || !node.items.length) return false;
      const last = node.items[node.items.length - 1]!;
      let itemIndent: string;
      if (isSeq(node)) {
        const [fs] = this.abs(d, node.items[0] as Node);
        const prefix = this.file.text.slice(this.file.text.lastIndexOf('\n', fs - 1) + 1, fs);
        if (!/^\s*-\s+$/.test(prefix)) return false;
        itemIndent = ' '.repeat(prefix.indexOf('-'));
        add(this.nextLineStart(this.abs(d, last as Node)[1]), lines(itemIndent));
      } else {
        itemIndent = this.indentOf(d, node as YAMLMap);
        add(this.nextLineStart(this.abs(d, (last as { value: Node }).value)[1]), lines(itemIndent));
      }
      return true;
    };
    if (gaps.args.length) {
      const argsNode = nodeAt(d.root, 'apiServer.extraArgs');
      if (!argsNode) add(afterApiServer, `${indent}extraArgs:\n${argLines(gaps, api, `${indent}  `)}`);
      else if (!into(argsNode, (i) => argLines(gaps, api, i))) return undefined;
    }
    if (gaps.volumes.length) {
      const volsNode = nodeAt(d.root, 'apiServer.extraVolumes');
      if (!volsNode) add(afterApiServer, `${indent}extraVolumes:\n${volumeLines(gaps, `${indent}  `)}`);
      else if (!into(volsNode, (i) => volumeLines(gaps, i))) return undefined;
    }
    return { title, edits: [...inserts].map(([at, text]) => this.edit(at, at, this.insertText(at, text))) };
  }

  private certSansFix(d: KubeadmDoc, sansNode: Node | undefined, missing: string[]): Fix | undefined {
    const title = t('Add {0} to certSANs', missing.join(', '));
    const text = this.file.text;
    if (sansNode && isSeq(sansNode)) {
      const seq = sansNode as YAMLSeq;
      if (seq.flow || seq.items.length === 0) {
        const all = [...seq.items.map((i) => scalarString(i as Node) ?? '').filter(Boolean), ...missing];
        return this.replaceFix(title, d, sansNode, `[${all.join(', ')}]`);
      }
      const first = seq.items[0] as Node;
      const [fs] = this.abs(d, first);
      const lineStart = text.lastIndexOf('\n', fs - 1) + 1;
      const prefix = text.slice(lineStart, fs);
      if (!/^\s*-\s+$/.test(prefix)) return undefined;
      const [, le] = this.abs(d, seq.items[seq.items.length - 1] as Node);
      const at = this.nextLineStart(le);
      return { title, edits: [this.edit(at, at, this.insertText(at, missing.map((m) => `${prefix}${m}\n`).join('')))] };
    }
    if (sansNode) return undefined;
    const apiServer = nodeAt(d.root, 'apiServer');
    if (apiServer && isMap(apiServer) && !apiServer.flow && apiServer.items.length) {
      const indent = this.indentOf(d, apiServer);
      const [, e] = this.abs(d, apiServer);
      const at = this.nextLineStart(e);
      return { title, edits: [this.edit(at, at, this.insertText(at, `${indent}certSANs:\n${missing.map((m) => `${indent}  - ${m}\n`).join('')}`))] };
    }
    if (apiServer) return undefined;
    const at = this.nextLineStart(d.chunk.start + d.chunk.text.length);
    return { title, edits: [this.edit(at, at, this.insertText(at, `apiServer:\n  certSANs:\n${missing.map((m) => `    - ${m}\n`).join('')}`))] };
  }

  private networks(d: KubeadmDoc): void {
    const root = d.root!;
    const inv = this.inv;
    const podNode = nodeAt(root, 'networking.podSubnet');
    // Dual-stack values are comma-separated; the IPv4 range is the one flannel's Network and the checks use.
    const ipv4 = (v: string | undefined) => v?.split(',').map((x) => x.trim()).find((x) => parseCidr(x)) ?? v?.trim();
    const pod = ipv4(scalarString(podNode));
    const svcNode = nodeAt(root, 'networking.serviceSubnet');
    const svc = ipv4(scalarString(svcNode)) ?? '10.96.0.0/12';
    if (inv && svc !== inv.cluster.serviceSubnet) {
      const fix = svcNode ? this.replaceFix(t('Use {0}', inv.cluster.serviceSubnet), d, svcNode, inv.cluster.serviceSubnet) : this.setNetworkingFix(d, 'serviceSubnet', inv.cluster.serviceSubnet);
      const message = svcNode ? t("networking.serviceSubnet {0} differs from the inventory's {1}.", svc, inv.cluster.serviceSubnet) : t('networking.serviceSubnet is not set, so kubeadm uses 10.96.0.0/12, but the inventory says {0}.', inv.cluster.serviceSubnet);
      if (svcNode) this.report('kubeadm/service-subnet', message, d, svcNode, fix ? [fix] : undefined);
      else this.reportDoc('kubeadm/service-subnet', message, d, fix ? [fix] : undefined);
    }
    const manifest = this.flannel();
    // Without an inventory or a flannel manifest the CNI is unknown, so there is nothing to compare with.
    const usesFlannel = manifest !== undefined || inv?.cluster.cni === 'flannel';
    if (usesFlannel) {
      const want = manifest?.network ?? FLANNEL_DEFAULT_NETWORK;
      const where = manifest ? t('{0}\'s net-conf.json', manifest.path) : t('flannel\'s default manifest');
      if (pod === undefined) {
        const fix = this.setNetworkingFix(d, 'podSubnet', want);
        this.reportDoc('kubeadm/pod-subnet-cni', t('networking.podSubnet is not set; flannel needs it ({0} uses {1}) so the controller manager allocates each node a pod range.', where, want), d, fix ? [fix] : undefined);
      } else if (pod !== want) {
        const fix = this.replaceFix(t('Use {0}', want), d, podNode!, want);
        this.report('kubeadm/pod-subnet-cni', manifest
          ? t('networking.podSubnet {0} differs from {1} Network {2}.', pod, where, want)
          : t("networking.podSubnet {0} differs from {1} network {2}; change kube-flannel.yml's net-conf.json too, or use {2}.", pod, where, want), d, podNode, [fix], manifest ? 'error' : 'warning');
      }
    }
    const podCidr = pod ? parseCidr(pod) : undefined;
    const svcCidr = parseCidr(svc);
    if (podCidr && svcCidr && cidrsOverlap(podCidr, svcCidr)) {
      this.report('kubeadm/subnet-overlap', t('podSubnet {0} overlaps serviceSubnet {1}.', pod, svc), d, podNode);
    }
    if (inv) {
      const vip = this.vip();
      const addresses = [...inv.hosts.map((h) => ({ what: h.name, address: h.address })), ...(vip ? [{ what: t('the VIP'), address: vip.host }] : [])];
      for (const [name, cidr, node] of [['podSubnet', podCidr, podNode], ['serviceSubnet', svcCidr, svcNode]] as const) {
        if (!cidr) continue;
        const inside = addresses.filter((a) => cidrContains(cidr, a.address));
        if (inside.length) {
          this.report('kubeadm/subnet-overlap', t('{0} {1} contains node addresses ({2}).', name, name === 'podSubnet' ? pod : svc, inside.map((a) => `${a.what} ${a.address}`).join(', ')), d, node ?? (root.get('kind', true) as Node));
        }
      }
    }
  }

  private setNetworkingFix(d: KubeadmDoc, key: string, value: string): Fix | undefined {
    const networking = nodeAt(d.root, 'networking');
    const title = t('Set networking.{0}: {1}', key, value);
    if (!networking) {
      const at = this.nextLineStart(d.chunk.start + d.chunk.text.length);
      return { title, edits: [this.edit(at, at, this.insertText(at, `networking:\n  ${key}: ${value}\n`))] };
    }
    if (!isMap(networking) || networking.flow || !networking.items.length) return undefined;
    const indent = this.indentOf(d, networking);
    const [, e] = this.abs(d, networking);
    const at = this.nextLineStart(e);
    return { title, edits: [this.edit(at, at, this.insertText(at, `${indent}${key}: ${value}\n`))] };
  }

  private flannelCache: { path: string; network: string } | undefined | null = null;

  private flannel(): { path: string; network: string } | undefined {
    if (this.flannelCache !== null) return this.flannelCache;
    this.flannelCache = undefined;
    for (const s of this.context.siblings ?? []) {
      if (s.path === this.file.path || !isFlannelManifest(s.path, s.text)) continue;
      const n = flannelNetwork(s.text);
      if (n) {
        this.flannelCache = { path: s.path.split(/[\\/]/).pop()!, network: n.network };
        break;
      }
    }
    return this.flannelCache;
  }

  // ---- InitConfiguration / JoinConfiguration ----

  private nodeChecks(d: KubeadmDoc, endpointPath: string, controlPlane: boolean | undefined): HostSpec | undefined {
    const inv = this.inv;
    const nameNode = nodeAt(d.root, 'nodeRegistration.name');
    const nodeName = scalarString(nameNode);
    const advNode = nodeAt(d.root, `${endpointPath}.advertiseAddress`);
    const adv = scalarString(advNode);
    if (!inv) return undefined;
    if (nodeName !== undefined && !inv.hosts.some((h) => h.name === nodeName)) {
      this.report('kubeadm/node-name', t('nodeRegistration.name {0} is not a host of the inventory.', nodeName), d, nameNode);
    }
    const host = hostFor(inv, nodeName, this.file.path, controlPlane === false ? undefined : adv);
    const vip = this.vip();
    if (advNode && adv !== undefined) {
      if (vip && adv === vip.host) {
        this.report('kubeadm/advertise-address', t('advertiseAddress is the VIP {0}; each API server must advertise its own node address{1}.', adv, host ? ` (${host.address})` : ''), d, advNode,
          host ? [this.replaceFix(t('Use {0}', host.address), d, advNode, host.address)] : undefined);
      } else if (host && adv !== host.address) {
        const other = inv.hosts.find((h) => h.address === adv);
        this.report('kubeadm/advertise-address', t('advertiseAddress {0} is {1}; {2} is {3}.', adv, other ? `${other.name}'s address` : t('not an address of this host'), host.name, host.address), d, advNode,
          [this.replaceFix(t('Use {0}', host.address), d, advNode, host.address)]);
      } else if (!host && !hostsWithRole(inv, 'control-plane').some((h) => h.address === adv)) {
        this.report('kubeadm/advertise-address', t('advertiseAddress {0} is not the address of any control-plane host in the inventory.', adv), d, advNode, undefined, 'warning');
      }
    }
    return host;
  }

  private criSocket(d: KubeadmDoc): void {
    const node = nodeAt(d.root, 'nodeRegistration.criSocket');
    const v = scalarString(node);
    if (node && v !== undefined && !/containerd\.sock$/.test(v)) {
      this.report('kubeadm/cri-socket', t("criSocket {0} is not containerd's socket; the nodes run containerd (unix:///run/containerd/containerd.sock).", v), d, node,
        [this.replaceFix(t("Use containerd's socket"), d, node, 'unix:///run/containerd/containerd.sock')]);
    }
  }

  private initRules(d: KubeadmDoc): void {
    this.criSocket(d);
    const host = this.nodeChecks(d, 'localAPIEndpoint', true);
    if (host && !host.roles.includes('control-plane')) {
      this.reportDoc('kubeadm/node-role', t('kubeadm init runs on the first control-plane node, but {0} is not a control-plane host.', host.name), d);
    }
    const tokens = nodeAt(d.root, 'bootstrapTokens');
    if (tokens && isSeq(tokens)) {
      for (const tok of tokens.items) {
        const tokNode = isMap(tok) ? (tok.get('token', true) as Node | undefined) : undefined;
        this.checkToken(d, tokNode, 'bootstrapTokens[].token');
      }
    }
    this.checkCertKey(d, nodeAt(d.root, 'certificateKey'));
  }

  private joinRules(d: KubeadmDoc): void {
    this.criSocket(d);
    const cpNode = nodeAt(d.root, 'controlPlane');
    const isCp = !!cpNode && !(isScalar(cpNode) && cpNode.value === null);
    const host = this.nodeChecks(d, 'controlPlane.localAPIEndpoint', isCp);
    if (host) {
      const hostIsCp = host.roles.includes('control-plane');
      if (hostIsCp && !isCp) this.reportDoc('kubeadm/node-role', t('{0} is a control-plane host, but this JoinConfiguration has no controlPlane section: it would join as a worker.', host.name), d);
      if (!hostIsCp && isCp) this.report('kubeadm/node-role', t('{0} is not a control-plane host, but this JoinConfiguration joins it as one.', host.name), d, cpNode);
    }
    if (isCp) {
      const keyNode = nodeAt(d.root, 'controlPlane.certificateKey');
      if (!keyNode || scalarString(keyNode) === undefined) {
        this.report('kubeadm/join-certificate-key', t('This control-plane join has no controlPlane.certificateKey: pass it with `kubeadm join --certificate-key <key>` (printed by `kubeadm init --upload-certs`), or the node cannot fetch the cluster certificates.'), d, cpNode);
      } else this.checkCertKey(d, keyNode);
    }
    const bt = nodeAt(d.root, 'discovery.bootstrapToken');
    if (bt && isMap(bt)) {
      this.checkToken(d, bt.get('token', true) as Node | undefined, 'discovery.bootstrapToken.token');
      const epNode = bt.get('apiServerEndpoint', true) as Node | undefined;
      const ep = scalarString(epNode);
      const vip = this.vip();
      if (vip && epNode && ep !== undefined && ep !== vip.text) {
        const node = this.inv!.hosts.find((h) => ep.split(':')[0] === h.address || ep.split(':')[0] === h.name);
        this.report('kubeadm/join-endpoint', t('apiServerEndpoint {0} is {1}; join through {2}.', ep, node ? t("{0}'s own address", node.name) : t('not the VIP'), vip.text), d, epNode, [this.replaceFix(t('Use {0}', vip.text), d, epNode, vip.text)]);
      }
      const hashes = bt.get('caCertHashes', true) as Node | undefined;
      const skip = bt.get('unsafeSkipCAVerification');
      if (hashes && isSeq(hashes) && hashes.items.length) {
        for (const h of hashes.items) {
          const v = scalarString(h as Node);
          if (v === undefined || !CA_HASH.test(v)) this.report('kubeadm/ca-cert-hash-format', t('A caCertHashes entry is not of the form sha256:<64 hex characters> (what `kubeadm token create --print-join-command` prints).'), d, h as Node);
        }
      } else if (skip !== true) {
        this.report('kubeadm/ca-cert-hash-missing', t('Token discovery has no caCertHashes: add sha256:<hash> of the cluster CA (or the --discovery-token-ca-cert-hash flag).'), d, bt.items[0]?.key as Node ?? bt);
      }
      if (skip === true) this.report('kubeadm/unsafe-skip-ca', t('unsafeSkipCAVerification is true: the node trusts whatever CA the endpoint presents.'), d, nodeAt(d.root, 'discovery.bootstrapToken.unsafeSkipCAVerification'));
    }
    const tls = nodeAt(d.root, 'discovery.tlsBootstrapToken');
    if (tls) this.checkToken(d, tls, 'discovery.tlsBootstrapToken');
  }

  private checkToken(d: KubeadmDoc, node: Node | undefined, what: string): void {
    if (!node) return;
    const v = scalarString(node);
    // Never echo the value: it is a secret.
    if (v === undefined || !TOKEN.test(v)) this.report('kubeadm/token-format', t('{0} is not a bootstrap token of the form [a-z0-9]{6}.[a-z0-9]{16}.', what), d, node);
  }

  private checkCertKey(d: KubeadmDoc, node: Node | undefined): void {
    if (!node) return;
    const v = scalarString(node);
    if (v === undefined) return;
    if (!CERT_KEY.test(v)) this.report('kubeadm/certificate-key-format', t('certificateKey is not 64 hex characters ({0} characters given); use the key printed by `kubeadm init --upload-certs` or `kubeadm certs certificate-key`.', v.length), d, node);
  }

  // ---- component configs ----

  private kubeletRules(d: KubeadmDoc): void {
    const node = nodeAt(d.root, 'cgroupDriver');
    const v = scalarString(node);
    if (node && v !== undefined && v !== 'systemd') {
      this.report('kubeadm/cgroup-driver', t("cgroupDriver is {0}; Debian runs systemd as PID 1, so kubelet (and containerd's SystemdCgroup) must use systemd.", v), d, node, [this.replaceFix(t('Use systemd'), d, node, 'systemd')]);
    }
  }

  private kubeProxyRules(d: KubeadmDoc, cluster: KubeadmDoc | undefined): void {
    const node = nodeAt(d.root, 'clusterCIDR');
    const v = scalarString(node);
    const pod = stringAt(cluster?.root, 'networking.podSubnet') ?? this.inv?.cluster.podSubnet;
    if (node && v !== undefined && v !== '' && pod && v !== pod) {
      this.report('kubeadm/kube-proxy-cluster-cidr', t('KubeProxyConfiguration clusterCIDR {0} differs from podSubnet {1}.', v, pod), d, node, [this.replaceFix(t('Use {0}', pod), d, node, pod)]);
    }
  }
}
