/**
 * The node's side of a `kubectl run`, read from its own logs with microseconds: the kubelet's and
 * containerd's journal (`journalctl -u kubelet -u containerd -o short-iso-precise`) and the CNI
 * host-local IPAM's lease files, whose modification time is the CNI ADD that gave the pod its IP
 * (containerd logs the CNI result only at debug level).
 *
 * Lines are matched to the pod by what each component prints: the kubelet names it `default/web`,
 * containerd names the sandbox by `&PodSandboxMetadata{Name:web,Uid:…,Namespace:default,…}` and then
 * everything in it by the sandbox id it returned. A line that does not match is skipped, never guessed.
 */
import { t } from '../l10n';
import type { Evidence } from './model';
import { sh, type RemoteCommand } from '../ssh/command';
import { readTime } from './causal';

export interface PodRef { namespace: string; name: string; uid?: string; images?: string[] }

/** The remote commands that produce what these parsers read (run as root on the pod's node). */
export function journalCommand(sinceEpochSeconds: number): RemoteCommand {
  // Ten minutes from the run's start and no more than 50 000 lines: an old pod on a busy node stays cheap.
  const since = Math.floor(sinceEpochSeconds);
  return sh`journalctl -u kubelet -u containerd -o short-iso-precise --no-pager --since ${`@${since}`} --until ${`@${since + 600}`} | head -n 50000`;
}
export const IPAM_LEASES_COMMAND: RemoteCommand = sh`for f in /var/lib/cni/networks/*/*; do [ -f "$f" ] && printf '%s %s %s\\n' "$(stat -c %.9Y "$f")" "$f" "$(head -n1 "$f")"; done`;

interface JournalLine { at: number; unit: 'kubelet' | 'containerd'; text: string }

const JOURNAL = /^(\d{4}-\d\d-\d\dT[\d:.]+(?:[+-]\d\d:?\d\d|Z)) \S+ (kubelet|containerd)\[\d+\]: (.*)$/;

function journalLines(text: string): JournalLine[] {
  const out: JournalLine[] = [];
  for (const line of text.split('\n')) {
    const m = JOURNAL.exec(line.trimEnd());
    if (!m) continue;
    const t = readTime(m[1]!);
    if (t) out.push({ at: t.at, unit: m[2] as 'kubelet' | 'containerd', text: m[3]! });
  }
  return out;
}

/** containerd's logrus fields: time="…" level=info msg="…" (msg Go-quoted). */
function logrus(text: string): { at?: number; level?: string; msg: string } | undefined {
  const msg = /\bmsg="((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  if (msg === undefined) return undefined;
  const time = /\btime="([^"]+)"/.exec(text)?.[1];
  const t = time ? readTime(time) : undefined;
  let unquoted = msg;
  try { unquoted = JSON.parse(`"${msg}"`) as string; } catch { unquoted = msg.replace(/\\"/g, '"'); }
  return { ...(t ? { at: t.at } : {}), ...(/\blevel=(\w+)/.exec(text) ? { level: /\blevel=(\w+)/.exec(text)![1]! } : {}), msg: unquoted };
}

/** klog's structured line: I1130 10:00:00.014185  612 file.go:1] "Message" key="value" … */
function klog(text: string): { message: string; fields: string } | undefined {
  const m = /^[IWEF]\d{4} [\d:.]+\s+\d+ [^\]]+\] "((?:[^"\\]|\\.)*)"(.*)$/.exec(text);
  return m ? { message: m[1]!, fields: m[2]! } : undefined;
}

export function parseNodeJournal(text: string, pod: PodRef): Evidence[] {
  const ref = `${pod.namespace}/${pod.name}`;
  const out: Evidence[] = [];
  const sandboxes = new Set<string>();
  const containers = new Map<string, string>(); // container id → name
  const images = new Set(pod.images ?? []);
  const pulled = new Set<string>();
  let volumesSeen = false;
  const sandboxMeta = (s: string): boolean => {
    const meta = /&PodSandboxMetadata\{Name:([^,]*),Uid:([^,]*),Namespace:([^,]*),/.exec(s);
    return Boolean(meta && meta[1] === pod.name && meta[3] === pod.namespace && (!pod.uid || meta[2] === pod.uid));
  };
  const add = (e: Omit<Evidence, 'source' | 'precision'>): void => void out.push({ ...e, source: 'journal', precision: 'us' });

  for (const line of journalLines(text)) {
    if (line.unit === 'kubelet') {
      const k = klog(line.text);
      if (!k) continue;
      const mine = k.fields.includes(`pod="${ref}"`) || k.fields.includes(`"${ref}"`);
      if (!mine) continue;
      if (k.message === 'SyncLoop ADD') add({ lane: 'kubelet', step: 'kubelet-sync', label: t('SyncLoop ADD (pod seen by watch)'), at: line.at });
      // SyncLoop ADD is logged at -v=2 only; at the default verbosity the kubelet's first line about an admitted pod
      // is its volume manager starting on the pod's volumes (the service-account token, at least). Once per pod.
      else if (k.message.startsWith('operationExecutor.VerifyControllerAttachedVolume started') && !volumesSeen) {
        volumesSeen = true;
        // Logged once the pod worker is already at it (the lab's CI saw it 4 ms after Initialized=True's second had
        // ended): a latest time of the kubelet seeing the pod, as is the "no sandbox" line below.
        add({ lane: 'kubelet', step: 'kubelet-sync', label: t('kubelet admitted the pod: volumes first'), at: line.at, earlierBy: Infinity });
      }
      else if (k.message.startsWith('No sandbox for pod can be found')) add({ lane: 'kubelet', step: 'kubelet-sync', label: t('No sandbox yet: RunPodSandbox'), at: line.at, earlierBy: Infinity });
      else if (k.message === 'SyncLoop (probe)' && /status="ready"/.test(k.fields)) add({ lane: 'kubelet', step: 'ready', label: t('{0} probe: ready', /probe="(\w+)"/.exec(k.fields)?.[1] ?? 'readiness'), at: line.at });
      else if (k.message === 'Probe failed') add({ lane: 'kubelet', step: 'other', label: probeFailed(/probeType="(\w+)"/.exec(k.fields)?.[1]), at: line.at, warning: true, detail: k.fields.trim() });
      else if (k.message === 'Observed pod startup duration') {
        const slo = /podStartSLOduration=([\d.]+)/.exec(k.fields)?.[1];
        add({ lane: 'kubelet', step: 'other', label: `kubelet's startup SLI ${slo ? `${Number(slo).toFixed(2)} s` : ''}`.trim(), at: line.at, detail: k.fields.trim() });
      }
      continue;
    }
    const c = logrus(line.text);
    if (!c) continue;
    const at = c.at ?? line.at;
    let m: RegExpExecArray | null;
    if (c.msg.startsWith('RunPodSandbox for ') && sandboxMeta(c.msg)) {
      if ((m = /returns sandbox id "([0-9a-f]+)"/.exec(c.msg))) {
        sandboxes.add(m[1]!);
        add({ lane: 'runtime', step: 'sandbox-ready', label: t('RunPodSandbox returns (pause running)'), at, detail: `sandbox ${m[1]!}` });
      } else if (!/failed/i.test(c.msg)) add({ lane: 'runtime', step: 'sandbox-start', label: t('RunPodSandbox (pause, netns)'), at });
      else add({ lane: 'runtime', step: 'other', label: t('RunPodSandbox failed'), at, warning: true, detail: c.msg });
    } else if ((m = /^CreateContainer within sandbox "([0-9a-f]+)" for &ContainerMetadata\{Name:([^,]*),[^}]*\} returns container id "([0-9a-f]+)"/.exec(c.msg)) && sandboxes.has(m[1]!)) {
      containers.set(m[3]!, m[2]!);
      add({ lane: 'runtime', step: 'container-created', label: `CreateContainer ${m[2]} returns`, at, container: m[2]! });
    } else if ((m = /^StartContainer for "([0-9a-f]+)" returns successfully/.exec(c.msg)) && containers.has(m[1]!)) {
      add({ lane: 'runtime', step: 'container-started', label: `StartContainer ${containers.get(m[1]!)} returns`, at, container: containers.get(m[1]!)! });
    } else if ((m = /^PullImage "([^"]+)"$/.exec(c.msg)) && images.has(m[1]!) && sandboxes.size) {
      add({ lane: 'runtime', step: 'pulling', label: `PullImage ${shortImage(m[1]!)}`, at });
    } else if ((m = /^(?:PullImage "([^"]+)" returns image reference|Pulled image "([^"]+)" with image id)/.exec(c.msg)) && images.has((m[1] ?? m[2])!) && sandboxes.size && !pulled.has((m[1] ?? m[2])!)) {
      pulled.add((m[1] ?? m[2])!);
      const took = /\bin ([\d.]+m?s)\b/.exec(c.msg)?.[1];
      add({ lane: 'runtime', step: 'pulled', label: took ? t('image pulled in {0}', took) : t('image pulled'), at, detail: c.msg });
    }
  }
  return out;
}

function shortImage(image: string): string {
  return image.replace(/^[^/]+\.[^/]+\//, '').replace(/^[^/]+:\d+\//, '');
}

/**
 * CNI ADD from the IPAM lease files: `<mtime with ns> <path ending in the IP> <container id>`.
 * The container id is the pod's sandbox (from the journal), so only its lease is taken.
 */
export function parseIpamLeases(text: string, sandboxIds: Iterable<string>): Evidence[] {
  const ids = new Set(sandboxIds);
  const out: Evidence[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+)(?:\.(\d{1,9}))? (\S*\/([0-9a-f.:]+)) ([0-9a-f]{64})$/.exec(line.trim());
    if (!m || !ids.has(m[5]!)) continue;
    const at = Number(m[1]) * 1000 + Number(`0.${(m[2] ?? '0').padEnd(9, '0')}`) * 1000;
    out.push({ lane: 'runtime', step: 'cni-add', label: `CNI ADD: IP ${m[4]}`, at: Math.floor(at * 1000) / 1000, precision: 'us', source: 'journal', detail: t('host-local IPAM lease {0}', m[3]) });
  }
  return out;
}

/** The sandbox ids a journal gave the pod (to find its CNI lease). */
export function sandboxIdsOf(evidence: Evidence[]): string[] {
  return evidence.filter((e) => e.step === 'sandbox-ready').map((e) => /sandbox ([0-9a-f]+)/.exec(e.detail ?? '')?.[1]).filter((s): s is string => Boolean(s));
}

/** `Readiness probe failed`, or `probe failed` when the journal line names no probe type. */
function probeFailed(type: string | undefined): string {
  return type ? t('{0} probe failed', type) : t('probe failed');
}
