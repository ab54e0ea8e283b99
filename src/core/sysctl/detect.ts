/** Whether a file is a sysctl.d or modules-load.d file, by name and content: cheap (../lint/kinds.ts). */

export function isSysctlFile(path: string, text?: string): boolean {
  const p = path.replace(/\\/g, '/');
  if (/(^|\/)sysctl\.d\/[^/]+\.conf$/.test(p) || /(^|\/)sysctl\.conf$/.test(p)) return true;
  if (text === undefined || !/\.conf$/.test(p) || text.length > 100_000) return false;
  // By content: every setting line is `a.b.c = value` and at least one is a well-known kernel namespace.
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#') && !l.startsWith(';'));
  return lines.length > 0 && lines.every((l) => /^-?[\w*-]+(?:[./][\w*-]+)+\s*=/.test(l)) && lines.some((l) => /^-?(net|kernel|vm|fs)[./]/.test(l));
}

export function isModulesFile(path: string): boolean {
  const p = path.replace(/\\/g, '/');
  return /(^|\/)modules-load\.d\/[^/]+\.conf$/.test(p) || /(^|\/)etc\/modules$/.test(p);
}
