/**
 * What this machine's user wrote into a workspace's `.kubeadm-workbench/` carries an HMAC-SHA256 made with a key that
 * lives outside every workspace (src/adapters/fs/stateKey.ts: 0600 under $XDG_STATE_HOME, made once). A run ledger,
 * a host lock or the VRRP password that comes with a repository, or from another user or machine, has no valid
 * signature: it is shown and never acted on (a run is never resumed from it). The signed bytes are the canonical JSON
 * of the record (keys sorted at every level) after a label naming the kind of record, so a signature of one kind never
 * passes for another.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { t } from '../l10n';

export const SIGNATURE_PREFIX = 'hmac-sha256:';

/** JSON with the keys of every object sorted: the same value always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function signRecord(key: Uint8Array, kind: string, record: unknown): string {
  return SIGNATURE_PREFIX + createHmac('sha256', key).update(`kubeadm-workbench ${kind}\0`).update(canonicalJson(record)).digest('hex');
}

export function verifyRecord(key: Uint8Array, kind: string, record: unknown, signature: unknown): boolean {
  if (typeof signature !== 'string' || !signature.startsWith(SIGNATURE_PREFIX)) return false;
  const want = Buffer.from(signRecord(key, kind, record));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** Why a record is not acted on, in the words the user reads next to its file name. */
export function signatureProblem(key: Uint8Array, kind: string, record: unknown, signature: unknown): string | undefined {
  if (signature === undefined) return t('it is not signed: not written by kubeadm-workbench for this user on this machine (or by a version before signing)');
  if (!verifyRecord(key, kind, record, signature)) return t('its signature is not this user\'s on this machine: written elsewhere, or changed since');
  return undefined;
}
