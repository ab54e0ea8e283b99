/**
 * /etc/sysctl.d/*.conf and /etc/modules-load.d/*.conf for kubeadm nodes and balancers.
 *
 * Which hosts a file is for: see ../lint/targets.ts. A file is asked only what its hosts need.
 * Required settings are looked for in every sysctl (modules) file of the workspace for the same hosts,
 * so splitting them over several files is fine; a missing one is reported in the first such file. A requirement
 * of hosts no file is for (the balancers' ip_nonlocal_bind when every file is for the nodes) is reported once at
 * the inventory's host (../lint/requirements.ts), never on a file that is not installed there.
 */
import { LineIndex, type Finding, type Fix, type Range } from '../findings';
import { fileTargets, type Targets } from '../lint/targets';
import { ruleTable } from '../lint/ruleTable';
import { maxChars, textGuard } from '../lint/textGuard';
import type { LintContext, SourceFile } from '../lint/types';
import { didYouMean } from '../text/didYouMean';
import { t, msg } from '../l10n';
import { isModulesFile, isSysctlFile } from './detect';

export { fileTargets, type Targets } from '../lint/targets';

const CRI = 'https://kubernetes.io/docs/setup/production-environment/container-runtimes/#prerequisite-ipv4-forwarding-optional';
const SYSCTL_D = 'https://www.freedesktop.org/software/systemd/man/latest/sysctl.d.html';
const MODULES_D = 'https://www.freedesktop.org/software/systemd/man/latest/modules-load.d.html';
const NONLOCAL = 'https://docs.kernel.org/networking/ip-sysctl.html';

export const SYSCTL = ruleTable([
  { id: 'sysctl/syntax', severity: 'error', title: msg('Each line is `key = value`, a comment or blank.'), why: msg('systemd-sysctl skips a malformed line, so the setting silently never applies.'), docs: SYSCTL_D },
  { id: 'sysctl/required', severity: 'error', title: msg('Kubernetes nodes set net.bridge.bridge-nf-call-iptables, -ip6tables and net.ipv4.ip_forward to 1.'), why: msg('Without them bridged pod traffic bypasses iptables (Service DNAT by kube-proxy fails) and nodes drop packets for pods on other nodes.'), docs: CRI, fixes: ['edit'] },
  { id: 'sysctl/nonlocal-bind', severity: 'error', title: msg('Load balancers set net.ipv4.ip_nonlocal_bind = 1.'), why: msg('HAProxy binds the VIP before Keepalived has put it on the interface (at boot, on the BACKUP); without non-local bind it fails with "Cannot bind" and crash-loops.'), docs: NONLOCAL, fixes: ['edit'] },
  { id: 'sysctl/duplicate', severity: 'warning', title: msg('A key is set once per file.'), why: msg('The last assignment wins, so an earlier line is dead and misleading.'), docs: SYSCTL_D },
  { id: 'sysctl/unknown-key', severity: 'warning', title: msg('Keys are not misspellings of the required ones.'), why: msg('A misspelt key is skipped with only a log line; the intended setting never applies.'), docs: SYSCTL_D, fixes: ['edit'] },
  { id: 'modules/syntax', severity: 'error', title: msg('Each line is one module name, a comment or blank.'), why: msg('modules-load.d takes bare module names; parameters belong in /etc/modprobe.d, and a bad line loads nothing.'), docs: MODULES_D },
  { id: 'modules/required', severity: 'error', title: msg('Kubernetes nodes load overlay and br_netfilter at boot.'), why: msg("containerd's overlayfs snapshotter needs overlay, and the bridge-nf-call sysctls exist only once br_netfilter is loaded."), docs: CRI, fixes: ['edit'] },
  { id: 'modules/unknown', severity: 'warning', title: msg('Module names are not misspellings of the required ones.'), why: msg('A misspelt module fails to load at boot and the one intended is missing.'), docs: MODULES_D, fixes: ['edit'] },
]);

export const SYSCTL_RULES = SYSCTL.rules;
export type SysctlRuleId = Parameters<typeof SYSCTL.finding>[0];

export const NODE_SYSCTLS: Record<string, string> = {
  'net.bridge.bridge-nf-call-iptables': '1',
  'net.bridge.bridge-nf-call-ip6tables': '1',
  'net.ipv4.ip_forward': '1',
};
export const BALANCER_SYSCTLS: Record<string, string> = { 'net.ipv4.ip_nonlocal_bind': '1' };
export const NODE_MODULES = ['overlay', 'br_netfilter'];
const KNOWN_KEYS = [...Object.keys(NODE_SYSCTLS), ...Object.keys(BALANCER_SYSCTLS), 'net.ipv4.conf.all.forwarding', 'net.ipv6.conf.all.forwarding', 'vm.swappiness', 'fs.inotify.max_user_watches', 'fs.inotify.max_user_instances', 'net.ipv4.conf.all.rp_filter', 'net.ipv4.ip_nonlocal_bind', 'net.ipv6.ip_nonlocal_bind'];


export { isModulesFile, isSysctlFile };


/** `sysctl` keys use `.` or `/` as separators; normalise to dots. */
function normKey(key: string): string {
  return key.replace(/\//g, '.');
}

function isNode(trimmed: Targets): boolean {
  return trimmed.roles.has('control-plane') || trimmed.roles.has('worker');
}

function overlaps(a: Targets, b: Targets): boolean {
  return [...a.roles].some((r) => b.roles.has(r));
}

interface Entry {
  key: string;
  value: string;
  line: number;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

export function parseSysctl(text: string): { entries: Entry[]; errors: Array<{ line: number; message: string; length: number }> } {
  const entries: Entry[] = [];
  const errors: Array<{ line: number; message: string; length: number }> = [];
  const rows = text.split('\n');
  rows.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';')) return;
    const eq = line.indexOf('=');
    if (eq < 0) {
      errors.push({ line: i, message: t('"{0}" has no "=": sysctl lines are key = value.', trimmed.slice(0, 60)), length: line.length });
      return;
    }
    const rawKey = line.slice(0, eq);
    const keyText = rawKey.trim().replace(/^-/, '');
    const keyStart = rawKey.indexOf(rawKey.trim());
    if (!/^[A-Za-z0-9_*?[\]][A-Za-z0-9_.*?[\]/-]*$/.test(keyText)) {
      errors.push({ line: i, message: keyText ? t('"{0}" is not a sysctl key (letters, digits, _ - . / and globs).', keyText.slice(0, 60)) : t('The line has no key before "=".'), length: line.length });
      return;
    }
    const rawValue = line.slice(eq + 1);
    const value = rawValue.trim();
    const valueStart = eq + 1 + (rawValue.length - rawValue.trimStart().length);
    entries.push({ key: normKey(keyText), value, line: i, keyStart, keyEnd: keyStart + rawKey.trim().length, valueStart, valueEnd: valueStart + value.length });
  });
  return { entries, errors };
}

export function parseModules(text: string): { modules: Array<{ name: string; line: number; start: number; end: number }>; errors: Array<{ line: number; message: string; length: number }> } {
  const modules: Array<{ name: string; line: number; start: number; end: number }> = [];
  const errors: Array<{ line: number; message: string; length: number }> = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';')) return;
    if (/\s/.test(trimmed)) errors.push({ line: i, message: t('"{0}" is not one module name; module parameters belong in /etc/modprobe.d.', trimmed.slice(0, 60)), length: line.length });
    else if (!/^[A-Za-z0-9_-]+$/.test(trimmed)) errors.push({ line: i, message: t('"{0}" is not a module name.', trimmed.slice(0, 60)), length: line.length });
    else {
      const start = line.indexOf(trimmed);
      modules.push({ name: trimmed.replace(/-/g, '_'), line: i, start, end: start + trimmed.length });
    }
  });
  return { modules, errors };
}

function mk(rule: SysctlRuleId, message: string, range: Range, fixes?: Fix[]): Finding {
  return SYSCTL.finding(rule, message, range, { fixes });
}

function lineRange(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: Math.max(end, start + 1) } };
}

function guard(file: SourceFile, kind: 'sysctl' | 'modules'): Finding[] | undefined {
  const guarded = textGuard(file.text, kind);
  return guarded ? [guarded] : undefined;
}

function appendFix(file: SourceFile, title: string, lines: string[]): Fix {
  const idx = new LineIndex(file.text);
  const end = idx.position(file.text.length);
  const sep = file.text === '' || file.text.endsWith('\n') ? '' : '\n';
  return { title, edits: [{ range: { start: end, end }, newText: sep + lines.map((l) => `${l}\n`).join('') }] };
}

/** Sibling files of the same type whose targets overlap, sorted by path, this file included. */
function peers(file: SourceFile, context: LintContext, isType: (p: string) => boolean, targets: Targets): SourceFile[] {
  const all = [file, ...(context.siblings ?? []).filter((s) => s.path !== file.path && isType(s.path) && s.text.length <= maxChars('sysctl'))];
  return all.filter((f) => f === file || overlaps(fileTargets(f.path, f.text, context.inventory), targets)).sort((a, b) => a.path.localeCompare(b.path));
}

export function lintSysctl(file: SourceFile, context: LintContext = {}): Finding[] {
  const guarded = guard(file, 'sysctl');
  if (guarded) return guarded;
  const out: Finding[] = [];
  const { entries, errors } = parseSysctl(file.text);
  for (const e of errors) out.push(mk('sysctl/syntax', e.message, lineRange(e.line, 0, e.length)));
  const seen = new Map<string, Entry>();
  for (const e of entries) {
    const prev = seen.get(e.key);
    if (prev) out.push(mk('sysctl/duplicate', t('{0} is already set on line {1}; this line overrides it.', e.key, prev.line + 1), lineRange(e.line, e.keyStart, e.keyEnd)));
    seen.set(e.key, e);
    if (!KNOWN_KEYS.includes(e.key) && !e.key.includes('*')) {
      const hint = didYouMean(e.key, KNOWN_KEYS);
      if (hint) out.push(mk('sysctl/unknown-key', t('{0} is not a kernel setting — did you mean {1}?', e.key, hint), lineRange(e.line, e.keyStart, e.keyEnd), [{ title: t('Rename to {0}', hint), edits: [{ range: lineRange(e.line, e.keyStart, e.keyEnd), newText: hint }] }]));
    }
  }
  const targets = fileTargets(file.path, file.text, context.inventory);
  const required: Array<[string, string, SysctlRuleId]> = [];
  if (isNode(targets)) for (const [k, v] of Object.entries(NODE_SYSCTLS)) required.push([k, v, 'sysctl/required']);
  if (targets.roles.has('loadbalancer')) for (const [k, v] of Object.entries(BALANCER_SYSCTLS)) required.push([k, v, 'sysctl/nonlocal-bind']);
  // Wrong values in this file.
  for (const [key, want, rule] of required) {
    const e = entries.filter((x) => x.key === key).pop();
    if (e && e.value !== want) {
      out.push(mk(rule, t('{0} = {1}; it must be {2} on {3} hosts.', key, e.value, want, [...targets.roles].join('/')), lineRange(e.line, e.valueStart, e.valueEnd), [{ title: t('Set {0} = {1}', key, want), edits: [{ range: lineRange(e.line, e.valueStart, e.valueEnd), newText: want }] }]));
    }
  }
  // Missing everywhere (reported in the first file for these hosts).
  const group = peers(file, context, isSysctlFile, targets);
  if (group[0] === file) {
    const set = new Set(group.flatMap((f) => (f === file ? entries : parseSysctl(f.text).entries)).map((e) => e.key));
    const missing = required.filter(([k]) => !set.has(k));
    for (const rule of new Set(missing.map((m) => m[2]))) {
      const keys = missing.filter((m) => m[2] === rule);
      out.push(mk(rule, keys.length > 1
        ? t('{0} are not set for {1} hosts (targets decided by {2}).', keys.map((k) => k[0]).join(', '), [...targets.roles].join('/'), targets.by)
        : t('{0} is not set for {1} hosts (targets decided by {2}).', keys[0]![0], [...targets.roles].join('/'), targets.by), lineRange(0, 0, 0),
        [appendFix(file, t('Add {0}', keys.map((k) => `${k[0]} = ${k[1]}`).join(', ')), keys.map((k) => `${k[0]} = ${k[1]}`))]));
    }
  }
  return out;
}

export function lintModules(file: SourceFile, context: LintContext = {}): Finding[] {
  const guarded = guard(file, 'modules');
  if (guarded) return guarded;
  const out: Finding[] = [];
  const { modules, errors } = parseModules(file.text);
  for (const e of errors) out.push(mk('modules/syntax', e.message, lineRange(e.line, 0, e.length)));
  for (const m of modules) {
    if (NODE_MODULES.includes(m.name)) continue;
    const hint = didYouMean(m.name, NODE_MODULES);
    if (hint) out.push(mk('modules/unknown', t('{0} — did you mean {1}?', m.name, hint), lineRange(m.line, m.start, m.end), [{ title: t('Rename to {0}', hint), edits: [{ range: lineRange(m.line, m.start, m.end), newText: hint }] }]));
  }
  const targets = fileTargets(file.path, file.text, context.inventory);
  if (!isNode(targets)) return out;
  const group = peers(file, context, isModulesFile, targets);
  if (group[0] !== file) return out;
  const loaded = new Set(group.flatMap((f) => (f === file ? modules : parseModules(f.text).modules)).map((m) => m.name));
  const missing = NODE_MODULES.filter((m) => !loaded.has(m));
  if (missing.length) out.push(mk('modules/required', missing.length > 1
    ? t('{0} and {1} are not loaded at boot on Kubernetes nodes (targets decided by {2}).', missing.slice(0, -1).join(' and '), missing[missing.length - 1], targets.by)
    : t('{0} is not loaded at boot on Kubernetes nodes (targets decided by {1}).', missing[0], targets.by), lineRange(0, 0, 0), [appendFix(file, t('Add {0}', missing.join(', ')), missing)]));
  return out;
}
