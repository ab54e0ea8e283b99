/**
 * What Gather Host Facts shows: the report (a table of the hosts that were read, their findings, and apart from them
 * the hosts not read with a short cause) and the one sentence of its notification. A host not read is no finding:
 * it is counted apart, and "see the Problems panel" is said only of findings that are there (on the hosts' lines).
 */
import { t } from '../l10n';
import type { FactFinding, HostFacts } from './facts';

export interface FactsNotRead {
  host: string;
  /** A short cause without command text (core/text/failureSummary). */
  cause: string;
}

export interface FactsRun {
  /** Hosts asked, in inventory order. */
  hosts: string[];
  facts: HostFacts[];
  findings: FactFinding[];
  notRead: FactsNotRead[];
  ms: number;
}

function seconds(ms: number): string {
  return t('{0} s', (ms / 1000).toFixed(1));
}

export function renderFactsReport(run: FactsRun): string {
  const cell = (v: string | undefined): string => (v ?? '—').replace(/\|/g, '\\|');
  const lines = [t('# Host facts'), ''];
  if (!run.facts.length) {
    lines.push(t('No host was read ({0} of {1} not read, {2}). Read-only: nothing was changed on the hosts.', run.notRead.length, run.hosts.length, seconds(run.ms)));
  } else {
    lines.push(
      t('{0} of {1} host(s) read in {2}. Read-only: nothing was changed on the hosts.', run.facts.length, run.hosts.length, seconds(run.ms)),
      '',
      t('| host | OS | kernel | machine-id | product_uuid | swap | containerd | kubelet | kubeadm | addresses |'),
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...run.facts.map(
        (f) =>
          `| ${f.host} | ${cell(f.os?.pretty)} | ${cell(f.kernel)} | ${cell(f.machineId?.slice(0, 12))} | ${cell(f.productUuid)} | ${f.swapActive.length ? 'ON' : 'off'} | ${cell(f.containerd?.version)} ${f.containerd?.active ? '(active)' : ''} | ${cell(f.kubelet?.version)} | ${cell(f.kubeadmVersion)} | ${cell(f.addresses.map((a) => `${a.iface} ${a.cidr}`).join(', '))} |`,
      ),
      '',
      t('## Findings'),
      '',
      ...(run.findings.length ? run.findings.map((f) => `- **${f.severity}** ${f.host}: ${f.message} — ${f.why} \`${f.rule}\``) : [t('None on the hosts that were read.')]),
    );
  }
  if (run.notRead.length) {
    lines.push('', t('## Not read'), '', t('No fact of these hosts was judged (the log has the whole error: Kubeadm: Show Log).'), '', ...run.notRead.map((n) => `- ${n.host}: ${cell(n.cause)}`));
  }
  return lines.join('\n') + '\n';
}

/**
 * The notification after a run, or undefined when there is nothing to look at (every host read, no finding).
 * `problems` is true when the findings are in the Problems panel (errors and warnings on the hosts' lines).
 */
export function factsSentence(run: FactsRun): { text: string; problems: boolean; notRead: boolean } | undefined {
  const flagged = run.findings.filter((f) => f.severity !== 'info').length;
  const causes = [...new Set(run.notRead.map((n) => n.cause))];
  const parts = [
    flagged ? t('{0} finding(s) on the hosts\' lines of inventory.yaml — see the Problems panel', flagged) : undefined,
    run.notRead.length
      ? t('{0} of {1} host(s) not read ({2})', run.notRead.length, run.hosts.length, causes.length > 2 ? t('{0}; {1} more', causes.slice(0, 2).join('; '), causes.length - 2) : causes.join('; '))
      : undefined,
  ].filter(Boolean);
  if (!parts.length) return undefined;
  return { text: t('Host facts: {0}.', parts.join('; ')), problems: flagged > 0, notRead: run.notRead.length > 0 };
}
