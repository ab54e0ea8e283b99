/** The values of a keepalived.conf the VRRP rules and the pair analysis work on: instances, scripts, global settings. */
import { child, childrenNamed } from './parse';
import type { KeepalivedConfig, KNode, KToken } from './parse';

export interface VipEntry {
  token: KToken;
  address: string;
  prefix?: number;
  dev?: KToken;
  node: KNode;
}

export interface Instance {
  node: KNode;
  name: string;
  state?: KNode;
  priority?: KNode;
  vrid?: KNode;
  iface?: KNode;
  authType?: KNode;
  authPass?: KNode;
  vips: VipEntry[];
  tracks: KNode[];
  /** Effective values */
  stateValue?: string;
  priorityValue: number;
  vridValue?: number;
}

export interface Script {
  node: KNode;
  name: string;
  script?: KNode;
  weight?: KNode;
  weightValue: number;
}

export interface Summary {
  config: KeepalivedConfig;
  instances: Instance[];
  scripts: Map<string, Script>;
  globalDefs?: KNode;
  routerId?: string;
  strict: boolean;
}

export const int = (t: KToken | undefined): number | undefined => (t && /^-?\d+$/.test(t.text) ? Number(t.text) : undefined);

export function summarize(config: KeepalivedConfig): Summary {
  const top = config.nodes;
  const globalDefs = top.filter((n) => n.keyword.text === 'global_defs').pop();
  const s: Summary = { config, instances: [], scripts: new Map(), strict: !!globalDefs && !!child(globalDefs, 'vrrp_strict') };
  if (globalDefs) s.globalDefs = globalDefs;
  const rid = child(globalDefs, 'router_id')?.args[0]?.text;
  if (rid) s.routerId = rid;
  for (const n of top) {
    if (n.keyword.text === 'vrrp_script' && n.args[0]) {
      const sc: Script = { node: n, name: n.args[0].text, weightValue: 0 };
      const script = child(n, 'script');
      const weight = child(n, 'weight');
      if (script) sc.script = script;
      if (weight) {
        sc.weight = weight;
        sc.weightValue = int(weight.args[0]) ?? 0;
      }
      s.scripts.set(sc.name, sc);
    }
    if (n.keyword.text !== 'vrrp_instance') continue;
    const inst: Instance = { node: n, name: n.args[0]?.text ?? '', vips: [], tracks: [], priorityValue: 100 };
    const state = child(n, 'state');
    const priority = child(n, 'priority');
    const vrid = child(n, 'virtual_router_id');
    const iface = child(n, 'interface');
    const auth = child(n, 'authentication');
    if (state) {
      inst.state = state;
      const v = state.args[0]?.text;
      if (v) inst.stateValue = v;
    }
    if (vrid) {
      inst.vrid = vrid;
      const v = int(vrid.args[0]);
      if (v !== undefined) inst.vridValue = v;
    }
    if (iface) inst.iface = iface;
    const authType = child(auth, 'auth_type');
    const authPass = child(auth, 'auth_pass');
    if (authType) inst.authType = authType;
    if (authPass) inst.authPass = authPass;
    if (priority) inst.priority = priority;
    const p = int(priority?.args[0]);
    inst.priorityValue = p !== undefined && p >= 1 && p <= 255 ? p : inst.stateValue === 'MASTER' && !priority ? 255 : 100;
    for (const block of childrenNamed(n, 'virtual_ipaddress')) {
      for (const entry of block.children ?? []) {
        const m = /^([^/]+)(?:\/(\d+))?$/.exec(entry.keyword.text);
        const v: VipEntry = { token: entry.keyword, address: m?.[1] ?? entry.keyword.text, node: entry };
        if (m?.[2] !== undefined) v.prefix = Number(m[2]);
        const devAt = entry.args.findIndex((a) => a.text === 'dev');
        if (devAt >= 0 && entry.args[devAt + 1]) v.dev = entry.args[devAt + 1]!;
        inst.vips.push(v);
      }
    }
    for (const block of childrenNamed(n, 'track_script')) for (const t of block.children ?? []) inst.tracks.push(t);
    s.instances.push(inst);
  }
  return s;
}
