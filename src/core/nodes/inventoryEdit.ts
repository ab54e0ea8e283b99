/**
 * The inventory.yaml edit a remove or a replace offers: the same text with the host's entry taken out (or its
 * name and address changed to the new host's), every other byte as it was — comments, flow or block style,
 * spacing. The YAML Document API finds the entry and its scalars' source ranges; the edit is made on the text
 * at those ranges, so nothing is re-rendered. The caller shows the diff and writes only when the user says so.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node, type YAMLMap } from 'yaml';
import { scalar } from '../inventory/serialize';
import { t } from '../l10n';

export class InventoryEditError extends Error {}

interface Located {
  text: string;
  item: YAMLMap;
  /** Every host entry, in order. */
  items: YAMLMap[];
}

function locate(text: string, host: string): Located {
  const doc = parseDocument(text, { prettyErrors: false, keepSourceTokens: false });
  if (doc.errors.length) throw new InventoryEditError(t('inventory.yaml does not parse: {0}', doc.errors[0]!.message));
  const hosts = isMap(doc.contents) ? doc.contents.get('hosts', true) : undefined;
  if (!isSeq(hosts)) throw new InventoryEditError(t('inventory.yaml has no hosts list'));
  const items = hosts.items.filter((i): i is YAMLMap => isMap(i));
  const item = items.find((i) => {
    const n = i.get('name', true);
    return isScalar(n) && n.value === host;
  });
  if (!item) throw new InventoryEditError(t('{0} is not a host of inventory.yaml', host));
  return { text, item, items };
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const i = text.indexOf('\n', at);
  return i < 0 ? text.length : i + 1;
}

/** The host's entry removed: its lines (from its `- ` to the end of its last line, a trailing comment included). */
export function removeHostText(text: string, host: string): string {
  const { item } = locate(text, host);
  const [start, , end] = item.range!;
  const from = lineStart(text, start);
  const before = text.slice(from, start);
  // Only when the entry has its lines to itself (`  - {...}` or a block map under `- `): else the text is unusual enough to refuse.
  if (!/^\s*-\s*$/.test(before)) throw new InventoryEditError(t('{0}\'s entry shares its line with something else; edit inventory.yaml by hand', host));
  // The line holding the entry's last character (a block entry's range already ends after its newline).
  const endOfEntry = lineEnd(text, Math.max(start, end - 1));
  const after = text.slice(end, endOfEntry);
  if (after.trim() && !after.trim().startsWith('#')) throw new InventoryEditError(t('{0}\'s entry shares its line with something else; edit inventory.yaml by hand', host));
  return text.slice(0, from) + text.slice(endOfEntry);
}

function scalarRange(item: YAMLMap, key: string): [number, number] {
  const n = item.get(key, true) as Node | undefined;
  if (!isScalar(n) || !n.range) throw new InventoryEditError(t('the host entry has no {0} to change', key));
  return [n.range[0], n.range[1]];
}

/**
 * The old host's entry with the new name and address (roles, labels, SSH and VRRP settings kept: the new host
 * takes the old one's place). A spare entry of the new host elsewhere in the file is taken out.
 */
export function replaceHostText(text: string, oldHost: string, newHost: { name: string; address: string }): string {
  let out = text;
  const spare = locate(out, oldHost).items.some((i) => {
    const n = i.get('name', true);
    return isScalar(n) && n.value === newHost.name;
  });
  if (spare && newHost.name !== oldHost) out = removeHostText(out, newHost.name);
  const { item } = locate(out, oldHost);
  const flow = (item as YAMLMap & { flow?: boolean }).flow === true;
  // Later ranges first, so the earlier ones stay valid.
  const edits = [
    { range: scalarRange(item, 'name'), value: scalar(newHost.name, flow) },
    { range: scalarRange(item, 'address'), value: scalar(newHost.address, flow) },
  ].sort((a, b) => b.range[0] - a.range[0]);
  for (const e of edits) out = out.slice(0, e.range[0]) + e.value + out.slice(e.range[1]);
  return out;
}

/** A unified-style diff of two texts by lines (the edit is a few lines: no need for an LCS beyond prefix and suffix). */
export function lineDiff(before: string, after: string, path = 'inventory.yaml'): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ctx = 2;
  const from = Math.max(0, head - ctx);
  const out = [`--- ${path}`, `+++ ${path} (edited)`, `@@ -${from + 1} +${from + 1} @@`];
  for (let i = from; i < head; i++) out.push(` ${a[i]}`);
  for (let i = head; i < a.length - tail; i++) out.push(`-${a[i]}`);
  for (let i = head; i < b.length - tail; i++) out.push(`+${b[i]}`);
  for (let i = a.length - tail; i < Math.min(a.length, a.length - tail + ctx); i++) out.push(` ${a[i]}`);
  return out.join('\n') + '\n';
}
