/**
 * The end of a bring-up: the cluster as `status` judges it (the one health model: the live model of the API's
 * objects and etcd, its verdict and core/live/health's assessment), asked until it says healthy. Right after the last
 * join a few things still converge — a control-plane pod's readiness probe, a lease, CoreDNS — and a user who runs
 * `status` the moment `up` returned should not be told "degraded" (seen on the lab: kube-apiserver on m03 "Running,
 * ready 0/1" right after a 101 s `up`). The wait is bounded and says what it waits for; past the bound the step fails
 * naming what is still not well.
 */
import type { Inventory } from '../core/inventory/types';
import { assessHealth } from '../core/live/health';
import { readObjects } from '../core/live/once';
import { buildLiveModel } from '../core/live/snapshot';
import { verdict } from '../core/live/status';
import { describeError } from '../core/live/errors';
import { loadKubeAdapter } from '../adapters/kube/load';
import { t } from '../core/l10n';

/** Long enough for a static pod's readiness probe (kubeadm's: 10 s period, failureThreshold 3) and a lease's expiry. */
export const HEALTHY_WITHIN_MS = 180_000;

export interface HealthyWait {
  inventory: Inventory;
  /** The kubeconfig the bring-up saved the admin context into (its context for the cluster's endpoint is taken). */
  kubeconfig: string;
  say: (line: string) => void;
  signal?: AbortSignal | undefined;
  timeoutMs?: number;
  /** Between two reads (default 3 s). */
  everyMs?: number;
  /** Tests: another way to read the health once (what is not healthy; [] when healthy). */
  readOnce?: () => Promise<string[]>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('cancelled'))), { once: true });
  });

/** What is not healthy now, by `status`'s judgement without --ssh ([] when healthy). */
async function notHealthyNow(inventory: Inventory, kubeconfig: string): Promise<string[]> {
  const conn = await loadKubeAdapter().connect({ kubeconfig, context: '', inventory, contextByEndpoint: 'prefer' });
  try {
    const facts = await conn.healthFacts();
    const objects = await readObjects(conn.transport);
    const problems: string[] = [];
    let etcd;
    try {
      etcd = await conn.readEtcd();
    } catch (e) {
      problems.push(t('etcd not read: {0}', describeError(e)));
    }
    const v = verdict(buildLiveModel(objects, Date.now(), inventory, etcd));
    if (!facts.reach.ok) {
      v.problems.push({ severity: 'critical', what: t('API /readyz through {0}: {1}', conn.server, facts.reach.why ?? t('not ready')) });
      v.degraded = true;
    }
    const h = assessHealth({ ...facts, verdict: v });
    if (h.state === 'healthy') return [];
    return [...(h.state === 'degraded' ? v.problems.filter((p) => p.severity === 'critical').map((p) => p.what) : [h.headline]), ...problems];
  } finally {
    conn.dispose();
  }
}

export async function waitUntilHealthy(w: HealthyWait): Promise<void> {
  const limit = w.timeoutMs ?? HEALTHY_WITHIN_MS;
  const read = w.readOnce ?? (() => notHealthyNow(w.inventory, w.kubeconfig));
  const t0 = Date.now();
  let said = '';
  for (;;) {
    let now: string[];
    try {
      now = await read();
    } catch (e) {
      now = [t('the API did not answer: {0}', describeError(e))];
    }
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    if (!now.length) {
      w.say(said ? t('healthy after {0} s', seconds) : t('healthy'));
      return;
    }
    const line = now.join('; ');
    if (Date.now() - t0 >= limit) throw new Error(t('not healthy {0} s after the last step: {1}', Math.round(limit / 1000), line));
    if (line !== said) w.say(t('still converging ({0} s): {1}', seconds, line));
    said = line;
    await sleep(w.everyMs ?? 3000, w.signal);
  }
}
