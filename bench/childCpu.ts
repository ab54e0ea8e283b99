/** CPU time of waited-for child processes, in microseconds, for ratios against a child tool measured in the same run. */
import { readFileSync } from 'node:fs';

export function resourceUsage(): { children: { user: number; system: number } } {
  // Node reports only this process's own usage; /proc/self/stat fields 16 and 17 are the children's, in clock ticks
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tick = 10_000; // µs per clock tick (USER_HZ 100)
    return { children: { user: Number(fields[13]) * tick, system: Number(fields[14]) * tick } };
  } catch {
    return { children: { user: NaN, system: NaN } };
  }
}
