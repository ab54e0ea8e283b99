/**
 * What "Kubeadm: Select Cluster Context" lists, without `vscode` (unit-tested in plain Node): the contexts of the
 * merged kubeconfig, then the ways out that always exist — browse for a kubeconfig file, open the setting, bring the
 * cluster up. When the kubeconfig cannot be read the title says why in plain words and the ways out remain, so the
 * command never ends in a toast that sends the user back to itself. The texts go through the core catalogue (this
 * file has no `vscode`), filled with the editor's display language at activation (editor/language.ts).
 */
import type { KubeconfigChoice } from '../adapters/kube/index';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import { plainWords } from '../core/text/plainWords';
import { t } from '../core/l10n';

export type PickAction = { kind: 'context'; name: string } | { kind: 'browse' } | { kind: 'settings' } | { kind: 'bringUp' };

export interface PickEntry {
  label: string;
  description?: string;
  detail?: string;
  /** A separator row above this entry's group. */
  separator?: boolean;
  picked?: boolean;
  action?: PickAction;
}

export interface PickModel {
  title: string;
  placeholder: string;
  entries: PickEntry[];
}

/** The browse row's label, in the display language. */
export function browseLabel(): string {
  return `$(folder-opened) ${t('Browse for a kubeconfig file…')}`;
}

/**
 * @param loaded the merged kubeconfig, or why it could not be read (`missing` when no file exists at all)
 * @param selected the context remembered for this workspace
 * @param endpoint the inventory's controlPlaneEndpoint (the VIP), to point at the context that matches it
 */
export function contextPickModel(loaded: { choice: KubeconfigChoice } | { error: string; missing: boolean; looked: string[] }, selected: string | undefined, endpoint: string | undefined): PickModel {
  const ways: PickEntry[] = [
    { label: t('Ways to a cluster'), separator: true },
    { label: browseLabel(), detail: t('Use a kubeconfig file from anywhere on this machine (saved as the kubeadmWorkbench.kubeconfig user setting)'), action: { kind: 'browse' } },
    { label: `$(settings-gear) ${t('Open Settings')}`, description: 'kubeadmWorkbench.kubeconfig', action: { kind: 'settings' } },
    { label: `$(rocket) ${t('Bring Up Cluster…')}`, description: t('from inventory.yaml over SSH; it saves the admin kubeconfig'), action: { kind: 'bringUp' } },
  ];
  if ('error' in loaded) {
    const title = loaded.missing ? t('No kubeconfig file found (looked at {0})', loaded.looked.join(', ')) : t('The kubeconfig cannot be read: {0}', plainWords(loaded.error));
    return { title, placeholder: t('Browse for a kubeconfig file, set one in Settings, or bring the cluster up'), entries: ways.slice(1) };
  }
  const { choice } = loaded;
  const active = selected ?? choice.current;
  const contexts: PickEntry[] = choice.contexts.map((c) => {
    const notes = [c.name === choice.current ? 'current-context' : undefined, endpoint && serverMatchesEndpoint(c.server, endpoint) ? t("the inventory's controlPlaneEndpoint") : undefined].filter(Boolean);
    return {
      label: `${c.name === active ? '$(check)' : '$(server)'} ${c.name}`,
      description: c.server ?? '',
      detail: `${t('cluster {0} · user {1}', c.cluster, c.user)}${notes.length ? ` · ${notes.join(' · ')}` : ''}`,
      picked: c.name === active,
      action: { kind: 'context', name: c.name },
    };
  });
  return {
    title: t('Cluster context ({0})', choice.paths.join(', ')),
    placeholder: contexts.length ? t('The API server of a kubeadm HA cluster is its VIP (controlPlaneEndpoint)') : t('This kubeconfig has no contexts: browse for another one'),
    entries: [...contexts, ...ways],
  };
}
