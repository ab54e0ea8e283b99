/**
 * Every setting of the extension, typed, with where it is read from and what a bad value becomes. Settings may be
 * hostile (a cloned repository's .vscode/settings.json): a value of the wrong type or out of range reads as the
 * default, as package.json's schema would have it. No `vscode` here, so a unit test checks this table against
 * package.json's `contributes.configuration` in both directions; src/editor/settings.ts reads through it.
 *
 * `per`: 'folder' settings are read for the workspace folder of the inventory (paths in them are relative to that
 * folder); 'window' settings have one value per window. kubeadmWorkbench.kubeconfig is per window although VS Code
 * would allow a folder value: the live views hold one cluster connection per window, and bring-up, renewal and
 * inspection must write to and read from the same kubeconfig that connection uses.
 */

import { DEFAULT_THRESHOLDS } from '../core/certs/thresholds';
import { DEFAULT_LINT_TIMEOUT_MS } from '../engine/lintRunner';

export type ManifestScope = 'resource' | 'machine-overridable' | 'machine' | 'window';

export interface SettingDef<T> {
  /** The key under `kubeadmWorkbench.`. */
  key: string;
  /** The scope package.json declares (`window` when it declares none). */
  scope: ManifestScope;
  per: 'folder' | 'window';
  default: T;
  /** The typed value of a raw one, or the default. */
  read(raw: unknown): T;
}

const text = (fallback: string, trim = false) => (raw: unknown): string => (typeof raw === 'string' ? (trim ? raw.trim() : raw) : fallback);
const number = (fallback: number, min: number, max: number) => (raw: unknown): number =>
  typeof raw === 'number' && Number.isFinite(raw) && raw >= min && raw <= max ? raw : fallback;

function def<T, P extends 'folder' | 'window'>(key: string, scope: ManifestScope, per: P, fallback: T, read: (raw: unknown) => T): SettingDef<T> & { per: P } {
  return { key, scope, per, default: fallback, read };
}

export const SETTINGS = {
  /** Empty means the default too (as before: `|| 'inventory.yaml'`). */
  inventoryFile: def('inventoryFile', 'resource', 'folder', 'inventory.yaml', (raw) => text('')(raw) || 'inventory.yaml'),
  kubeconfig: def('kubeconfig', 'machine-overridable', 'window', '', text('')),
  sshConfigFile: def('sshConfigFile', 'machine-overridable', 'folder', '', text('', true)),
  knownHostsFile: def('knownHostsFile', 'machine-overridable', 'folder', '', text('', true)),
  backupFolder: def('backup.folder', 'window', 'window', '', text('', true)),
  certificateWarningDays: def('certificates.warningDays', 'window', 'window', DEFAULT_THRESHOLDS.warningDays, number(DEFAULT_THRESHOLDS.warningDays, 1, 3650)),
  certificateErrorDays: def('certificates.errorDays', 'window', 'window', DEFAULT_THRESHOLDS.errorDays, number(DEFAULT_THRESHOLDS.errorDays, 0, 3650)),
  maxParallelHosts: def('maxParallelHosts', 'window', 'window', 10, number(10, 1, 64)),
  drillPowerOffCommand: def('drill.powerOffCommand', 'machine', 'window', '', text('', true)),
  drillPowerOnCommand: def('drill.powerOnCommand', 'machine', 'window', '', text('', true)),
  drillCutCommand: def('drill.cutCommand', 'machine', 'window', '', text('', true)),
  drillHealCommand: def('drill.healCommand', 'machine', 'window', '', text('', true)),
  lintTimeoutMs: def('lint.timeoutMs', 'window', 'window', DEFAULT_LINT_TIMEOUT_MS, number(DEFAULT_LINT_TIMEOUT_MS, 50, 60000)),
  containerdLayout: def('generate.containerdLayout', 'window', 'window', 2 as 2 | 3, (raw): 2 | 3 => (raw === 3 ? 3 : 2)),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<K extends SettingName> = (typeof SETTINGS)[K]['default'];
export type FolderSetting = { [K in SettingName]: (typeof SETTINGS)[K]['per'] extends 'folder' ? K : never }[SettingName];
