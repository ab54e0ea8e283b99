/**
 * How a tree row looks, as data the rows' builders can make without VS Code: the theme colour ids of its icon, and a
 * Markdown tooltip. views/liveTree.ts turns them into VS Code's ThemeColor and MarkdownString; the builders (the
 * Backups and Certificates rows) stay plain functions that unit tests call.
 */
import { t } from '../core/l10n';
import { CommandIds } from '../editor/commandIds';
import type { LiveNode, Markdown } from '../editor/treeNodes';

export const OK = 'testing.iconPassed';
export const WARN = 'list.warningForeground';
export const ERR = 'list.errorForeground';
export const MUTED = 'disabledForeground';

/** A tooltip of paragraphs (its codicons `$(name)` rendered). */
export function md(lines: string[]): Markdown {
  return { markdown: lines.join('\n\n') };
}

/**
 * A host or node whose state could not be read: not a finding (muted, no count), the cause in a few words, the whole
 * error one click away in the log.
 */
export function notReadRow(o: { id: string; label: string; contextValue: string; headline: string; error: string }): LiveNode {
  return {
    id: o.id,
    label: o.label,
    description: t('not read: {0}', o.error),
    icon: 'debug-disconnect',
    color: MUTED,
    contextValue: o.contextValue,
    tooltip: md([o.headline, t('Cause: {0}', o.error), t('Click to show the log with the whole error.')]),
    command: { command: CommandIds.showLog, title: t('Show Log') },
  };
}

/**
 * The rows that replace a live view's tree when the cluster cannot be reached for a reason other than a missing
 * kubeconfig: the reason in plain words, then what to do (another context, or the same again).
 */
export function connectionProblemRows(reason: string): LiveNode[] {
  return [
    { id: 'problem:reason', label: t('Cannot connect to the cluster'), description: reason, tooltip: reason, icon: 'error', color: ERR, contextValue: 'connection-problem' },
    { id: 'problem:pick', label: t('Select Cluster Context…'), description: t('or browse for another kubeconfig file'), icon: 'server-environment', command: { command: CommandIds.selectClusterContext, title: t('Select Cluster Context') } },
    { id: 'problem:retry', label: t('Reconnect'), description: t('try the same context again'), icon: 'refresh', command: { command: CommandIds.reconnectCluster, title: t('Reconnect to Cluster') } },
  ];
}
