/**
 * File names in the order `localeCompare` gives them, without paying for it where it is not needed: the first
 * `localeCompare` (or any Intl call) of a process loads ICU's collation, 13–20 ms on a loaded 2-core machine — a tenth
 * of a one-shot `kubeadm-workbench lint` of a small workspace, which sorts each folder's names once.
 *
 * For names that differ only in lowercase ASCII letters, digits, `.`, `/` and `-`, the Unicode root collation and the
 * tailorings of the languages below order them as their code points do (`-` < `.` < `/` < digits < letters, a prefix
 * first), so those are compared directly; any other pair still goes to `localeCompare`. Languages whose collation
 * re-orders ASCII letters (Czech `ch` after `h`, Danish `aa` last, …) always take `localeCompare`.
 */

/** Languages whose collation orders the characters above as their code points (checked by test/unit/text/nameOrder). */
const CODE_POINT_LANGUAGES = new Set(['', 'c', 'posix', 'en', 'ru', 'uk', 'de']);
/** What may differ between two names for the direct comparison. */
const PLAIN_TAIL = /^[a-z0-9./-]*$/;
/** What two names may share before they differ: no character that combines with the next one in any collation. */
const PLAIN_HEAD = /^[\x20-\x7e]*$/;

/** Whether the process's collation (ICU takes LC_ALL, then LC_MESSAGES, then LANG) orders plain names as code points do. */
export function codePointOrderHolds(env: Record<string, string | undefined>): boolean {
  return ['LC_ALL', 'LC_MESSAGES', 'LC_COLLATE', 'LANG'].every((name) => CODE_POINT_LANGUAGES.has(/^[A-Za-z]*/.exec(env[name] ?? '')![0].toLowerCase()));
}

/** A comparison of names with `localeCompare`'s sign; `direct` (codePointOrderHolds) allows the shortcut. */
export function nameOrder(direct: boolean): (a: string, b: string) => number {
  if (!direct) return (a, b) => a.localeCompare(b);
  return (a, b) => {
    let i = 0;
    while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    if (PLAIN_TAIL.test(a.slice(i)) && PLAIN_TAIL.test(b.slice(i)) && PLAIN_HEAD.test(a.slice(0, i))) return a === b ? 0 : a < b ? -1 : 1;
    return a.localeCompare(b);
  };
}
