/**
 * Words placed into haproxy.cfg and keepalived.conf. Both formats split on whitespace and give meaning to
 * quotes, braces, `#`, `!` and backslashes, so a value is written only when it is one plain word of the
 * characters these files take literally; anything else is refused here (validation should have caught it
 * first), never escaped into a form one of the two parsers might read differently.
 */
export class UnsafeConfigWordError extends Error {}

const PLAIN = /^[A-Za-z0-9_.:/@=+-]+$/;

export function configWord(value: string | number, what: string): string {
  const s = String(value);
  if (!PLAIN.test(s) || s.length > 255) throw new UnsafeConfigWordError(`refusing to write ${what} ${JSON.stringify(s)} into a config file: it is not one plain word`);
  return s;
}
