/**
 * The one text guard every linter shares: a file too large, binary or not decodable as text is reported once,
 * with one rule id and severity, and not checked further — whatever kind of configuration its name promises.
 * The size limit depends on the kind (KINDS below); the binary and encoding checks are the same for all.
 * Severity is a warning: the file was not judged, which is not a proof that it is wrong.
 */
import { ZERO_RANGE, type Finding } from '../findings';
import { ruleTable } from './ruleTable';
import type { FileKind } from './types';
import { t, msg, type Message } from '../l10n';

/**
 * What each kind of file is called in the guard's message, and its size limit in characters. Files of these
 * kinds are a few kilobytes, so a larger one is not checked. HAProxy and Keepalived files have no size limit:
 * a generated haproxy.cfg with thousands of servers is real, and the lint worker's time limit stops one too
 * large to check in time. The inventory's loader has its own limit (../inventory/parse.ts).
 */
const KINDS: Record<FileKind, { what: Message; maxChars?: number }> = {
  inventory: { what: msg('an inventory') },
  kubeadm: { what: msg('a kubeadm configuration'), maxChars: 512_000 },
  containerd: { what: msg('a containerd config'), maxChars: 512_000 },
  sysctl: { what: msg('a sysctl.d file'), maxChars: 1_000_000 },
  modules: { what: msg('a modules-load.d file'), maxChars: 1_000_000 },
  haproxy: { what: msg('an HAProxy configuration') },
  keepalived: { what: msg('a keepalived configuration') },
  'cni-manifest': { what: msg('a CNI manifest') },
};

/** The most characters a file of this kind may have to be checked. */
export function maxChars(kind: FileKind): number {
  return KINDS[kind].maxChars ?? Infinity;
}

/** How much of the start of a file decides whether it is text. */
const SAMPLE = 8192;

export const TEXT_GUARD = ruleTable([
  {
    id: 'lint/not-text',
    severity: 'warning',
    title: msg('The file is text of a size a configuration has.'),
    why: msg('A configuration is a few kilobytes of text; a huge, binary or undecodable file is not one, and checking it would stall the editor.'),
  },
]);

export const TEXT_GUARD_RULE = TEXT_GUARD.info('lint/not-text');

/**
 * The last text looksBinary judged and its answer: one lint asks it up to three times of the same text (the
 * registry's guard, the linter's own guard for callers that skip the registry, the parser), 0.05 ms each on a
 * slow machine.
 */
let last: { text: string; binary: boolean } | undefined;

/** True when the text is not a text file: a NUL byte, or more than 10 % control or undecodable characters. */
export function looksBinary(text: string): boolean {
  if (last?.text === text) return last.binary;
  const binary = sampleLooksBinary(text);
  last = { text, binary };
  return binary;
}

function sampleLooksBinary(text: string): boolean {
  const sample = text.slice(0, SAMPLE);
  if (sample.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/** The guard's finding for a file of this kind that is not checked, or undefined when the file may be linted. */
export function textGuard(text: string, kind: FileKind): Finding | undefined {
  const { maxChars: limit } = KINDS[kind];
  const what = t(KINDS[kind].what);
  if (limit !== undefined && text.length > limit) {
    return TEXT_GUARD.finding('lint/not-text', t('The file has {0} characters (more than {1}); {2} is a few kilobytes, so it is not checked.', text.length, limit, what), ZERO_RANGE);
  }
  if (looksBinary(text)) {
    return TEXT_GUARD.finding('lint/not-text', t('This is not a text file (it holds NUL, control or undecodable bytes), so it cannot be {0}; it is not checked.', what), ZERO_RANGE);
  }
  return undefined;
}
