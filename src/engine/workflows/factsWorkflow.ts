/**
 * Host facts, gathered once for the editor's "Gather Host Facts" and the CLI's `facts`: every host read in parallel
 * (read-only; product_uuid needs root, so other logins read through sudo -n), each host's progress, a cancel, and the
 * findings (cloned VMs, swap, modules, cgroup drivers). A host not read is no finding: it is named apart with a short
 * cause — the preflight's, when one ran first and the host failed it (it is then not contacted), or the read's.
 * The front-ends show the result their way (a report and the Problems panel; lines and an exit code).
 */
import { t } from '../../core/l10n';
import type { Inventory } from '../../core/inventory/types';
import { analyzeFacts, parseFacts, type HostFacts } from '../../core/phases/facts';
import type { FactsRun } from '../../core/phases/factsReport';
import { FACTS_SCRIPT } from '../../core/phases/factsScript';
import { HostProgress, shouldSummarise } from '../../core/plan/hostProgress';
import { notReadCauses, type PreflightReport } from '../../core/preflight/model';
import { sh, sudo } from '../../core/ssh/command';
import type { SshTransport } from '../../core/ssh/transport';
import { summarizeFailure } from '../../core/text/failureSummary';
import type { Ui } from './ui';

/** How often the summary line over many hosts is told (a terminal prints each one). */
const SUMMARY_EVERY_MS = 5000;

export interface FactsInput {
  inventory: Inventory;
  ssh: SshTransport;
  loginUser: (host: string) => string;
  /** The hosts to read, by name (default: every host of the inventory). */
  hosts?: readonly string[];
  /** The preflight that ran first, if one did: the hosts that failed it are not read. */
  preflight?: PreflightReport;
  /** Over many hosts, the summary line every few seconds (where the progress is not shown otherwise). */
  onSummary?: (line: string) => void;
}

/** A host not read, with the short cause and (for a read that failed) the whole error for the log. */
export interface FactsNotReadWhy {
  host: string;
  cause: string;
  detail?: string;
}

export interface FactsOutcome extends FactsRun {
  notRead: FactsNotReadWhy[];
  /** The user cancelled: the hosts not read by then are named with that cause. */
  cancelled: boolean;
}

export async function factsWorkflow(ui: Ui, input: FactsInput): Promise<FactsOutcome> {
  const started = Date.now();
  const inv = input.inventory;
  const order = inv.hosts.map((h) => h.name);
  const asked = inv.hosts.filter((h) => !input.hosts?.length || input.hosts.includes(h.name));
  const failedPreflight = new Map([...notReadCauses(input.preflight)].filter(([host]) => asked.some((a) => a.name === host)));
  const notRead: FactsNotReadWhy[] = [...failedPreflight].map(([host, cause]) => ({ host, cause }));
  // Read where the preflight passed; the others are named with why they were not read.
  const readable = asked.filter((h) => !failedPreflight.has(h.name));
  const facts: HostFacts[] = [];
  let cancelled = false;
  await ui.progress({ title: t('Gathering host facts'), cancellable: true }, async (report, signal) => {
    let done = 0;
    // Over many hosts the progress says how many are done / running / failed / waiting and which are slow.
    const hostProgress = new HostProgress();
    for (const h of readable) hostProgress.expect(h.name);
    const many = shouldSummarise(readable.length);
    const ticker = many && input.onSummary ? setInterval(() => input.onSummary!(hostProgress.summary()), SUMMARY_EVERY_MS) : undefined;
    ticker?.unref();
    try {
      await Promise.all(
        readable.map(async (h) => {
          hostProgress.started(h.name);
          try {
            const script = sh`sh -c ${FACTS_SCRIPT}`;
            const r = await input.ssh.exec(h.name, input.loginUser(h.name) === 'root' ? script : sudo(script), { signal, timeoutMs: 60_000 });
            facts.push(parseFacts(h.name, r.stdout));
            hostProgress.ended(h.name, true);
          } catch (e) {
            const failure = summarizeFailure(e, h.name);
            notRead.push({ host: h.name, cause: failure.cause, detail: failure.detail });
            hostProgress.ended(h.name, false, failure.cause);
          }
          report(many ? hostProgress.summary() : `${++done}/${readable.length} hosts`, 100 / readable.length);
        }),
      );
    } finally {
      if (ticker) clearInterval(ticker);
      cancelled = signal.aborted;
    }
  });
  facts.sort((a, b) => order.indexOf(a.host) - order.indexOf(b.host));
  return { hosts: asked.map((h) => h.name), facts, findings: analyzeFacts(inv, facts), notRead, ms: Date.now() - started, cancelled };
}
