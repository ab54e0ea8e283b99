/**
 * Puts the new cluster's admin.conf into the user's kubeconfig the way an administrator would:
 * a new cluster/user/context named after the cluster (never overwriting another cluster's
 * entries silently), the file written 0600, and never inside the workspace's repository unless
 * explicitly asked — admin.conf holds a client key with cluster-admin rights.
 */
import { dirname, relative, isAbsolute } from 'node:path';
import { ensureRealFolder, lookAt, readRegularText, replaceFile } from '../adapters/fs/safeFile';
import { realPathOf } from '../adapters/fs/gitTree';
import { parse, stringify } from 'yaml';
import { t } from '../core/l10n';

interface Named<T> {
  name: string;
  [key: string]: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}

interface KubeconfigDoc {
  apiVersion?: string;
  kind?: string;
  clusters?: Named<Record<string, unknown>>[];
  users?: Named<Record<string, unknown>>[];
  contexts?: Named<{ cluster: string; user: string; namespace?: string }>[];
  'current-context'?: string;
  preferences?: Record<string, unknown>;
}

export interface MergeResult {
  text: string;
  context: string;
}

/** Merges admin.conf into an existing kubeconfig text (or an empty one) under `clusterName`. */
export function mergeAdminKubeconfig(existing: string | undefined, adminConf: string, clusterName: string): MergeResult {
  const admin = parse(adminConf) as KubeconfigDoc;
  const cluster = admin.clusters?.[0]?.cluster;
  const user = admin.users?.[0]?.user;
  if (!cluster || !user) throw new Error(t('admin.conf has no cluster or user'));
  const target: KubeconfigDoc = (existing?.trim() ? (parse(existing) as KubeconfigDoc) : undefined) ?? {};
  const userName = `${clusterName}-admin`;
  const context = `${userName}@${clusterName}`;
  const upsert = <T>(list: Named<T>[] | undefined, entry: Named<T>): Named<T>[] => [...(list ?? []).filter((e) => e.name !== entry.name), entry];
  const merged: KubeconfigDoc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: target.preferences ?? {},
    ...target,
    clusters: upsert(target.clusters, { name: clusterName, cluster }),
    users: upsert(target.users, { name: userName, user }),
    contexts: upsert(target.contexts, { name: context, context: { cluster: clusterName, user: userName } }),
    'current-context': target['current-context'] || context,
  };
  return { text: stringify(merged), context };
}

/** Refuses a path inside `workspaceDir` unless `allowInWorkspace` — by real paths: a link into the workspace counts as inside. */
export async function checkKubeconfigTarget(path: string, workspaceDir: string, allowInWorkspace: boolean): Promise<void> {
  const rel = relative((await realPathOf(workspaceDir)).real, (await realPathOf(path)).real);
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  if (inside && !allowInWorkspace) {
    throw new Error(t('refusing to write the cluster\'s admin credentials into the workspace ({0}); choose a kubeconfig outside it, or allow it explicitly', path));
  }
}

export async function saveAdminKubeconfig(path: string, adminConf: string, clusterName: string): Promise<string> {
  // An existing kubeconfig is merged into; one that is a link, a FIFO or another user's is refused (never written through).
  const existing = (await lookAt(path)) ? await readRegularText(path, { maxBytes: 16 * 1024 * 1024, noFollow: true, mine: true }) : undefined;
  const { text, context } = mergeAdminKubeconfig(existing, adminConf, clusterName);
  await ensureRealFolder(dirname(path), { mode: 0o700, recursive: true, allowLink: true });
  // A unique temp file renamed over it: the file is whole or absent, and 0600 from its first byte.
  await replaceFile(path, text, { mode: 0o600 });
  return context;
}
