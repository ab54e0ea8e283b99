/**
 * Reading a YAML inventory and group_vars files into Ansible's model.
 */
import { isMap, isScalar, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml';
import { LineIndex, ZERO_RANGE } from '../findings';
import type { AnsibleGroupVarsFile } from './ansible';
import { expandHostPattern } from './ansibleIni';
import { type Loc, Model, Reporter, type Var } from './ansibleModel';
import { t } from '../l10n';

// ---------------------------------------------------------------------------------------------
// YAML

export function nodeLoc(node: Node | null | undefined, lines: LineIndex, file: string, fallback?: Loc): Loc {
  const r = node?.range;
  if (!r) return fallback ?? { file, range: ZERO_RANGE };
  return { file, range: lines.range(r[0], r[1]) };
}

export function yamlValue(node: Node | null | undefined): unknown {
  if (!node) return null;
  if (isScalar(node)) return node.value;
  return (node as { toJSON(): unknown }).toJSON();
}

export function readYaml(text: string, file: string, model: Model, rep: Reporter): void {
  const lines = new LineIndex(text);
  const doc = parseDocument(text, { version: '1.1', prettyErrors: false });
  for (const err of doc.errors) {
    rep.add('yaml-syntax', 'error', err.message.split('\n')[0]!.trim(), { file, range: lines.range(err.pos[0], Math.max(err.pos[1], err.pos[0] + 1)) }, file);
  }
  const root = doc.contents as Node | null;
  if (root === null || (isScalar(root) && root.value === null)) {
    if (!doc.errors.length) rep.add('empty', 'error', t('The inventory is empty.'), undefined, file);
    return;
  }
  if (!isMap(root)) {
    rep.add('yaml-structure', 'error', t('A YAML inventory is a mapping of groups, usually `all: { hosts, children, vars }`.'), nodeLoc(root, lines, file), file);
    return;
  }
  const readGroup = (name: string, node: Node | null, keyLoc: Loc): void => {
    model.group(name, keyLoc);
    if (node === null || (isScalar(node) && node.value === null)) return;
    if (!isMap(node)) {
      rep.add('yaml-structure', 'error', t('Group {0} must be a mapping of hosts, children and vars.', name), nodeLoc(node, lines, file, keyLoc), file);
      return;
    }
    for (const pair of node.items as Pair<Node, Node | null>[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const kLoc = nodeLoc(pair.key, lines, file, keyLoc);
      const value = pair.value;
      const empty = value === null || (isScalar(value) && value.value === null);
      if (key === 'hosts') {
        if (empty) continue;
        if (!isMap(value)) {
          rep.add('yaml-structure', 'error', t('{0}.hosts must be a mapping of host names (a list is not accepted by Ansible).', name), nodeLoc(value, lines, file, kLoc), file);
          continue;
        }
        for (const hp of value.items as Pair<Node, Node | null>[]) {
          const pattern = isScalar(hp.key) ? String(hp.key.value) : '';
          const hLoc = nodeLoc(hp.key, lines, file, kLoc);
          const hv = hp.value;
          const vars: Var[] = [];
          if (hv !== null && !(isScalar(hv) && hv.value === null)) {
            if (isMap(hv)) vars.push(...mapVars(hv, lines, file, true));
            else rep.add('yaml-structure', 'error', t('Host {0} must map to its variables (or nothing).', pattern), nodeLoc(hv, lines, file, hLoc), file);
          }
          for (const hostName of expandHostPattern(pattern, hLoc, rep)) {
            const host = model.host(hostName, hLoc);
            for (const v of vars) host.vars.set(v.key, v);
            model.addHostToGroup(name, hostName);
          }
        }
      } else if (key === 'children') {
        if (empty) continue;
        if (!isMap(value)) {
          rep.add('yaml-structure', 'error', t('{0}.children must be a mapping of group names.', name), nodeLoc(value, lines, file, kLoc), file);
          continue;
        }
        for (const cp of value.items as Pair<Node, Node | null>[]) {
          const child = isScalar(cp.key) ? String(cp.key.value) : '';
          const cLoc = nodeLoc(cp.key, lines, file, kLoc);
          model.addChild(name, child, cLoc);
          readGroup(child, cp.value, cLoc);
        }
      } else if (key === 'vars') {
        if (empty) continue;
        if (!isMap(value)) {
          rep.add('yaml-structure', 'error', t('{0}.vars must be a mapping.', name), nodeLoc(value, lines, file, kLoc), file);
          continue;
        }
        const g = model.group(name);
        for (const v of mapVars(value, lines, file, true)) g.vars.set(v.key, v);
      } else {
        rep.add('yaml-structure', 'warning', t('Unexpected key "{0}" in group {1}: Ansible only reads hosts, children and vars.', key, name), kLoc, file);
      }
    }
  };
  for (const pair of root.items as Pair<Node, Node | null>[]) {
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    const kLoc = nodeLoc(pair.key, lines, file);
    if (name !== 'all') model.addChild('all', name, kLoc);
    readGroup(name, pair.value, kLoc);
  }
}

export function mapVars(map: YAMLMap, lines: LineIndex, file: string, inInventory: boolean): Var[] {
  const out: Var[] = [];
  for (const pair of map.items as Pair<Node, Node | null>[]) {
    if (!isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    const keyLoc = nodeLoc(pair.key, lines, file);
    out.push({ key, value: yamlValue(pair.value), loc: pair.value ? nodeLoc(pair.value, lines, file, keyLoc) : keyLoc, inInventory });
  }
  return out;
}

export function readGroupVars(gv: AnsibleGroupVarsFile, model: Model, rep: Reporter): void {
  const lines = new LineIndex(gv.text);
  const doc = parseDocument(gv.text, { version: '1.1', prettyErrors: false });
  for (const err of doc.errors) {
    rep.add('yaml-syntax', 'error', err.message.split('\n')[0]!.trim(), { file: gv.fileName, range: lines.range(err.pos[0], Math.max(err.pos[1], err.pos[0] + 1)) }, gv.fileName);
  }
  const root = doc.contents as Node | null;
  if (root === null || (isScalar(root) && root.value === null)) return;
  if (!isMap(root)) {
    rep.add('yaml-structure', 'error', t('A group_vars file is a mapping of variables.'), nodeLoc(root, lines, gv.fileName), gv.fileName);
    return;
  }
  const g = model.group(gv.group);
  for (const v of mapVars(root, lines, gv.fileName, false)) g.fileVars.set(v.key, v);
}
