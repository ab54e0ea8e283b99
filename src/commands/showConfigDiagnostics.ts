import type { Scope } from '../webviews/protocol/diagnostics';
import { DiagnosticsPanel } from '../webviews/diagnosticsPanel';
import { defineCommand } from './context';

/**
 * Opens the Diagnostics webview. From a menu the argument is the file's URI (the panel follows the
 * active editor anyway); `'workspace'` or `'file'` picks the scope.
 */
export const showConfigDiagnostics = defineCommand({}, (ctx) => {
  return (arg?: unknown): DiagnosticsPanel => {
    const scope: Scope | undefined = arg === 'workspace' || arg === 'file' ? arg : undefined;
    return DiagnosticsPanel.show(ctx.extension.extensionUri, ctx.configDiagnostics, ctx.inventory, scope);
  };
});
