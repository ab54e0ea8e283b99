/**
 * `kubeadm-workbench certs --inventory FILE [--host NAME]... [--json]`: every certificate kubeadm manages,
 * read over SSH (read-only; private keys never leave the hosts), the certificates the API servers serve
 * (TLS handshake with the endpoint and each control-plane node's 6443) compared with the files on disk,
 * and the user's kubeconfig credentials for this cluster. Sorted by days left per host. Exit 1 when any
 * certificate is under the warning threshold (--warning-days, default 30; --error-days 7) or another
 * problem needs a look (SANs missing the VIP, a served certificate that is not the one on disk), or a host
 * could not be read (listed apart from the findings); 2 on usage.
 */
import { servedCertificate } from '../adapters/tls/servedCertificate';
import { DEFAULT_THRESHOLDS, type CertThresholds } from '../core/certs/assess';
import { renderCertReport } from '../core/certs/report';
import { inspectCertificates } from '../engine/certs';
import { certificateTargets, certsWorkflow } from '../engine/workflows/certsWorkflow';
import { UsageError, type FlagSpec } from './args';
import { runCertsFixKubeletConf } from './certsFixKubeletConf';
import { runCertsRenew } from './certsRenew';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';
import { SSH_FLAGS } from './sshFlags';
import { TerminalUi } from './terminalUi';
import { defineVerb, usageText, type ListedVerbs } from './verb';
import { verbPreflight } from './verbPreflight';
import { t } from '../core/l10n';

const FLAGS: FlagSpec = {
  inventory: 'string',
  host: 'list',
  kubeconfig: 'string',
  'warning-days': 'string',
  'error-days': 'string',
  ...SSH_FLAGS,
  'ask-become-pass': 'boolean',
  json: 'boolean',
};

const USAGE = (): string =>
  usageText([
    'kubeadm-workbench certs --inventory FILE [--host NAME]... [--warning-days 30] [--error-days 7]',
    '                               [--kubeconfig F] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass] [--json]',
  ]);

function days(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,5}$/.test(text.trim())) throw new UsageError(t('{0}: "{1}" is not a whole number of days', `--${flag}`, text));
  return Number(text.trim());
}

/** `certs renew ...` and `certs fix-kubelet-conf ...` are verbs of their own. */
export async function runCertsVerb(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  if (argv[0] === 'renew') return runCertsRenew(argv.slice(1), io, stdin);
  if (argv[0] === 'fix-kubelet-conf') return runCertsFixKubeletConf(argv.slice(1), io, stdin);
  return certsVerb(argv, io, stdin);
}

// Read-only: an inventory with errors is fine as long as it gave a model (like status).
const certsVerb = defineVerb({
  words: 'certs', flags: FLAGS, usage: USAGE, needs: { inventory: 'parsed', ssh: {} },
  validate: (f): CertThresholds => {
    const thresholds = {
      warningDays: days(f['warning-days'] as string | undefined, 'warning-days', DEFAULT_THRESHOLDS.warningDays),
      errorDays: days(f['error-days'] as string | undefined, 'error-days', DEFAULT_THRESHOLDS.errorDays),
    };
    if (thresholds.errorDays > thresholds.warningDays) throw new UsageError(t('--error-days must not exceed --warning-days'));
    return thresholds;
  },
  run: async ({ inventory, flags, io, prompter, stdin, options: thresholds, ssh, become, askBecomePassword }) => {
    const hosts = (flags.host as string[] | undefined) ?? [];
    const unknown = hosts.filter((h) => !inventory.hosts.some((x) => x.name === h));
    if (unknown.length) throw new UsageError(t('not in the inventory: {0}', unknown.join(', ')));
    const json = Boolean(flags.json);
    // As the editor's Inspect Certificates: read-only, so no host's failure refuses it; the hosts that fail are rows
    // "not read" with the preflight's cause and are not contacted again.
    const targets = certificateTargets(inventory, hosts);
    const pre = await verbPreflight({ inventory, flags, io, prompter, stdin, ssh }, { operation: 'certs', hosts: targets, tolerate: { hosts: targets } });
    if (!pre.ok) return EXIT_FAILED;
    await askBecomePassword();
    const pool = ssh();
    const ui = new TerminalUi({ io, prompter, yes: true, askBecomePass: false, interactive: false, json });
    const { report, summary } = await certsWorkflow(ui, {
      inventory,
      hosts,
      preflight: pre.report,
      inspect: ({ signal, progress, notRead, only }) =>
        inspectCertificates({ inventory, ssh: pool, become, served: (address, port) => servedCertificate(address, port), kubeconfig: (flags.kubeconfig as string | undefined) ?? '', thresholds, signal, progress, notRead }, only),
      onHost: (host, ok) => (json ? undefined : io.stderr(`${ok ? t('read {0}', host) : t('could not read {0}', host)}\n`)),
    });
    if (json) io.stdout(JSON.stringify({ ...report, summary }, null, 2) + '\n');
    else {
      io.stdout(renderCertReport(report));
      if (summary.degraded) io.stdout(`\n${t('needs a look:')}\n${summary.lines.map((l) => `  - ${l}`).join('\n')}\n`);
    }
    // A host not read is no finding, but neither is it a clean bill: the exit status says "look" for both.
    return summary.degraded || summary.notRead.length || summary.servedNotRead.length ? EXIT_FAILED : EXIT_OK;
  },
});

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  certs: { summary: () => `certs --inventory F [--host NAME]... [--warning-days 30] [--error-days 7] [--json]   ${t('every kubeadm certificate over SSH (read-only), served vs on disk, SANs vs the inventory; exit 1 under the warning threshold; {0}: one control-plane node at a time, health gates, quorum guard, plan first; {1}: a kubelet.conf that embeds its client certificate pointed at the rotated one, drained first', 'certs renew --inventory F [--host NAME]... [--kubeconfig F] [--yes]', 'certs fix-kubelet-conf --inventory F --host NAME [--yes]')}`, run: runCertsVerb },
} satisfies ListedVerbs;
