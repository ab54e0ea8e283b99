/**
 * Power-off and power-on go through the user's own tooling (their hypervisor's CLI: `govc vm.power
 * -off {host}`, `virsh destroy {host}`, the lab's `bash lab/lab.sh fault power-off {host}`). The
 * template is split into words here — single and double quotes group, a backslash escapes — and run
 * with execFile: no shell, so nothing in a host name or address can become shell syntax. `{host}`
 * and `{address}` are replaced inside words; a replaced word stays one argument.
 */
import { commandLine } from '../ssh/command';
import { t } from '../l10n';

export interface LocalCommand {
  argv: string[];
  /** The argv as a reader would type it (POSIX quoting), for plans and logs. */
  display: string;
}

export class TemplateError extends Error {}

/** Splits a command template into words (no expansions of any kind). */
export function splitTemplate(template: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quoteChar: '"' | "'" | undefined;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (quoteChar === "'") {
      if (c === "'") quoteChar = undefined;
      else cur += c;
      continue;
    }
    if (quoteChar === '"') {
      if (c === '"') quoteChar = undefined;
      else if (c === '\\' && i + 1 < template.length && '"\\'.includes(template[i + 1]!)) cur += template[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quoteChar = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= template.length) throw new TemplateError(t('the command ends with a lone backslash'));
      cur += template[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quoteChar) throw new TemplateError(t('unbalanced {0} quote in the command', quoteChar));
  if (inWord) words.push(cur);
  return words;
}

const PLACEHOLDER = /\{(host|address)\}/g;

/**
 * The argv for one host. Refuses a template that names no host: a power-off command that does not say
 * which machine would power off whatever its default is.
 */
export function expandTemplate(template: string, vars: { host: string; address: string }): LocalCommand {
  const words = splitTemplate(template);
  if (!words.length) throw new TemplateError(t('the command is empty'));
  if (!words.some((w) => /\{(host|address)\}/.test(w))) throw new TemplateError(t('the command must name the machine with {host} or {address}: {0}', template));
  const unknown = words.flatMap((w) => [...w.matchAll(/\{([a-z]+)\}/g)].map((m) => m[1]!)).filter((n) => n !== 'host' && n !== 'address');
  if (unknown.length) throw new TemplateError(t('unknown placeholder {0} (use {host} or {address})', `{${unknown[0]}}`));
  const argv = words.map((w) => w.replace(PLACEHOLDER, (_, k: 'host' | 'address') => vars[k]));
  return { argv, display: commandLine(argv) };
}

/**
 * A command of the user's (a power-off, power-on, cut or heal template) expanded for the host, or a refusal pushed
 * instead: `missing` when there is no template, the template's own problem when it is not one.
 */
export function userCommand(template: string | undefined, vars: { host: string; address: string }, what: string, missing: string, refusals: string[]): LocalCommand | undefined {
  if (!template?.trim()) {
    refusals.push(missing);
    return undefined;
  }
  try {
    return expandTemplate(template, vars);
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    refusals.push(t('{0} command: {1}', what, e.message));
    return undefined;
  }
}

/** The power-off drill's two commands of the user's (node and balancer drills alike), or refusals for what is missing. */
export function powerCommands(req: { powerOffCommand?: string | undefined; powerOnCommand?: string | undefined }, vars: { host: string; address: string }, refusals: string[]): { off?: LocalCommand; on?: LocalCommand } {
  const missing = (what: 'power-off' | 'power-on') => t('power-off needs a {0} command (a template with {host} or {address}, run locally, e.g. `govc vm.power -{1} {host}`)', what, what === 'power-off' ? 'off' : 'on');
  const off = userCommand(req.powerOffCommand, vars, 'power-off', missing('power-off'), refusals);
  const on = userCommand(req.powerOnCommand, vars, 'power-on', missing('power-on'), refusals);
  return { ...(off ? { off } : {}), ...(on ? { on } : {}) };
}
