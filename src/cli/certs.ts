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
import { certsWorkflow } from '../engine/workflows/certsWorkflow';
import { UsageError, type FlagSpec } from './args';
import { runCertsFixKubeletConf } from './certsFixKubeletConf';
import { runCertsRenew } from './certsRenew';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';
import { SSH_FLAGS } from './sshFlags';
import { TerminalUi } from './terminalUi';
import { defineVerb } from './verb';

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

const USAGE =
  'usage: kubeadm-workbench certs --inventory FILE [--host NAME]... [--warning-days 30] [--error-days 7]\n' +
  '                               [--kubeconfig F] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass] [--json]\n';

function days(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,5}$/.test(text.trim())) throw new UsageError(`--${flag}: "${text}" is not a whole number of days`);
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
    if (thresholds.errorDays > thresholds.warningDays) throw new UsageError('--error-days must not exceed --warning-days');
    return thresholds;
  },
  run: async ({ inventory, flags, io, prompter, options: thresholds, ssh, become, askBecomePassword }) => {
    const hosts = (flags.host as string[] | undefined) ?? [];
    const unknown = hosts.filter((h) => !inventory.hosts.some((x) => x.name === h));
    if (unknown.length) throw new UsageError(`not in the inventory: ${unknown.join(', ')}`);
    const json = Boolean(flags.json);
    await askBecomePassword();
    const pool = ssh();
    const ui = new TerminalUi({ io, prompter, yes: true, askBecomePass: false, interactive: false, json });
    const { report, summary } = await certsWorkflow(ui, {
      inventory,
      hosts,
      inspect: ({ signal, progress, notRead, only }) =>
        inspectCertificates({ inventory, ssh: pool, become, served: (address, port) => servedCertificate(address, port), kubeconfig: (flags.kubeconfig as string | undefined) ?? '', thresholds, signal, progress, notRead }, only),
      onHost: (host, ok) => (json ? undefined : io.stderr(`${ok ? 'read' : 'could not read'} ${host}\n`)),
    });
    if (json) io.stdout(JSON.stringify({ ...report, summary }, null, 2) + '\n');
    else {
      io.stdout(renderCertReport(report));
      if (summary.degraded) io.stdout(`\nneeds a look:\n${summary.lines.map((l) => `  - ${l}`).join('\n')}\n`);
    }
    // A host not read is no finding, but neither is it a clean bill: the exit status says "look" for both.
    return summary.degraded || summary.notRead.length || summary.servedNotRead.length ? EXIT_FAILED : EXIT_OK;
  },
});
