/** Converts core findings into editor diagnostics; the `why` and docs link travel with them. */
import * as vscode from 'vscode';
import type { Finding, Range } from '../core/findings';
import { plainWords } from '../core/text/plainWords';

export function toRange(range: Range): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

const SEVERITY: Record<Finding['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export function toDiagnostic(finding: Finding): vscode.Diagnostic {
  // The Problems panel shows text verbatim: no Markdown backticks.
  const message = plainWords(finding.why ? `${finding.message}\n${finding.why}` : finding.message);
  const diagnostic = new vscode.Diagnostic(toRange(finding.range), message, SEVERITY[finding.severity]);
  diagnostic.source = 'kubeadm-workbench';
  diagnostic.code = finding.docs ? { value: finding.rule, target: vscode.Uri.parse(finding.docs) } : finding.rule;
  return diagnostic;
}
