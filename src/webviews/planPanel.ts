/**
 * The bring-up plan as a webview: phases → hosts → steps, commands wrapped and foldable, secrets *** (the model is
 * src/core/plan/view.ts, the same one `plan --format json` prints), a Copy button per command. One panel at a time;
 * showing another plan replaces its content. Nothing in it runs anything.
 */
import * as vscode from 'vscode';
import type { PlanView } from '../core/plan/view';
import { createPanel, PanelHost } from './panelHost';
import { planHtml, planShellTexts } from './planHtml';
import { parseWebviewMessage, type CopyField, type HostToWebview, type PlanStrings, type WebviewToHost } from './protocol/plan';

/** The plan webview's words in the display language (l10n/bundle.l10n.<language>.json), sent with the plan. */
function planStrings(): PlanStrings {
  return {
    copy: vscode.l10n.t('Copy'),
    copyTitle: vscode.l10n.t('Copy to the clipboard'),
    copyAria: vscode.l10n.t('Copy the {0} command of {1}'),
    labels: { skipIf: vscode.l10n.t('skip if'), run: vscode.l10n.t('run'), verify: vscode.l10n.t('verify') },
    about: vscode.l10n.t(' (about {0})'),
    skippedEarlier: vscode.l10n.t('Skipped when an earlier step of this run already did it.'),
    write: vscode.l10n.t('write '),
    mode: vscode.l10n.t(' (mode {0}{1})'),
    secret: vscode.l10n.t(', secret content: not shown'),
    lines: { one: vscode.l10n.t('1 line'), many: vscode.l10n.t('{0} lines') },
    inEditor: vscode.l10n.t('In the editor: {0}'),
    parallel: vscode.l10n.t('hosts in parallel'),
    inOrder: vscode.l10n.t('in this order'),
    besidePrevious: vscode.l10n.t(', beside the phase above'),
    beside: vscode.l10n.t(', beside {0}'),
    steps: { one: vscode.l10n.t('1 step'), many: vscode.l10n.t('{0} steps') },
    phases: { one: vscode.l10n.t('1 phase'), many: vscode.l10n.t('{0} phases') },
    hosts: { one: vscode.l10n.t('1 host'), many: vscode.l10n.t('{0} hosts') },
    summary: vscode.l10n.t('{0}, {1} on {2}; nothing runs from here'),
  };
}

export class PlanPanel extends PanelHost<WebviewToHost, HostToWebview> {
  static readonly viewType = 'kubeadm.plan';
  private static current: PlanPanel | undefined;
  /** The last text copied (for the extension-host tests; the clipboard of a browser client is not readable there). */
  lastCopied: string | undefined;

  static show(extensionUri: vscode.Uri, title: string, view: PlanView): PlanPanel {
    const existing = PlanPanel.current;
    if (existing) {
      existing.setPlan(title, view);
      existing.panel.reveal(undefined, false);
      return existing;
    }
    PlanPanel.current = new PlanPanel(extensionUri, title, view);
    return PlanPanel.current;
  }

  /** The open panel, if any (tests). */
  static get instance(): PlanPanel | undefined {
    return PlanPanel.current;
  }

  private constructor(
    extensionUri: vscode.Uri,
    private title: string,
    private view: PlanView,
  ) {
    super(createPanel(PlanPanel.viewType, title, vscode.ViewColumn.Active, extensionUri), extensionUri, parseWebviewMessage);
    this.panel.webview.html = planHtml({ ...this.shell('plan'), title, texts: planShellTexts(vscode.env.language) });
  }

  get planView(): PlanView {
    return this.view;
  }

  setPlan(title: string, view: PlanView): void {
    this.title = title;
    this.view = view;
    this.panel.title = title;
    this.post({ type: 'plan', title, view, strings: planStrings() });
  }

  protected async onMessage(msg: WebviewToHost): Promise<void> {
    if (msg.type === 'ready') this.post({ type: 'plan', title: this.title, view: this.view, strings: planStrings() });
    else await this.copy(msg.stepId, msg.field);
  }

  /** Copies one command of one step, exactly as shown (secrets stay ***). */
  async copy(stepId: string, field: CopyField): Promise<string | undefined> {
    const step = this.view.phases.flatMap((p) => p.hosts.flatMap((h) => h.steps)).find((s) => s.id === stepId);
    const text = step?.[field];
    if (!step || !text) return undefined;
    await vscode.env.clipboard.writeText(text);
    this.lastCopied = text;
    const what = { skipIf: vscode.l10n.t('Copied the skip-if check of "{0}".', step.title), run: vscode.l10n.t('Copied the command of "{0}".', step.title), verify: vscode.l10n.t('Copied the verification of "{0}".', step.title) };
    this.post({ type: 'status', text: what[field] });
    return text;
  }

  protected override onDispose(): void {
    if (PlanPanel.current === this) PlanPanel.current = undefined;
  }
}
