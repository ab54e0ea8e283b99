/**
 * Reads what `kubectl drain` and `kubeadm-workbench drain` print into the same shape, so tests compare the two
 * tools by what an administrator sees: which pods were evicted, which DaemonSet pods were ignored (kept), and
 * which pods were refused for which reason. Used by the integration and the lab drain tests.
 */
export interface DrainOutcome {
  /** `pod/NAME evicted` lines (names only). */
  evicted: string[];
  /** `evicting pod NS/NAME` lines, in order, attempts included. */
  evicting: string[];
  /** Pods named in the `ignoring DaemonSet-managed Pods` warning (NS/NAME). */
  keptDaemonSet: string[];
  /** Refusal reason (kubectl's text) → NS/NAME list. */
  refused: Record<string, string[]>;
  /** `error when evicting ... (will retry after 5s): MESSAGE` lines. */
  retries: string[];
  drained: boolean;
}

export function parseDrainOutput(stdout: string, stderr: string): DrainOutcome {
  const out = `${stdout}\n${stderr}`.split('\n');
  const o: DrainOutcome = { evicted: [], evicting: [], keptDaemonSet: [], refused: {}, retries: [], drained: false };
  for (const line of out) {
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^pod\/(\S+) evicted$/))) o.evicted.push(m[1]!);
    else if ((m = line.match(/^evicting pod (\S+)$/))) o.evicting.push(m[1]!);
    else if ((m = line.match(/^Warning: (.*)$/i))) {
      for (const part of m[1]!.split('; ')) {
        const d = part.match(/^ignoring DaemonSet-managed Pods: (.*)$/);
        if (d) o.keptDaemonSet.push(...d[1]!.split(', '));
      }
    } else if ((m = line.match(/^error when evicting .*\(will retry after \d+s\): (.*)$/))) o.retries.push(m[1]!);
    else if (/^node\/\S+ drained$/.test(line)) o.drained = true;
    else if ((m = line.match(/unable to drain node "[^"]+" due to error: ?\[(.*)\]/))) {
      for (const group of m[1]!.split(/, (?=cannot delete )/)) {
        // kubectl 1.34 says "cannot delete cannot delete Pods that declare no controller": the same reason, its prefix twice.
        const g = group.replace(/^(cannot delete )+/, 'cannot delete ');
        const i = g.lastIndexOf(': ');
        o.refused[g.slice(0, i)] = g.slice(i + 2).split(', ').sort();
      }
    }
  }
  o.evicted.sort();
  o.keptDaemonSet.sort();
  return o;
}

/** The outcome with namespaces removed from pod names, for comparing two runs in different namespaces. */
export function withoutNamespaces(o: DrainOutcome): DrainOutcome {
  const strip = (s: string) => s.replace(/^[^/]+\//, '');
  return {
    ...o,
    evicting: o.evicting.map(strip),
    keptDaemonSet: o.keptDaemonSet.map(strip).sort(),
    refused: Object.fromEntries(Object.entries(o.refused).map(([k, v]) => [k, v.map(strip).sort()])),
  };
}
