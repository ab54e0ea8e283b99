/**
 * A backup's manifest.json is input from a folder anyone with write access to it may have changed: it is read
 * through a schema (every field's type, range and pattern; no member the schema does not know), and then held
 * against what it describes — the snapshot beside it (size, SHA-256) and the inventory it is restored with
 * (cluster, and each etcd member a control-plane host of the inventory with that host's name and peer URL). The
 * restore never takes a member from the manifest: --initial-cluster is built from the inventory
 * (engine/restore.ts); a manifest that names another member is refused, so that whoever can write the folder cannot
 * add a member at an address of theirs, nor have the difference go unnoticed.
 */
import type { Inventory } from '../inventory/types';
import { hostsWithRole } from '../inventory/types';
import type { BackupManifest } from './snapshot';
import { errorMessage } from '../errors';
import { t } from '../l10n';

/** A manifest of a cluster with up to a few hundred members stays far below this; a larger file is not read. */
export const MAX_MANIFEST_BYTES = 256 * 1024;

type Check = (v: unknown, path: string, out: string[]) => void;

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return t('a list');
  if (typeof v === 'object') return t('an object');
  const shown = JSON.stringify(v).slice(0, 40);
  if (typeof v === 'string') return t('the string {0}', shown);
  if (typeof v === 'number') return t('the number {0}', shown);
  if (typeof v === 'boolean') return t('the boolean {0}', shown);
  return `${typeof v} ${shown}`;
}
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function str(pattern?: RegExp, what?: () => string, max = 256): Check {
  return (v, path, out) => {
    if (typeof v !== 'string') return void out.push(t('{0} is {1}, not a string', path, typeName(v)));
    if (v.length > max) return void out.push(t('{0} is {1} characters long (at most {2})', path, v.length, max));
    if (pattern ? !pattern.test(v) : CONTROL.test(v)) out.push(t('{0} {1} is not {2}', path, JSON.stringify(v.slice(0, 80)), what ? what() : t('plain text')));
  };
}
const text = (max: number): Check => (v, path, out) =>
  typeof v === 'string' && v.length <= max ? undefined : void out.push(typeof v === 'string' ? t('{0} is {1} characters long (at most {2})', path, v.length, max) : t('{0} is {1}, not a string', path, typeName(v)));
const int = (min: number, max = Number.MAX_SAFE_INTEGER): Check => (v, path, out) => (Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : void out.push(t('{0} is {1}, not a whole number from {2}', path, typeName(v), min)));
const bool: Check = (v, path, out) => (typeof v === 'boolean' ? undefined : void out.push(t('{0} is {1}, not true or false', path, typeName(v))));
const oneOf = (...values: unknown[]): Check => (v, path, out) => (values.includes(v) ? undefined : void out.push(t('{0} is {1}, not {2}', path, typeName(v), values.map((x) => JSON.stringify(x)).join(t(' or ')))));
function list(item: Check, max: number): Check {
  return (v, path, out) => {
    if (!Array.isArray(v)) return void out.push(t('{0} is {1}, not a list', path, typeName(v)));
    if (v.length > max) return void out.push(t('{0} has {1} entries (at most {2})', path, v.length, max));
    v.forEach((x, i) => item(x, `${path}[${i}]`, out));
  };
}
/** An object with exactly these members (`?` suffix: optional); anything else is named. */
function obj(fields: Record<string, Check>): Check {
  return (v, path, out) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return void out.push(t('{0} is {1}, not an object', path || t('the manifest'), typeName(v)));
    const o = v as Record<string, unknown>;
    const known = new Set(Object.keys(fields).map((k) => k.replace(/\?$/, '')));
    for (const k of Object.keys(o)) if (!known.has(k)) out.push(t('{0} is not a member of a backup manifest', `${path ? `${path}.` : ''}${JSON.stringify(k).slice(0, 60)}`));
    for (const [key, check] of Object.entries(fields)) {
      const name = key.replace(/\?$/, '');
      const at = path ? `${path}.${name}` : name;
      if (o[name] === undefined) {
        if (!key.endsWith('?')) out.push(t('{0} is missing', at));
      } else check(o[name], at, out);
    }
  };
}

// What each field must be, worded when a problem is written (the schema is built at load time, before a language is chosen).
const NAME = str(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, () => t('a host or member name'));
const MEMBER_ID = str(/^[0-9]{1,20}$|^[0-9a-f]{1,16}$/, () => t('an etcd member ID'));
const ETCD_URL = str(/^https?:\/\/[A-Za-z0-9.[\]:-]{1,253}:\d{1,5}$/, () => t('an etcd URL like https://10.3.60.51:2380'));
const SHA256 = str(/^[0-9a-f]{64}$/, () => t('a SHA-256 (64 hex digits)'));

const SCHEMA: Check = obj({
  kind: oneOf('kubeadm-workbench/etcd-backup'),
  version: oneOf(1),
  cluster: NAME,
  controlPlaneEndpoint: str(/^[A-Za-z0-9.[\]:-]{1,260}$/, () => 'host:port'),
  takenAt: str(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/, () => t('an ISO time like 2026-11-30T12:05:01.000Z')),
  durationMs: int(0),
  host: NAME,
  member: obj({ id: MEMBER_ID, name: NAME, wasLeader: bool }),
  'clusterId?': MEMBER_ID,
  'etcdVersion?': str(/^v?\d{1,3}\.\d{1,3}\.\d{1,5}[A-Za-z0-9.+-]{0,40}$/, () => t('a version')),
  members: list(obj({ id: MEMBER_ID, name: NAME, 'host?': NAME, peerURLs: list(ETCD_URL, 16), clientURLs: list(ETCD_URL, 16), isLearner: bool }), 255),
  'status?': obj({ hash: int(0), revision: int(0), totalKey: int(0), totalSize: int(0), 'version?': str(/^v?\d{1,3}\.\d{1,3}\.\d{1,5}[A-Za-z0-9.+-]{0,40}$/, () => t('a version')) }),
  statusFrom: str(),
  'revisionAtSave?': int(0),
  snapshot: obj({ file: oneOf('snapshot.db'), size: int(32), sha256: SHA256, trailer: oneOf('verified', 'absent') }),
  files: list(oneOf('etcd-ca.crt', 'cluster-configuration.yaml'), 2),
  // Warnings may quote a host's output: any text, shown escaped.
  warnings: list(text(2000), 64),
});

export type ManifestReading = { ok: true; manifest: BackupManifest } | { ok: false; problems: string[] };

/** The manifest's text, parsed and checked against the schema; every problem is listed (at most 12). */
export function readManifest(textOf: string): ManifestReading {
  let value: unknown;
  try {
    value = JSON.parse(textOf);
  } catch (e) {
    const why = errorMessage(e).replace(/\s+/g, ' ').slice(0, 160);
    return { ok: false, problems: [textOf.trim() === '' ? t('it is not valid JSON ({0}): the file is empty', why) : t('it is not valid JSON ({0})', why)] };
  }
  const problems: string[] = [];
  SCHEMA(value, '', problems);
  return problems.length ? { ok: false, problems: problems.slice(0, 12) } : { ok: true, manifest: value as BackupManifest };
}

/** What a restore recreates: the inventory's control-plane hosts, named as kubeadm names their members (the node's name). */
export interface InventoryMember {
  host: string;
  name: string;
  peerURL: string;
}

export function inventoryMembers(inv: Inventory): InventoryMember[] {
  return hostsWithRole(inv, 'control-plane').map((h) => ({ host: h.name, name: h.name, peerURL: `https://${h.address}:2380` }));
}

/**
 * The manifest against the snapshot that arrived (size, SHA-256, file name) and against the inventory. `refusals`
 * say what differs; `warnings` what a restore changes that is not wrong (a control-plane host that joined since).
 */
export function compareManifest(m: BackupManifest, snapshot: { name: string; size: number; sha256: string }, inv: Inventory): { refusals: string[]; warnings: string[] } {
  const refusals: string[] = [];
  const warnings: string[] = [];
  if (snapshot.name !== m.snapshot.file) refusals.push(t('it describes {0}, not {1}', m.snapshot.file, snapshot.name));
  if (snapshot.size !== m.snapshot.size) refusals.push(t('it gives the snapshot {0} bytes; {1} has {2}', m.snapshot.size, snapshot.name, snapshot.size));
  else if (snapshot.sha256 !== m.snapshot.sha256) refusals.push(t('it gives the snapshot the sha256 {0}; {1} has {2}', m.snapshot.sha256, snapshot.name, snapshot.sha256));
  // Another cluster's backup: its members differ from the inventory's as a matter of course, and listing each would
  // bury the one cause under them.
  if (m.cluster !== inv.cluster.name) return { refusals: [...refusals, t('the backup is of cluster "{0}", the inventory is "{1}"', m.cluster, inv.cluster.name)], warnings };
  const wanted = inventoryMembers(inv);
  for (const member of m.members) {
    const host = wanted.find((w) => w.name === member.name);
    const urls = member.peerURLs.join(', ');
    if (!host) refusals.push(t('member {0} ({1}) is not a control-plane host of the inventory ({2}); a backup taken before the control plane changed is restored with the inventory of that time', member.name, urls, wanted.map((w) => w.name).join(', ')));
    else if (member.peerURLs.length !== 1 || member.peerURLs[0] !== host.peerURL) refusals.push(t("member {0} has the peer URL {1}; the inventory's {2} is {3}", member.name, urls, host.host, host.peerURL));
  }
  for (const w of wanted) if (!m.members.some((x) => x.name === w.name)) warnings.push(t('{0} was not an etcd member when the backup was taken ({1}); it is restored as one', w.host, m.takenAt));
  return { refusals, warnings };
}
