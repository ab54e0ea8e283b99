/**
 * The rows of the editor's tree views as data: the Inventory view's nodes and the live views' nodes. They are
 * what a tree passes to a command run from its context menu, so commands and views both import them from here.
 */
import type * as vscode from 'vscode';
import type { Finding } from '../core/findings';
import type { HostSpec, Role } from '../core/inventory/types';

export interface GroupDef {
  role: Role;
  label: string;
  icon: string;
}

export type InventoryNode =
  | { kind: 'group'; group: GroupDef; hosts: HostSpec[]; stale?: boolean }
  | { kind: 'host'; host: HostSpec; role: Role; stale?: boolean }
  | { kind: 'problem'; errors: number; first?: Finding; uri?: vscode.Uri; stale: boolean }
  | { kind: 'live'; node: LiveNode };

/** A Markdown tooltip as data (views/rowLook.ts makes them; views/liveTree.ts hands them to VS Code). */
export interface Markdown {
  readonly markdown: string;
}

export interface LiveNode {
  id: string;
  label: string;
  description?: string;
  tooltip?: string | Markdown;
  icon?: string;
  color?: string;
  contextValue?: string;
  expanded?: boolean;
  children?: LiveNode[];
  command?: vscode.Command;
  /** The file or folder the row stands for (a backup's folder), for its context-menu commands. */
  path?: string;
}
