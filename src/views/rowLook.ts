/**
 * How a tree row looks, as data the rows' builders can make without VS Code: the theme colour ids of its icon, and a
 * Markdown tooltip. views/liveTree.ts turns them into VS Code's ThemeColor and MarkdownString; the builders (the
 * Backups and Certificates rows) stay plain functions that unit tests call.
 */
import type { Markdown } from '../editor/treeNodes';

export const OK = 'testing.iconPassed';
export const WARN = 'list.warningForeground';
export const ERR = 'list.errorForeground';
export const MUTED = 'disabledForeground';

/** A tooltip of paragraphs (its codicons `$(name)` rendered). */
export function md(lines: string[]): Markdown {
  return { markdown: lines.join('\n\n') };
}
