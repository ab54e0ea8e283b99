/** Whether a file is a keepalived.conf, by name and content: cheap, without the parser (../lint/kinds.ts). */

export function isKeepalivedName(path: string): boolean {
  const base = path.split(/[\\/]/).pop() ?? path;
  return /^keepalived.*\.conf$/i.test(base);
}

export function detectKeepalived(path: string, text: string): boolean {
  if (isKeepalivedName(path)) return true;
  if (!/\.conf$/i.test(path) && !/keepalived/i.test(path)) return false;
  return /^\s*(vrrp_instance|vrrp_script|global_defs|virtual_server)\s+[^\n]*\{?/m.test(text.slice(0, 20_000)) && /\b(vrrp_instance|virtual_server|vrrp_script)\b/.test(text.slice(0, 20_000));
}
