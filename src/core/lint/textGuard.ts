/**
 * The one text guard every linter shares: a file too large, binary or not decodable as text is reported once,
 * with one rule id and severity, and not checked further — whatever kind of configuration its name promises.
 * Severity is a warning: the file was not judged, which is not a proof that it is wrong.
 */
import { ZERO_RANGE, type Finding } from '../findings';
import { ruleTable } from './ruleTable';

/** Configurations are a few kilobytes (the 10,000-line haproxy benchmark file is 240 KB); above this nothing is checked. */
export const MAX_TEXT_CHARS = 1_000_000;
/** How much of the start of a file decides whether it is text. */
const SAMPLE = 8192;

export const TEXT_GUARD = ruleTable([
  {
    id: 'lint/not-text',
    severity: 'warning',
    title: 'The file is text of a size a configuration has.',
    why: 'A configuration is a few kilobytes of text; a huge, binary or undecodable file is not one, and checking it would stall the editor.',
  },
]);

export const TEXT_GUARD_RULE = TEXT_GUARD.info('lint/not-text');

/** True when the text is not a text file: a NUL byte, or more than 10 % control or undecodable characters. */
export function looksBinary(text: string): boolean {
  const sample = text.slice(0, SAMPLE);
  if (sample.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/** The guard's finding for a file that is not checked, or undefined when the file may be linted. `what` names the expected kind. */
export function textGuard(text: string, what: string): Finding | undefined {
  if (text.length > MAX_TEXT_CHARS) {
    return TEXT_GUARD.finding('lint/not-text', `The file has ${text.length} characters (more than ${MAX_TEXT_CHARS}); ${what} is a few kilobytes, so it is not checked.`, ZERO_RANGE);
  }
  if (looksBinary(text)) {
    return TEXT_GUARD.finding('lint/not-text', `This is not a text file (it holds NUL, control or undecodable bytes), so it cannot be ${what}; it is not checked.`, ZERO_RANGE);
  }
  return undefined;
}
