/** Sets the context keys of contextKeyIds.ts — the one place a context key is set. */
import * as vscode from 'vscode';
import { ContextKeys } from './contextKeyIds';

export type ContextKey = keyof typeof ContextKeys;
type ValueOf<K extends ContextKey> = (typeof ContextKeys)[K]['values'][number];

export function setContextKey<K extends ContextKey>(name: K, value: ValueOf<K>): void {
  void vscode.commands.executeCommand('setContext', ContextKeys[name].key, value);
}
