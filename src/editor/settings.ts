/**
 * The one way the extension reads its settings: typed, validated, and from the scope the setting has
 * (src/editor/settingDefs.ts). Folder settings need the folder they are read for; window settings take none,
 * so a setting cannot be read per folder in one place and per window in another.
 */
import * as vscode from 'vscode';
import { SETTINGS, type FolderSetting, type SettingName, type SettingValue } from './settingDefs';

export const SECTION = 'kubeadmWorkbench';

type WindowSetting = Exclude<SettingName, FolderSetting>;

export function setting<K extends WindowSetting>(name: K): SettingValue<K>;
export function setting<K extends FolderSetting>(name: K, folder: vscode.Uri | vscode.WorkspaceFolder | undefined): SettingValue<K>;
export function setting<K extends SettingName>(name: K, folder?: vscode.Uri | vscode.WorkspaceFolder): SettingValue<K> {
  const d = SETTINGS[name];
  // In an untrusted workspace VS Code answers the restricted settings from the user's own settings only.
  const raw = vscode.workspace.getConfiguration(SECTION, d.per === 'folder' ? folder : undefined).get<unknown>(d.key);
  return d.read(raw) as SettingValue<K>;
}

/** The full id, for messages and "Open Settings" (kubeadmWorkbench.drill…). */
export function settingId(name: SettingName): string {
  return `${SECTION}.${SETTINGS[name].key}`;
}

/** Whether a configuration change touches the setting. */
export function affects(e: vscode.ConfigurationChangeEvent, name: SettingName): boolean {
  return e.affectsConfiguration(settingId(name));
}

/** Writes a setting to the user's settings (what "Browse for a kubeconfig file…" does). */
export async function updateUserSetting<K extends SettingName>(name: K, value: SettingValue<K>): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update(SETTINGS[name].key, value, vscode.ConfigurationTarget.Global);
}
