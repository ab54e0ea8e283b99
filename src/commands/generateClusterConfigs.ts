import * as vscode from 'vscode';
import { dirname } from 'node:path';
import type * as Inputs from '../engine/inputs';
import { VRRP_PASS_PLACEHOLDER } from '../core/generate/keepalived';
import { planWrites, readGeneratedTarget, writeGeneratedFiles, type PlannedWrite } from '../engine/generatePlan';
import { readLocalText } from '../engine/workspaceFiles';
import { defineCommand } from './context';
import { CommandIds } from '../editor/commandIds';
import { setting } from '../editor/settings';
import { editorUi } from '../editor/vscodeUi';
import type { Ui } from '../engine/workflows/ui';

const DEFAULT_FOLDER = 'generated';

/**
 * "Generate Cluster Configs from Inventory": shows the files it will write into a folder (default
 * `generated/` next to the inventory's workspace folder), asks before overwriting files that differ,
 * writes them and opens them.
 */
export const generateClusterConfigs = defineCommand({}, (ctx) => {
  /** `options` (for tests and automation) skips the questions: every file into `folder`, overwriting. */
  return async (options?: unknown): Promise<vscode.Uri[] | undefined> => {
    const unattended = isUnattended(options) ? options : undefined;
    const ui = editorUi(ctx.reports);
    const loaded = await ctx.inventory.get();
    if (!loaded?.inventory) {
      const open = vscode.l10n.t('Open Inventory');
      const choice = await ui.message('error', loaded ? vscode.l10n.t('inventory.yaml has errors that keep it from loading; fix them first.') : vscode.l10n.t('This workspace has no inventory.yaml yet.'), { actions: [open] });
      if (choice === open) await vscode.commands.executeCommand(CommandIds.openInventory);
      return undefined;
    }
    const errors = loaded.result.findings.filter((f) => f.severity === 'error');
    if (errors.length) {
      // What we generate runs as root on every node: an inventory with errors is never generated from.
      const open = vscode.l10n.t('Open Inventory');
      const choice = await ui.message(
        'error',
        errors.length === 1 ? vscode.l10n.t('inventory.yaml has 1 error; fix it first — nothing was generated.') : vscode.l10n.t('inventory.yaml has {0} errors; fix them first — nothing was generated.', errors.length),
        { modal: !unattended, detail: errors.slice(0, 5).map((f) => vscode.l10n.t('line {0}: {1}', f.range.start.line + 1, f.message)).join('\n'), actions: [open] },
      );
      if (choice === open) await vscode.commands.executeCommand(CommandIds.openInventory);
      return undefined;
    }
    const root = vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri ?? vscode.Uri.joinPath(loaded.uri, '..');
    const layout = setting('containerdLayout');
    // Loaded on first use: the generators pull in the kubeadm schemas, which activation should not pay for.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { clusterConfigFiles, readKubeadmExtra } = require('../engine/inputs') as typeof Inputs;
    // The files the plan uploads (kubeadmExtraConfig merged in), the VRRP password left as a placeholder: it stays in
    // the state folder and is filled in when the plan uploads keepalived.conf.
    const extra = await readKubeadmExtra(loaded.inventory, dirname(loaded.uri.fsPath), readLocalText);
    const files = clusterConfigFiles(loaded.inventory, extra, { containerdLayout: layout, vrrpAuthPass: VRRP_PASS_PLACEHOLDER });

    let folder = unattended?.folder ?? vscode.Uri.joinPath(root, DEFAULT_FOLDER);
    let chosen: PlannedWrite[] | undefined;
    if (unattended) chosen = await planWrites(files, (p) => readGeneratedTarget(folder.fsPath, p));
    while (!chosen) {
      const plan = await planWrites(files, (p) => readGeneratedTarget(folder.fsPath, p));
      const pick = await pickFiles(plan, vscode.workspace.asRelativePath(folder, true));
      if (pick === 'folder') {
        const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, defaultUri: folder, openLabel: vscode.l10n.t('Generate Here') });
        if (picked?.[0]) folder = picked[0];
        continue;
      }
      if (!pick?.length) return undefined;
      chosen = pick;
    }

    const changed = chosen.filter((p) => p.status === 'changed');
    if (unattended && !unattended.overwrite) chosen = chosen.filter((p) => p.status !== 'changed');
    else if (changed.length && !unattended) {
      const overwrite = vscode.l10n.t('Overwrite');
      const skip = vscode.l10n.t('Skip Changed Files');
      const choice = await ui.confirm({
        message: changed.length === 1 ? vscode.l10n.t('1 file in {0} differs from the generated version.', vscode.workspace.asRelativePath(folder, true)) : vscode.l10n.t('{0} files in {1} differ from the generated version.', changed.length, vscode.workspace.asRelativePath(folder, true)),
        detail: vscode.l10n.t('Overwriting replaces your edits in:\n{0}', changed.map((p) => p.path).join('\n')),
        actions: [overwrite, skip],
      });
      if (!choice) return undefined;
      if (choice === skip) chosen = chosen.filter((p) => p.status !== 'changed');
    }

    // The CLI's write path: every target checked first (no link on the way), then temp file + rename each.
    await writeGeneratedFiles(folder.fsPath, chosen.filter((p) => p.status !== 'unchanged'));
    const written = chosen.map((p) => vscode.Uri.joinPath(folder, p.path));
    const wrote = chosen.filter((p) => p.status !== 'unchanged').length;
    if (!unattended && written.length) void summarize(ui, folder, written, wrote, chosen.length);
    return written;
  };
});

/**
 * One summary instead of a tab per file: the folder is revealed in the Explorer and the notification offers the
 * file most people read first (kubeadm-config.yaml) — seven tabs at once bury the editor the user came from.
 */
async function summarize(ui: Ui, folder: vscode.Uri, written: vscode.Uri[], wrote: number, total: number): Promise<void> {
  const where = vscode.workspace.asRelativePath(folder, true);
  await vscode.commands.executeCommand('revealInExplorer', written[0]).then(undefined, () => undefined);
  const main = written.find((u) => /kubeadm-config\.ya?ml$/.test(u.path)) ?? written[0]!;
  const openMain = vscode.l10n.t('Open {0}', String(main.path.split('/').pop()));
  const unchanged = wrote < total ? vscode.l10n.t(' ({0} unchanged)', total - wrote) : '';
  const pick = await ui.message(
    'info',
    (wrote === 1 ? vscode.l10n.t('Generated 1 file in {0}{1}; they are selected in the Explorer.', where, unchanged) : vscode.l10n.t('Generated {0} files in {1}{2}; they are selected in the Explorer.', wrote, where, unchanged)),
    { actions: [openMain] },
  );
  if (pick === openMain) await vscode.window.showTextDocument(main, { preview: false });
}

interface Unattended {
  folder: vscode.Uri;
  overwrite: boolean;
}

function isUnattended(v: unknown): v is Unattended {
  return !!v && typeof v === 'object' && (v as Unattended).folder instanceof vscode.Uri;
}

const STATUS_TEXT: Record<PlannedWrite['status'], string> = { new: vscode.l10n.t('new'), changed: vscode.l10n.t('differs: will be overwritten after asking'), unchanged: vscode.l10n.t('unchanged') };

/** The list of files, all checked; a title button picks another folder. */
function pickFiles(plan: PlannedWrite[], folderLabel: string): Promise<PlannedWrite[] | 'folder' | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { file: PlannedWrite }>();
    const folderButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('folder-opened'), tooltip: vscode.l10n.t('Generate into another folder…') };
    qp.title = vscode.l10n.t('Generate cluster configs into {0}/', folderLabel);
    qp.placeholder = vscode.l10n.t('Uncheck files you do not want; Enter writes the checked ones');
    qp.canSelectMany = true;
    qp.ignoreFocusOut = true;
    qp.buttons = [folderButton];
    qp.items = plan.map((file) => ({ label: file.path, description: STATUS_TEXT[file.status], ...(file.host ? { detail: vscode.l10n.t('for {0}', file.host) } : {}), file }));
    qp.selectedItems = qp.items;
    let result: PlannedWrite[] | 'folder' | undefined;
    qp.onDidTriggerButton((b) => {
      if (b === folderButton) {
        result = 'folder';
        qp.hide();
      }
    });
    qp.onDidAccept(() => {
      result = qp.selectedItems.map((i) => i.file);
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(result);
    });
    qp.show();
  });
}
