/**
 * The core catalogue in the editor's display language: VS Code reads `l10n/bundle.l10n.<language>.json` itself
 * (package.json `"l10n"`) and hands it over as `vscode.l10n.bundle`; the core (lint messages, rule titles and
 * whys), which cannot import vscode, gets the same messages here, and the lint worker gets them from it when it
 * starts (engine/lintRunner.ts). English — no bundle — costs nothing: the English text is the key.
 */
import * as vscode from 'vscode';
import { useMessages } from '../core/l10n';
import { log } from './log';

export function useEditorLanguage(): void {
  const bundle = vscode.l10n.bundle;
  if (!bundle) return;
  const problems = useMessages(vscode.env.language, bundle);
  // our own file, so a problem is a packaging bug: those messages stay English, and the log names them
  if (problems.length) log.warn(`${problems.length} ${vscode.env.language} message(s) of the bundle are not used and show in English: ${problems.slice(0, 5).map((p) => `${p.key === undefined ? 'the bundle' : JSON.stringify(p.key.slice(0, 60))}: ${p.problem}`).join('; ')}`);
}
