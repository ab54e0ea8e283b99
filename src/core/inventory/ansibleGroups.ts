/**
 * The group tree of an Ansible inventory as Ansible resolves it: `:children` cycles broken and reported, the
 * groups a host is in, variables by group depth, and the roles Kubespray's groups map to.
 */
import type { Role } from './types';
import { CONTROL_PLANE_GROUPS, ETCD_GROUPS, LEGACY_GROUPS, LOADBALANCER_GROUPS, WORKER_GROUPS, type AHost, type Model, type Reporter, type Var } from './ansibleModel';
import { t } from '../l10n';

/** The importer's first stage; ./ansibleImporter.ts maps the hosts and variables it resolves. */
export abstract class GroupTree {
  private readonly parents = new Map<string, Set<string>>();
  private readonly depth = new Map<string, number>();

  constructor(
    protected readonly model: Model,
    protected readonly rep: Reporter,
    protected readonly file: string,
  ) {}

  // ---- groups ----

  /** Reports and removes `:children` edges that close a cycle, so every walk below terminates. */
  protected breakCycles(): void {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string): void => {
      state.set(name, 'visiting');
      const g = this.model.groups.get(name)!;
      for (const child of [...g.children]) {
        const s = state.get(child);
        if (s === 'visiting') {
          this.rep.add('children-cycle', 'error', t('Group {0} is its own ancestor through {1}:children; this link is ignored.', child, name), g.childLocs.get(child), this.file,
            t('Ansible refuses an inventory whose groups contain each other.'));
          g.children.splice(g.children.indexOf(child), 1);
        } else if (!s) visit(child);
      }
      state.set(name, 'done');
    };
    visit('all');
    for (const name of [...this.model.groups.keys()]) if (!state.has(name)) visit(name);
  }

  protected computeParents(): void {
    for (const g of this.model.groups.values()) {
      for (const c of g.children) {
        let set = this.parents.get(c);
        if (!set) this.parents.set(c, (set = new Set()));
        set.add(g.name);
      }
    }
  }

  protected groupDepth(name: string): number {
    if (name === 'all') return 0;
    const cached = this.depth.get(name);
    if (cached !== undefined) return cached;
    const parents = [...(this.parents.get(name) ?? [])];
    const d = parents.length ? Math.max(...parents.map((p) => this.groupDepth(p))) + 1 : 1;
    this.depth.set(name, d);
    return d;
  }

  /** Every group a host belongs to, directly or through `:children`, plus `all`. */
  protected groupsOf(host: string): Set<string> {
    const out = new Set<string>(['all']);
    const stack = [...this.model.groups.values()].filter((g) => g.hosts.includes(host)).map((g) => g.name);
    while (stack.length) {
      const g = stack.pop()!;
      if (out.has(g)) continue;
      out.add(g);
      stack.push(...(this.parents.get(g) ?? []));
    }
    return out;
  }

  protected inAny(host: string, groups: string[]): boolean {
    const of = this.groupsOf(host);
    return groups.some((g) => of.has(g));
  }

  protected hasHosts(groups: string[]): boolean {
    return [...this.model.hosts.keys()].some((h) => this.inAny(h, groups));
  }

  protected legacyNames(): void {
    for (const [old, now] of Object.entries(LEGACY_GROUPS)) {
      const g = this.model.groups.get(old);
      if (g && (g.hosts.length || g.children.length)) {
        this.rep.add('legacy-group', 'info', t('Group {0} is the legacy name of {1}; it is read as {1}.', old, now), g.loc, this.file);
      }
    }
    const rr = this.model.groups.get('calico_rr');
    if (rr && rr.hosts.length) {
      this.rep.add('unsupported-group', 'info', t('calico_rr (Calico route reflectors) has no counterpart here; those hosts are imported only for their other groups.'), rr.loc, this.file);
    }
  }

  protected roles(h: AHost, hasEtcdGroup: boolean, clusterGroup: string | undefined): Role[] {
    const groups = this.groupsOf(h.name);
    const has = (names: string[]): boolean => names.some((n) => groups.has(n));
    const roles: Role[] = [];
    if (has(LOADBALANCER_GROUPS)) roles.push('loadbalancer');
    const cp = has(CONTROL_PLANE_GROUPS);
    if (cp) roles.push('control-plane');
    if (has(WORKER_GROUPS)) roles.push('worker');
    if (has(ETCD_GROUPS) && !cp) {
      roles.push('etcd');
      this.rep.add('external-etcd', 'warning', t('{0} is in etcd but not in kube_control_plane: this tool builds stacked etcd on the control-plane nodes only.', h.name), h.loc, this.file,
        t('With stacked etcd every control-plane node runs one etcd member; a separate etcd host is not set up.'));
    } else if (cp && hasEtcdGroup && !has(ETCD_GROUPS)) {
      this.rep.add('stacked-etcd', 'info', t('{0} is not in etcd but will run a stacked etcd member like every control-plane node.', h.name), h.loc, this.file);
    }
    if (clusterGroup && (cp || roles.includes('worker')) && !groups.has(clusterGroup)) {
      this.rep.add('outside-k8s-cluster', 'warning', t('{0} is not in {1}; Kubespray would not set it up, but it is imported for its roles.', h.name, clusterGroup), h.loc, this.file);
    }
    return roles;
  }

  // ---- variables ----

  protected effectiveVars(h: AHost): Map<string, Var> {
    const groups = [...this.groupsOf(h.name)].sort((a, b) => this.groupDepth(a) - this.groupDepth(b) || (a < b ? -1 : a > b ? 1 : 0));
    const out = new Map<string, Var>();
    for (const name of groups) {
      const g = this.model.groups.get(name);
      if (!g) continue;
      for (const [k, v] of g.vars) out.set(k, v);
      for (const [k, v] of g.fileVars) out.set(k, v);
    }
    for (const [k, v] of h.vars) out.set(k, v);
    return out;
  }

  protected clusterVars(h: AHost | undefined): Map<string, Var> {
    if (h) return this.effectiveVars(h);
    const out = new Map<string, Var>();
    const all = this.model.groups.get('all')!;
    for (const [k, v] of all.vars) out.set(k, v);
    for (const [k, v] of all.fileVars) out.set(k, v);
    return out;
  }
}
