/**
 * `kubeadm-workbench timeline --inventory FILE [--image IMAGE] [--node NAME] [--json]`: the editor's "Show kubectl
 * run Timeline…" for a terminal. It creates a test pod like `kubectl run`, follows it to Ready, reads the machines'
 * logs over SSH (the audit log of the control-plane nodes; the kubelet/containerd journal and CNI leases of the pod's
 * node) — only when the kubeconfig context's server is the inventory's controlPlaneEndpoint — prints every hop in
 * causal order with its source, precision and duration (or JSON), and deletes the test pod. Exit 0 when the pod
 * became Ready, 1 when it did not in --timeout seconds (the timeline so far and why are printed), 2 on usage.
 */
import { loadKubeAdapter } from '../adapters/kube/load';
import { remoteExecOver } from '../adapters/ssh/fromInventory';
import { errorMessage } from '../core/errors';
import { HOST_NAME } from '../core/inventory/validate';
import type { Inventory } from '../core/inventory/types';
import type { RemoteExec } from '../core/live/etcdSource';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import type { Node } from '../core/live/types';
import { defaultTestImage } from '../core/timeline/defaultImage';
import { renderTimelineText, timelineReport } from '../core/timeline/report';
import { capturePodTimeline, timelineHostsFor, type PodTarget, type TimelineTransport } from '../engine/podTimeline';
import { UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { poolFromFlags, SSH_FLAGS } from './sshFlags';
import { t } from '../core/l10n';
import { defineVerb, usageText, type VerbFlags, type ListedVerbs } from './verb';

const FLAGS: FlagSpec = { inventory: 'string', image: 'string', node: 'string', name: 'string', timeout: 'string', kubeconfig: 'string', context: 'string', json: 'boolean', ...SSH_FLAGS };

const usage = (): string =>
  usageText(
    ['kubeadm-workbench timeline --inventory FILE [--image IMAGE] [--node NAME] [--name POD] [--timeout 180] [--json]', '                                  [--kubeconfig F] [--context N] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...]'],
    [
      t('creates a test pod (default image: one every schedulable node already holds), waits for Ready, prints every hop'),
      t("with its source and duration, deletes the pod; the machines' logs are read over SSH when the context is the inventory's cluster"),
    ],
  );

const POD_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface Connection { context: string; server: string; transport: TimelineTransport; dispose(): void }

/** What a test may replace: the API connection and the SSH side. */
export interface TimelineDeps {
  connect?: (opts: { kubeconfig: string; context: string; inventory: Inventory; contextByEndpoint?: 'prefer' | 'require' }) => Promise<Connection>;
  openSsh?: (inventory: Inventory) => { remote: RemoteExec; close(): Promise<void> };
  /** Calls `stop` on the user's Ctrl-C (the first one: a second one ends the process as usual); returns the unhook. */
  onInterrupt?: (stop: () => void) => () => void;
}

/** SIGINT/SIGTERM once: the handler removes itself, so a second Ctrl-C kills the process. */
function onCtrlC(stop: () => void): () => void {
  const handler = (): void => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
    stop();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** The verb with what a test replaces (TimelineDeps). */
function timelineVerb(deps: TimelineDeps) {
  return defineVerb({
    words: 'timeline', flags: FLAGS, usage, needs: { inventory: 'strict' },
    validate: (f) => {
      const image = f.image as string | undefined;
      if (image !== undefined && (!image.trim() || /\s/.test(image.trim()) || image.length > 512)) throw new UsageError(t('--image: "{0}" is not an image reference such as registry.lab:5000/web:1.0', image));
      const node = f.node as string | undefined;
      if (node !== undefined && HOST_NAME.check(node)) throw new UsageError(`--node: "${node}" ${HOST_NAME.check(node)}`);
      const name = f.name as string | undefined;
      if (name !== undefined && !(POD_NAME.test(name) && name.length <= 63)) throw new UsageError(t('--name: "{0}" is not a DNS label (lowercase letters, digits and -)', name));
      const timeout = f.timeout as string | undefined;
      if (timeout !== undefined && !(/^\d{1,4}$/.test(timeout) && Number(timeout) > 0)) throw new UsageError(t('--timeout: "{0}" is not a whole number of seconds', timeout));
    },
    run: async ({ inventory, flags, io, onClose }) => {
      const connect = deps.connect ?? ((o) => loadKubeAdapter().connect(o) as Promise<Connection>);
      let conn: Connection;
      try {
        conn = await connect({ kubeconfig: (flags.kubeconfig as string | undefined) ?? '', context: (flags.context as string | undefined) ?? '', inventory, contextByEndpoint: 'prefer' });
      } catch (e) {
        io.stderr(`kubeadm-workbench timeline: ${errorMessage(e)}\n`);
        return EXIT_FAILED;
      }
      onClose(() => conn.dispose());
      try {
        return await podTimeline(conn, inventory, flags, io, deps, onClose);
      } catch (e) {
        // said with the API's own message, as it always was (the boundary would add the kind of failure)
        io.stderr(`kubeadm-workbench timeline: ${errorMessage(e)}\n`);
        return EXIT_FAILED;
      }
    },
  });
}

/** `timeline` as main.ts runs it; a test passes its TimelineDeps. */
export function runTimelineVerb(argv: string[], io: CliIo, deps: TimelineDeps = {}): Promise<number> {
  return timelineVerb(deps)(argv, io);
}

async function podTimeline(conn: Connection, inventory: Inventory, flags: VerbFlags, io: CliIo, deps: TimelineDeps, onClose: (close: () => unknown) => void): Promise<number> {
  let ssh: { remote: RemoteExec; close(): Promise<void> } | undefined;
  const nodes = ((await conn.transport.list('/api/v1/nodes', {})).items ?? []) as Node[];
  const nodeName = flags.node as string | undefined;
  if (nodeName && !nodes.some((n) => n.metadata?.name === nodeName)) {
    io.stderr(`${t('--node: the cluster has no node "{0}" (it has {1})', nodeName, nodes.map((n) => n.metadata?.name).join(', '))}\n${usage()}`);
    return EXIT_USAGE;
  }
  const pool = nodeName ? nodes.filter((n) => n.metadata?.name === nodeName) : nodes;
  const image = (flags.image as string | undefined)?.trim() ?? defaultTestImage(pool, inventory.cluster.imageRepository, undefined).image;
  // The inventory's hosts are dialled only for the inventory's own cluster (the editor's rule).
  const own = serverMatchesEndpoint(conn.server, inventory.cluster.controlPlaneEndpoint);
  if (own) {
    const opened = deps.openSsh ? deps.openSsh(inventory) : openSsh(inventory, flags, io);
    onClose(() => opened.close());
    ssh = opened;
  }
  else io.stderr(`${t("context {0} ({1}) is not the inventory's cluster ({2}): the machines' logs are not read", conn.context, conn.server, inventory.cluster.controlPlaneEndpoint)}\n`);
  const target: PodTarget = { namespace: 'default', name: (flags.name as string | undefined) ?? `timeline-${Date.now().toString(36)}`, create: { image, ...(nodeName ? { node: nodeName } : {}) } };
  const run = `kubectl run ${target.name} --image=${image}`;
  if (!flags.json) io.stderr(`${nodeName ? t('{0} on {1}: waiting for Ready…', run, nodeName) : t('{0}: waiting for Ready…', run)}\n`);
  const timeoutMs = Number((flags.timeout as string | undefined) ?? '180') * 1000;
  const interrupted = new AbortController();
  const unhook = (deps.onInterrupt ?? onCtrlC)(() => {
    io.stderr(`${t('interrupted: deleting the test pod {0}…', target.name)}\n`);
    interrupted.abort();
  });
  let result;
  try {
    result = await capturePodTimeline(conn.transport, target, ssh ? { remote: ssh.remote, hosts: timelineHostsFor(inventory, conn.server) } : undefined, { timeoutMs, warn: (m) => io.stderr(`${m}\n`), signal: interrupted.signal });
  } finally {
    unhook();
  }
  if (interrupted.signal.aborted) return EXIT_FAILED;
  for (const f of result.failures) io.stderr(`${f}\n`);
  const report = result.timeline && timelineReport(result.timeline);
  if (flags.json) io.stdout(JSON.stringify({ context: conn.context, server: conn.server, image, ready: result.settled, ...(report ?? { steps: [] }), failures: result.failures }, null, 2) + '\n');
  else if (report) io.stdout(renderTimelineText(report));
  if (!result.settled) io.stderr(`${t('the pod was not Ready within {0} s', timeoutMs / 1000)}${report?.stall ? `: ${report.stall.summary}` : ''}\n`);
  return result.settled ? EXIT_OK : EXIT_FAILED;
}

function openSsh(inventory: Inventory, flags: Record<string, unknown>, io: CliIo): { remote: RemoteExec; close(): Promise<void> } {
  const pool = poolFromFlags(inventory, flags, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 8000 });
  return { remote: remoteExecOver(pool), close: () => pool.close() };
}

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  timeline: { summary: () => `timeline --inventory F [--image IMAGE] [--node NAME] [--json]   ${t('kubectl run a test pod, wait for Ready, print every hop from the POST to Ready in causal order with its source, precision and duration (audit log, journals and CNI lease over SSH when the context is the inventory\'s cluster), delete the pod')}`, run: runTimelineVerb },
} satisfies ListedVerbs;
