/**
 * containerd config.toml rules for kubeadm nodes, for both layouts:
 *  - containerd 1.6/1.7, `version = 2`: plugins."io.containerd.grpc.v1.cri" (sandbox_image, registry, containerd.runtimes.runc.options)
 *  - containerd 2.x, `version = 3`: plugins.'io.containerd.cri.v1.runtime' (runtimes) and plugins.'io.containerd.cri.v1.images'
 *    (pinned_images.sandbox, registry)
 */
import { LineIndex, type Finding, type Fix, type Range } from '../findings';
import { ruleTable } from '../lint/ruleTable';
import { maxChars, textGuard } from '../lint/textGuard';
import type { LintContext, SourceFile } from '../lint/types';
import { parseKubeadmFile, stringAt } from '../kubeadm/parse';
import { pauseImageFor } from './pause';
import { getIn, parseToml, pathKey, type TomlLine } from './toml';
import { t, msg } from '../l10n';

const CRI_DOCS = 'https://kubernetes.io/docs/setup/production-environment/container-runtimes/#containerd';
const HOSTS_DOCS = 'https://github.com/containerd/containerd/blob/main/docs/hosts.md';

const CONTAINERD = ruleTable([
  { id: 'containerd/toml-syntax', severity: 'error', title: msg('config.toml is valid TOML.'), why: msg('containerd refuses to start on a config it cannot parse, and kubelet then has no runtime.'), docs: CRI_DOCS },
  { id: 'containerd/version', severity: 'warning', title: msg('config.toml declares `version = 2` (containerd 1.x) or `version = 3` (2.x).'), why: msg('Without a version containerd reads the file as the old version-1 layout and silently ignores the v2/v3 plugin sections.'), docs: CRI_DOCS, fixes: ['edit'] },
  { id: 'containerd/layout', severity: 'error', title: msg('Plugin sections match the declared version.'), why: msg('version 2 uses plugins."io.containerd.grpc.v1.cri", version 3 uses plugins."io.containerd.cri.v1.*"; sections of the other layout are ignored.'), docs: CRI_DOCS },
  { id: 'containerd/cri-disabled', severity: 'error', title: msg('The CRI plugin is not disabled.'), why: msg('The containerd.io package ships with `disabled_plugins = ["cri"]`; kubelet cannot talk to containerd without CRI.'), docs: CRI_DOCS, fixes: ['edit'] },
  { id: 'containerd/systemd-cgroup', severity: 'error', title: msg('runc uses SystemdCgroup = true.'), why: msg('Debian 12 manages cgroups through systemd; containerd on cgroupfs next to kubelet on systemd gives two managers with different memory accounting (OOM kills, NotReady).'), docs: CRI_DOCS, fixes: ['edit'] },
  { id: 'containerd/sandbox-image', severity: 'warning', title: msg('The sandbox (pause) image is the one kubeadm uses for this Kubernetes version.'), why: msg("Every pod starts with the pause container; if its image differs from kubeadm's (or is unreachable), nodes pull another image or no pod starts."), docs: CRI_DOCS, fixes: ['edit'] },
  { id: 'containerd/registry-config-path', severity: 'warning', title: msg('Registry mirrors are configured through config_path and hosts.toml.'), why: msg('With a local image repository or mirrors in the inventory, containerd must find them in /etc/containerd/certs.d/<registry>/hosts.toml, which it reads only when config_path is set.'), docs: HOSTS_DOCS, fixes: ['edit'] },
  { id: 'containerd/registry-hosts', severity: 'warning', title: msg('Every mirrored registry has a hosts.toml.'), why: msg('A registry without hosts.toml under config_path is pulled from directly, bypassing the mirror.'), docs: HOSTS_DOCS },
  { id: 'containerd/deprecated-mirrors', severity: 'warning', title: msg('The deprecated registry.mirrors table is not used.'), why: msg('registry.mirrors/configs were deprecated in containerd 1.5 and removed in 2.0; use config_path with hosts.toml.'), docs: HOSTS_DOCS },
]);

export const CONTAINERD_RULES = CONTAINERD.rules;
type ContainerdRuleId = Parameters<typeof CONTAINERD.finding>[0];
const V2_CRI = 'io.containerd.grpc.v1.cri';
const V3_RUNTIME = 'io.containerd.cri.v1.runtime';
const V3_IMAGES = 'io.containerd.cri.v1.images';

interface Layout {
  version: 2 | 3;
  runcOptions: string[];
  sandbox: string[];
  registry: string[];
  header(path: string[]): string;
}

export const LAYOUT_V2: Layout = {
  version: 2,
  runcOptions: ['plugins', V2_CRI, 'containerd', 'runtimes', 'runc', 'options'],
  sandbox: ['plugins', V2_CRI, 'sandbox_image'],
  registry: ['plugins', V2_CRI, 'registry'],
  header: (p) => p.map((x) => (x.includes('.') ? `"${x}"` : x)).join('.'),
};

export const LAYOUT_V3: Layout = {
  version: 3,
  runcOptions: ['plugins', V3_RUNTIME, 'containerd', 'runtimes', 'runc', 'options'],
  sandbox: ['plugins', V3_IMAGES, 'pinned_images', 'sandbox'],
  registry: ['plugins', V3_IMAGES, 'registry'],
  header: (p) => p.map((x) => (x.includes('.') ? `'${x}'` : x)).join('.'),
};

export { isContainerdConfig } from './detect';


export function lintContainerd(file: SourceFile, context: LintContext = {}): Finding[] {
  return new ContainerdLint(file, context).run();
}

class ContainerdLint {
  private readonly lines: LineIndex;
  private readonly out: Finding[] = [];
  private readonly byPath = new Map<string, TomlLine>();
  private tomlLines: TomlLine[] = [];

  constructor(
    private readonly file: SourceFile,
    private readonly context: LintContext,
  ) {
    this.lines = new LineIndex(file.text);
  }

  private push(rule: ContainerdRuleId, message: string, range: Range, fixes?: Fix[], severity?: Finding['severity']): void {
    this.out.push(CONTAINERD.finding(rule, message, range, { fixes, severity }));
  }

  private lineRange(l: TomlLine | undefined): Range {
    if (!l) return this.lines.lineRange(0);
    return { start: { line: l.line, character: l.start }, end: { line: l.line, character: l.end } };
  }

  private at(path: string[]): TomlLine | undefined {
    return this.byPath.get(pathKey(path));
  }

  run(): Finding[] {
    const text = this.file.text;
    const guarded = textGuard(text, 'containerd');
    if (guarded) return [guarded];
    const parsed = parseToml(text);
    this.tomlLines = parsed.lines;
    for (const l of parsed.lines) if (!this.byPath.has(pathKey(l.path))) this.byPath.set(pathKey(l.path), l);
    if (parsed.error || !parsed.data) {
      const e = parsed.error!;
      this.push('containerd/toml-syntax', e.message, { start: { line: e.line, character: e.column }, end: { line: e.line, character: e.column + 1 } });
      return this.out;
    }
    const data = parsed.data;
    const version = data.version;
    const plugins = (getIn(data, ['plugins']) ?? {}) as Record<string, unknown>;
    const hasV2 = V2_CRI in plugins;
    const hasV3 = V3_RUNTIME in plugins || V3_IMAGES in plugins;
    let layout: Layout;
    if (version === 3) layout = LAYOUT_V3;
    else if (version === 2) layout = LAYOUT_V2;
    else {
      const guess = hasV3 ? 3 : 2;
      this.push('containerd/version', version === undefined
        ? t('No `version`: containerd reads this as the version-1 layout; add `version = {0}`{1}.', guess, guess === 3 ? ' (containerd 2.x)' : ' (containerd 1.6/1.7)')
        : t('version = {0} is not a layout for kubeadm nodes; use 2 (containerd 1.x) or 3 (containerd 2.x).', String(version)), this.lineRange(this.at(['version'])),
      version === undefined ? [{ title: t('Add version = {0}', guess), edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: `version = ${guess}\n` }] }] : undefined);
      layout = guess === 3 ? LAYOUT_V3 : LAYOUT_V2;
      if (version !== undefined) return this.out;
    }
    if (layout.version === 2 && hasV3) this.push('containerd/layout', t('version = 2 (containerd 1.x) ignores the plugins."{0}"/"{1}" sections of containerd 2.x.', V3_RUNTIME, V3_IMAGES), this.lineRange(this.firstUnder(['plugins', V3_RUNTIME]) ?? this.firstUnder(['plugins', V3_IMAGES])));
    if (layout.version === 3 && hasV2) this.push('containerd/layout', t('version = 3 (containerd 2.x) ignores the plugins."{0}" section of containerd 1.x; use plugins.\'{1}\' and plugins.\'{2}\'.', V2_CRI, V3_RUNTIME, V3_IMAGES), this.lineRange(this.firstUnder(['plugins', V2_CRI])));
    this.disabledPlugins(data);
    this.systemdCgroup(data, layout);
    this.sandbox(data, layout);
    this.registry(data, layout);
    return this.out;
  }

  private firstUnder(prefix: string[]): TomlLine | undefined {
    const key = pathKey(prefix);
    return this.tomlLines.find((l) => pathKey(l.path).startsWith(key));
  }

  private disabledPlugins(data: Record<string, unknown>): void {
    const disabled = data.disabled_plugins;
    if (!Array.isArray(disabled)) return;
    const bad = disabled.filter((p) => p === 'cri' || p === V2_CRI || p === V3_RUNTIME || p === V3_IMAGES || p === 'io.containerd.grpc.v1.cri');
    if (!bad.length) return;
    const l = this.at(['disabled_plugins']);
    const keep = disabled.filter((p) => !bad.includes(p)).map((p) => JSON.stringify(p));
    this.push('containerd/cri-disabled', t("disabled_plugins turns off {0}: kubelet needs containerd's CRI plugin.", bad.join(', ')), this.lineRange(l),
      l ? [{ title: t('Re-enable the CRI plugin'), edits: [{ range: this.lineRange(l), newText: `[${keep.join(', ')}]` }] }] : undefined);
  }

  /** Inserts `key = value` into table `table`: after its header, or as a new table at the end. */
  private insertFix(title: string, layout: Layout, table: string[], key: string, value: string): Fix {
    const header = this.tomlLines.find((l) => l.isTable && pathKey(l.path) === pathKey(table));
    if (header) {
      const pos = { line: header.line + 1, character: 0 };
      return { title, edits: [{ range: { start: pos, end: pos }, newText: `${header.indent}  ${key} = ${value}\n` }] };
    }
    const end = this.lines.position(this.file.text.length);
    const sep = this.file.text.endsWith('\n') || this.file.text === '' ? '' : '\n';
    return { title, edits: [{ range: { start: end, end }, newText: `${sep}\n[${layout.header(table)}]\n  ${key} = ${value}\n` }] };
  }

  private systemdCgroup(data: Record<string, unknown>, layout: Layout): void {
    const path = [...layout.runcOptions, 'SystemdCgroup'];
    const value = getIn(data, path);
    if (value === true) return;
    const l = this.at(path);
    if (l) {
      this.push('containerd/systemd-cgroup', t("SystemdCgroup is {0} for runc; set it to true to match kubelet's systemd cgroup driver.", JSON.stringify(value)), this.lineRange(l), [{ title: t('Set SystemdCgroup = true'), edits: [{ range: this.lineRange(l), newText: 'true' }] }]);
      return;
    }
    const anchor = this.at(layout.runcOptions) ?? this.at(layout.runcOptions.slice(0, -1)) ?? this.firstUnder(layout.runcOptions.slice(0, 2));
    this.push('containerd/systemd-cgroup', t('runc has no SystemdCgroup (default false): containerd would manage cgroups with cgroupfs while kubelet uses systemd. Set [{0}] SystemdCgroup = true.', layout.header(layout.runcOptions)), this.lineRange(anchor),
      [this.insertFix(t('Add SystemdCgroup = true'), layout, layout.runcOptions, 'SystemdCgroup', 'true')]);
  }

  private kubernetesVersion(): { version: string; imageRepository?: string } | undefined {
    const inv = this.context.inventory;
    if (inv) return { version: inv.cluster.kubernetesVersion, ...(inv.cluster.imageRepository ? { imageRepository: inv.cluster.imageRepository } : {}) };
    for (const s of this.context.siblings ?? []) {
      if (!/kubeadm[^\\/]*\.ya?ml$/i.test(s.path) || s.text.length > maxChars('kubeadm')) continue;
      const cluster = parseKubeadmFile(s.text).find((d) => d.kind === 'ClusterConfiguration');
      const version = stringAt(cluster?.root, 'kubernetesVersion');
      if (version) {
        const repo = stringAt(cluster?.root, 'imageRepository');
        return { version, ...(repo ? { imageRepository: repo } : {}) };
      }
    }
    return undefined;
  }

  private sandbox(data: Record<string, unknown>, layout: Layout): void {
    const k8s = this.kubernetesVersion();
    if (!k8s) return;
    const want = pauseImageFor(k8s.version, k8s.imageRepository);
    if (!want) return;
    const value = getIn(data, layout.sandbox);
    const key = layout.sandbox[layout.sandbox.length - 1]!;
    if (value === want) return;
    const l = this.at(layout.sandbox);
    if (typeof value === 'string' && l) {
      this.push('containerd/sandbox-image', t('{0} is {1}, but kubeadm {2} uses {3}.', key, value, k8s.version.replace(/^v?/, 'v'), want), this.lineRange(l), [{ title: t('Use {0}', want), edits: [{ range: this.lineRange(l), newText: JSON.stringify(want) }] }]);
      return;
    }
    const table = layout.sandbox.slice(0, -1);
    this.push('containerd/sandbox-image', t("No {0}: containerd's built-in default pause image differs from {1}, which kubeadm {2} uses.", key, want, k8s.version.replace(/^v?/, 'v')),
      this.lineRange(this.at(table) ?? this.firstUnder(layout.sandbox.slice(0, 2)) ?? this.at(['version'])), [this.insertFix(t('Set {0} = "{1}"', key, want), layout, table, key, JSON.stringify(want))]);
  }

  private registry(data: Record<string, unknown>, layout: Layout): void {
    const mirrorsPath = [...layout.registry, 'mirrors'];
    // `containerd config default` writes these tables empty; only filled ones are the deprecated mechanism.
    const filled = (v: unknown) => !!v && typeof v === 'object' && Object.keys(v).length > 0;
    if (filled(getIn(data, mirrorsPath)) || filled(getIn(data, [...layout.registry, 'configs']))) {
      const l = this.firstUnder(mirrorsPath) ?? this.firstUnder([...layout.registry, 'configs']);
      this.push('containerd/deprecated-mirrors', t('registry.mirrors / registry.configs are deprecated (removed in containerd 2.0); put mirrors in /etc/containerd/certs.d/<registry>/hosts.toml and set config_path.'), this.lineRange(l));
    }
    const inv = this.context.inventory;
    if (!inv || (!inv.cluster.imageRepository && !inv.cluster.registryMirrors)) return;
    const configPath = getIn(data, [...layout.registry, 'config_path']);
    if (typeof configPath !== 'string' || configPath === '') {
      const l = this.at([...layout.registry, 'config_path']);
      const why = inv.cluster.registryMirrors ? t('the inventory mirrors {0}', Object.keys(inv.cluster.registryMirrors).join(', ')) : t('the inventory pulls images from {0}', inv.cluster.imageRepository);
      this.push('containerd/registry-config-path', t('No registry config_path, but {0}; set config_path = "/etc/containerd/certs.d" and add a hosts.toml per registry.', why), this.lineRange(l ?? this.at(layout.registry) ?? this.at(['version'])),
        l ? [{ title: t('Set config_path = "/etc/containerd/certs.d"'), edits: [{ range: this.lineRange(l), newText: '"/etc/containerd/certs.d"' }] }]
          : [this.insertFix(t('Set config_path = "/etc/containerd/certs.d"'), layout, layout.registry, 'config_path', '"/etc/containerd/certs.d"')]);
      return;
    }
    // When the workspace has hosts.toml files, every mirrored registry needs one.
    const hostsFiles = (this.context.siblings ?? []).map((s) => s.path.replace(/\\/g, '/')).filter((p) => /certs\.d\/[^/]+\/hosts\.toml$/.test(p));
    if (!hostsFiles.length || !inv.cluster.registryMirrors) return;
    for (const registry of Object.keys(inv.cluster.registryMirrors)) {
      if (!hostsFiles.some((p) => p.endsWith(`certs.d/${registry}/hosts.toml`))) {
        this.push('containerd/registry-hosts', t('No certs.d/{0}/hosts.toml in the workspace: pulls from {0} bypass the mirror {1}.', registry, inv.cluster.registryMirrors[registry]!.join(', ')), this.lineRange(this.at([...layout.registry, 'config_path'])));
      }
    }
  }
}
