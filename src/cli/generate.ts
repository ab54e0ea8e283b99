/**
 * `kubeadm-workbench generate [--inventory FILE] [--out DIR] [--containerd-version V] [--force]`: writes the
 * cluster's config files (kubeadm-config.yaml, haproxy.cfg, keepalived.conf per balancer, containerd, sysctl and
 * modules) from the inventory. Files that exist and differ are only overwritten with --force; exit 1 otherwise.
 * kubeadm-config.yaml is the one the plan uploads (cluster.kubeadmExtraConfig merged in); keepalived.conf holds a
 * placeholder where the VRRP password goes (the password stays in the state folder; the plan fills it in). Every
 * target is checked before the first file is written: a refusal leaves the folder as it was.
 */
import { t } from '../core/l10n';
import { dirname, join, resolve } from 'node:path';
import { VRRP_PASS_PLACEHOLDER } from '../core/generate/keepalived';
import { parseInventory } from '../core/inventory/parse';
import { shownPath } from '../core/text/terminal';
import { containerdLayoutFor, planWrites, readGeneratedTarget, writeGeneratedFiles } from '../engine/generatePlan';
import { clusterConfigFiles, readKubeadmExtra } from '../engine/inputs';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatFinding, INVENTORY_READ } from './io';
import { findInventoryAbove } from './lint';
import { errorMessage } from '../core/errors';
import { UsageError } from './args';
import { defineVerb, ownGrammar, usageText, type ListedVerbs } from './verb';

const usage = (): string => usageText(['kubeadm-workbench generate [--inventory FILE] [--out DIR] [--containerd-version V] [--force]']);

interface GenerateArgs {
  inventory?: string;
  out: string;
  containerdVersion?: string;
  force: boolean;
}

export function parseGenerateArgs(args: string[]): GenerateArgs | string {
  const out: GenerateArgs = { out: 'generated', force: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string | undefined => (eq > 0 ? arg.slice(eq + 1) : args[++i]);
    if (flag === '--inventory' || flag === '--out' || flag === '--containerd-version') {
      const v = value();
      if (!v) return t('{0} needs a value', flag);
      if (flag === '--inventory') out.inventory = v;
      else if (flag === '--out') out.out = v;
      else {
        if (!containerdLayoutFor(v)) return t('--containerd-version must look like 1.7 or 2.0 (got {0})', v);
        out.containerdVersion = v;
      }
    } else if (flag === '--force') {
      out.force = true;
    } else {
      return t('unexpected argument {0}', arg);
    }
  }
  return out;
}

/** Generate's grammar predates defineVerb and its messages stay: the whole argv reaches parseGenerateArgs. */
export const runGenerate = defineVerb({
  words: 'generate', needs: {}, usage,
  ...ownGrammar(parseGenerateArgs),
  run: async ({ options: parsed, io }) => {
    const inventoryPath = parsed.inventory ?? (await findInventoryAbove(process.cwd()));
    if (!inventoryPath) throw new UsageError(t('no inventory.yaml here or above; pass --inventory FILE'));
    let text: string;
    try {
      text = await io.readFile(inventoryPath, INVENTORY_READ);
    } catch (e) {
      io.stderr(`${t('cannot read inventory {0}: {1}', shownPath(inventoryPath), errorMessage(e))}\n`);
      return EXIT_USAGE;
    }
    const { inventory, findings } = parseInventory(text);
    const errors = findings.filter((f) => f.severity === 'error');
    if (!inventory || errors.length) {
      for (const f of errors) io.stderr(formatFinding(inventoryPath, f) + '\n');
      io.stderr(`${t('{0}: fix the inventory first; nothing was generated', inventoryPath)}\n`);
      return EXIT_FAILED;
    }
    const layout = containerdLayoutFor(parsed.containerdVersion);
    let files;
    try {
      const extra = await readKubeadmExtra(inventory, dirname(resolve(inventoryPath)), (p) => io.readFile(p));
      files = clusterConfigFiles(inventory, extra, { ...(layout ? { containerdLayout: layout } : {}), vrrpAuthPass: VRRP_PASS_PLACEHOLDER });
    } catch (e) {
      io.stderr(`${t('{0}; nothing was generated', errorMessage(e))}\n`);
      return EXIT_FAILED;
    }
    const plan = await planWrites(files, (p) => readGeneratedTarget(parsed.out, p));
    const changed = plan.filter((p) => p.status === 'changed');
    if (changed.length && !parsed.force) {
      for (const p of changed) io.stderr(`${t('{0} exists and differs from the generated file', shownPath(join(parsed.out, p.path)))}\n`);
      io.stderr(`${t('nothing was written; pass --force to overwrite')}\n`);
      return EXIT_FAILED;
    }
    try {
      await writeGeneratedFiles(parsed.out, plan.filter((p) => p.status !== 'unchanged'));
    } catch (e) {
      io.stderr(`${errorMessage(e)}\n`);
      return EXIT_FAILED;
    }
    // The words in one column, as wide as the longest of them in the language shown.
    const words = { unchanged: t('unchanged'), new: t('wrote'), changed: t('replaced') };
    const width = Math.max(...Object.values(words).map((w) => w.length));
    for (const p of plan) {
      const target = shownPath(join(parsed.out, p.path));
      io.stdout(`${words[p.status].padEnd(width)} ${target}${p.host ? t(' (for {0})', p.host) : ''}\n`);
    }
    return EXIT_OK;
  },
});

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  generate: { summary: () => `generate [--inventory F] [--out DIR] [--containerd-version V] [--force]   ${t('write the cluster config files from the inventory')}`, run: runGenerate },
} satisfies ListedVerbs;
