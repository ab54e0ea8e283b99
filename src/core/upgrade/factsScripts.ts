/**
 * The read-only scripts the upgrade's preflight runs over SSH, and the parsers of what they print. Each script is a
 * constant run as `sh -c SCRIPT kw ARG…`: the arguments (a URL we derived and validated, a version we parsed, image
 * references kubeadm printed and we parsed) never become shell text.
 */
import { markedSections } from '../backup/commands';
import { urlProblem } from '../inventory/fields';
import { sh, type RemoteCommand } from '../ssh/command';
import type { ImageFact, NodeFacts } from './preflight';
import { parseVersion } from './versions';
import { t } from '../l10n';

/**
 * The package index at $1, or its gzip-compressed twin (a mirror made with dpkg-scanpackages may have only that).
 * At most 2 × 2 tries of 30 s: within NODE_FACTS_TIMEOUT_MS, so a slow mirror is reported as one, not as a node that
 * does not answer (the lab's loaded mirror took longer than the 60 s the whole read had).
 */
const INDEX = 'idx=$(curl -fsSL --retry 1 --max-time 30 "$1" 2>/dev/null || curl -fsSL --retry 1 --max-time 30 "$1.gz" 2>/dev/null | gzip -dc 2>/dev/null) && [ -n "$idx" ]';
/** The SSH timeout of `nodeFactsCommand`: its index downloads (2 minutes at most) and the rest. */
export const NODE_FACTS_TIMEOUT_MS = 3 * 60_000;

const NODE_SCRIPT = [
  "printf '\\036kw-kubeadm '; kubeadm version -o short 2>/dev/null; echo",
  "printf '\\036kw-kubelet '; kubelet --version 2>/dev/null | awk '{print $2}'; echo",
  "printf '\\036kw-kubectl '; kubectl version --client 2>/dev/null | sed -n 's/^Client Version: //p'; echo",
  'for c in kube-apiserver kube-controller-manager kube-scheduler etcd; do printf \'\\036kw-pod-%s \' $c; sed -n "s|^[[:space:]]*image: .*/$c:||p" /etc/kubernetes/manifests/$c.yaml 2>/dev/null | head -n1; echo; done',
  "d=/var/lib/etcd; [ -d $d ] || d=/var/lib; printf '\\036kw-disk-etcd '; df -B1 --output=avail $d | tail -n1",
  "d=/var/lib/containerd; [ -d $d ] || d=/var/lib; printf '\\036kw-disk-containerd '; df -B1 --output=avail $d | tail -n1",
  `if [ -n "$1" ]; then printf '\\036kw-offered\\n'; if ${INDEX}; then echo "$idx" | awk '/^Package:/ { p = $2 } /^Version:/ { if (p == "kubeadm" || p == "kubelet" || p == "kubectl") print p, $2 }'; else echo "error: cannot download $1"; fi; fi`,
].join('\n');

/** Versions, static pod images, disk and (with `indexUrl`) the target source's package versions of one node. */
export function nodeFactsCommand(indexUrl: string | undefined): RemoteCommand {
  if (indexUrl && urlProblem(indexUrl, false)) throw new Error(t('package index {0} {1}', indexUrl, urlProblem(indexUrl, false)));
  return sh`sh -c ${NODE_SCRIPT} kw ${indexUrl ?? ''}`;
}

export function parseNodeFacts(name: string, role: NodeFacts['role'], stdout: string): NodeFacts {
  const s = markedSections(stdout);
  const word = (k: string) => s.get(k)?.split(/\s+/)[0] || undefined;
  const num = (k: string) => (/^\d+$/.test(word(k) ?? '') ? Number(word(k)) : undefined);
  const out: NodeFacts = { name, role };
  for (const k of ['kubeadm', 'kubelet', 'kubectl'] as const) {
    const w = word(k);
    if (w) out[k] = w;
  }
  if (role === 'control-plane') {
    out.staticPods = {};
    const pods = { apiserver: 'kube-apiserver', controllerManager: 'kube-controller-manager', scheduler: 'kube-scheduler', etcd: 'etcd' } as const;
    for (const [k, c] of Object.entries(pods) as [keyof typeof pods, string][]) {
      const w = word(`pod-${c}`);
      if (w) out.staticPods[k] = w;
    }
  }
  out.diskFree = { ...(num('disk-etcd') !== undefined ? { etcd: num('disk-etcd')! } : {}), ...(num('disk-containerd') !== undefined ? { containerd: num('disk-containerd')! } : {}) };
  const offered = s.get('offered');
  if (offered !== undefined) {
    const err = /^error: (.*)$/m.exec(offered);
    if (err) out.offeredError = err[1]!;
    else {
      out.offered = { kubeadm: [], kubelet: [], kubectl: [] };
      for (const line of offered.split('\n')) {
        const [p, v] = line.trim().split(/\s+/);
        if ((p === 'kubeadm' || p === 'kubelet' || p === 'kubectl') && v) out.offered[p].push(v);
      }
    }
  }
  return out;
}

const CLUSTER_SCRIPT = [
  'k="kubectl --kubeconfig /etc/kubernetes/admin.conf --request-timeout=20s"',
  "printf '\\036kw-nodes\\n'; $k get nodes -o jsonpath='{range .items[*]}{.metadata.name} {.status.nodeInfo.kubeletVersion} {.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}' || echo 'error: nodes'",
  "printf '\\036kw-coredns '; $k -n kube-system get deploy coredns -o jsonpath='{.spec.template.spec.containers[0].image}' 2>/dev/null; echo",
  "printf '\\036kw-kube-proxy '; $k -n kube-system get ds kube-proxy -o jsonpath='{.spec.template.spec.containers[0].image}' 2>/dev/null; echo",
  "printf '\\036kw-repository '; $k -n kube-system get cm kubeadm-config -o jsonpath='{.data.ClusterConfiguration}' 2>/dev/null | sed -n 's/^imageRepository: //p'; echo",
  "printf '\\036kw-deprecated\\n'; $k get --raw /metrics 2>/dev/null | grep '^apiserver_requested_deprecated_apis{' || true",
].join('\n');

/** Nodes (version, Ready), CoreDNS and kube-proxy images, kubeadm's image repository, the deprecated-API metric. */
export function clusterFactsCommand(): RemoteCommand {
  return sh`sh -c ${CLUSTER_SCRIPT}`;
}

export interface ClusterFacts {
  nodes: Map<string, { version: string; ready: boolean }>;
  nodesError?: string;
  coreDns?: string;
  kubeProxy?: string;
  imageRepository?: string;
  /** `group/version resource` the metric says clients requested. */
  requested: { groupVersion: string; resource: string }[];
}

const tagOf = (image: string | undefined) => (image ? /:([^:/@]+)$/.exec(image)?.[1] : undefined);

export function parseClusterFacts(stdout: string): ClusterFacts {
  const s = markedSections(stdout);
  const out: ClusterFacts = { nodes: new Map(), requested: [] };
  const nodes = s.get('nodes') ?? '';
  if (/^error:/m.test(nodes) || !nodes.trim()) out.nodesError = t('the API did not list the nodes');
  for (const line of nodes.split('\n')) {
    const [name, version, ready] = line.trim().split(/\s+/);
    if (name && version) out.nodes.set(name, { version, ready: ready === 'True' });
  }
  const coreDns = tagOf(s.get('coredns')?.trim());
  if (coreDns) out.coreDns = coreDns;
  const kubeProxy = tagOf(s.get('kube-proxy')?.trim());
  if (kubeProxy) out.kubeProxy = kubeProxy;
  const repo = s.get('repository')?.trim().replace(/^["']|["']$/g, '');
  if (repo) out.imageRepository = repo;
  for (const line of (s.get('deprecated') ?? '').split('\n')) {
    const labels = new Map([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const version = labels.get('version');
    const resource = labels.get('resource');
    if (!version || !resource) continue;
    const group = labels.get('group') ?? '';
    out.requested.push({ groupVersion: group ? `${group}/${version}` : version, resource });
  }
  return out;
}

const IMAGES_SCRIPT = [
  't=$(mktemp -d) || exit 1; trap \'rm -rf "$t"\' EXIT',
  // apt's own chain of trust, link by link: InRelease signed by the source's keyring, the Packages index by the
  // InRelease's SHA256, the .deb by the index's. A link that does not hold refuses before anything is unpacked.
  'curl -fsSL --retry 2 --max-time 60 "$3InRelease" -o "$t/InRelease" || { echo "cannot download $3InRelease" >&2; exit 3; }',
  'gpgv --keyring "$5" --output "$t/Release" "$t/InRelease" >/dev/null 2>&1 || { echo "the InRelease of $3 is not signed by a key in $5" >&2; exit 3; }',
  'sums=$(awk \'/^[^ ]/ { s = ($1 == "SHA256:") } s && /^ / && ($3 == "Packages" || $3 == "Packages.gz") { print $3, $1 }\' "$t/Release")',
  'ph=$(echo "$sums" | awk \'$1 == "Packages" { print $2; exit }\'); gh=$(echo "$sums" | awk \'$1 == "Packages.gz" { print $2; exit }\')',
  'if [ -n "$ph" ] && curl -fsSL --retry 2 --max-time 60 "$1" -o "$t/Packages" 2>/dev/null; then echo "$ph  $t/Packages" | sha256sum -c --status || { echo "$1 does not match the SHA256 of the signed InRelease" >&2; exit 3; }',
  'elif [ -n "$gh" ] && curl -fsSL --retry 2 --max-time 60 "$1.gz" -o "$t/Packages.gz" 2>/dev/null; then echo "$gh  $t/Packages.gz" | sha256sum -c --status || { echo "$1.gz does not match the SHA256 of the signed InRelease" >&2; exit 3; }; gzip -dc "$t/Packages.gz" >"$t/Packages" || exit 3',
  'else echo "cannot download $1 with a SHA256 in the signed InRelease" >&2; exit 3; fi',
  // Paragraph mode: one stanza per record, whatever the order of its fields.
  'set -- "$@" $(awk -v v="$2-" \'BEGIN { RS = "" } { p = ver = f = h = ""; n = split($0, l, "\\n"); for (i = 1; i <= n; i++) { k = l[i]; sub(/:.*/, "", k); x = l[i]; sub(/^[^:]*:[ \\t]*/, "", x); if (k == "Package") p = x; else if (k == "Version") ver = x; else if (k == "Filename") f = x; else if (k == "SHA256") h = x } if (p == "kubeadm" && index(ver, v) == 1) { print f, h; exit } }\' "$t/Packages")',
  'f=$6; h=$7; [ -n "$f" ] && [ -n "$h" ] || { echo "the package index offers no kubeadm $2 (with its SHA256)" >&2; exit 3; }',
  'f=${f#./}; case "$f" in *..*) echo "unexpected file name $f" >&2; exit 3;; esac',
  'curl -fsSL --retry 2 --max-time 300 "$3$f" -o "$t/kubeadm.deb" || exit 3',
  'echo "$h  $t/kubeadm.deb" | sha256sum -c --status || { echo "kubeadm package $f does not match the SHA256 of the index" >&2; exit 3; }',
  'dpkg-deb -x "$t/kubeadm.deb" "$t/x" && chmod -R a+rX "$t" || exit 3',
  // Only asked for a list: as nobody all the same, so even a signed package never runs as root here.
  'as=""; if [ "$(id -u)" = 0 ]; then as="setpriv --reuid=65534 --regid=65534 --clear-groups --"; fi',
  'if [ -n "$4" ]; then HOME=/ $as "$t/x/usr/bin/kubeadm" config images list --kubernetes-version "v$2" --image-repository "$4"; else HOME=/ $as "$t/x/usr/bin/kubeadm" config images list --kubernetes-version "v$2"; fi',
].join('\n');

/**
 * The images the target's own kubeadm pulls (its etcd, CoreDNS and pause versions are its own, not the installed
 * kubeadm's): its package, verified as apt would (InRelease signed by `keyring`, the source's signed-by), is
 * unpacked into a temporary folder on the node, asked, and removed — nothing installed.
 */
export function targetImagesCommand(indexUrl: string, version: string, repoBase: string, imageRepository: string | undefined, keyring: string): RemoteCommand {
  for (const u of [indexUrl, repoBase]) if (urlProblem(u, false)) throw new Error(`${u} ${urlProblem(u, false)}`);
  if (!parseVersion(version) || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(t('bad version {0}', version));
  if (imageRepository !== undefined && !/^[A-Za-z0-9][A-Za-z0-9.:_/-]*$/.test(imageRepository)) throw new Error(t('image repository {0} is not a registry path', imageRepository));
  if (!keyring.startsWith('/') || /\s/.test(keyring)) throw new Error(t('keyring {0} is not an absolute path', keyring));
  return sh`sh -c ${IMAGES_SCRIPT} kw ${indexUrl} ${version} ${repoBase.endsWith('/') ? repoBase : `${repoBase}/`} ${imageRepository ?? ''} ${keyring}`;
}

export interface ImageRef {
  image: string;
  registry: string;
  repository: string;
  tag: string;
}

/** `host[:port]/path/name:tag` as kubeadm prints it; undefined for anything else (a digest, a shell word). */
export function parseImageRef(image: string): ImageRef | undefined {
  const m = /^([A-Za-z0-9.-]+(?::\d+)?)\/([a-z0-9]+(?:[._/-][a-z0-9]+)*):([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$/.exec(image.trim());
  if (!m || !(m[1]!.includes('.') || m[1]!.includes(':') || m[1] === 'localhost')) return undefined;
  return { image: image.trim(), registry: m[1]!, repository: m[2]!, tag: m[3]! };
}

const MANIFEST_TYPES = 'application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json';

const REGISTRY_SCRIPT = [
  'while [ $# -ge 3 ]; do',
  '  code=$(curl -sS -o /dev/null -w "%{http_code}" -I -L --max-time 20 -H "Accept: $MT" "$2/v2/$3" 2>/dev/null) || code=000',
  '  echo "$1 $code"; shift 3',
  'done',
].join('\n');

/**
 * HEAD of each image's manifest where containerd pulls it from: the first mirror the inventory names for that
 * registry (plain http only when that mirror's URL says so, as hosts.toml then does), else the registry itself over
 * https — never http, which containerd would not use either. From the node: what it reaches is what counts.
 */
export function registryCheckCommand(images: readonly ImageRef[], mirrors: Record<string, string[]> | undefined): RemoteCommand {
  const args: string[] = [];
  for (const i of images) {
    const mirror = mirrors?.[i.registry]?.[0]?.replace(/\/+$/, '');
    const base = mirror ? (/^https?:\/\//.test(mirror) ? mirror : `https://${mirror}`) : `https://${i.registry}`;
    if (urlProblem(base, false)) throw new Error(`registry ${base} ${urlProblem(base, false)}`);
    args.push(i.image, base, `${i.repository}/manifests/${i.tag}`);
  }
  return sh`MT=${MANIFEST_TYPES} sh -c ${REGISTRY_SCRIPT} kw ${args}`;
}

/** 200: present; 404: missing; 401/403: the registry wants credentials (not known); anything else: not reached. */
export function parseRegistryCheck(stdout: string): ImageFact[] {
  const out: ImageFact[] = [];
  for (const line of stdout.split('\n')) {
    const [image, code] = line.trim().split(/\s+/);
    if (!image || !code) continue;
    if (code === '200') out.push({ image, present: true });
    else if (code === '401' || code === '403') out.push({ image, present: true, unknown: true, detail: t('HTTP {0}: the registry wants credentials; not checked', code) });
    else out.push({ image, present: false, detail: code === '404' ? t('manifest unknown (HTTP 404)') : code === '000' ? t('registry not reached') : `HTTP ${code}` });
  }
  return out;
}
