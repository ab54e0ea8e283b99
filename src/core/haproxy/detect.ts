/** Whether a file is an haproxy.cfg, by name and content: cheap, without the parser (../lint/kinds.ts). */

/** haproxy.cfg by name, or a `.cfg` whose content opens HAProxy sections. */
export function detectHaproxy(path: string, text: string): boolean {
  const base = path.split(/[\\/]/).pop() ?? path;
  if (/^haproxy.*\.cfg$/i.test(base)) return true;
  if (!/\.cfg$/i.test(base) && !/haproxy/i.test(path)) return false;
  const head = text.slice(0, 20_000);
  return /^\s*(global|defaults|frontend|backend|listen)\b/m.test(head) && /^\s*(bind|server|mode|timeout|default_backend|balance)\s/m.test(head);
}
