/**
 * What every webview shell shares: a fresh nonce per render, the Content-Security-Policy
 * (`default-src 'none'`; script and style only by nonce or from the extension), attribute escaping.
 */
import { randomBytes } from 'node:crypto';

export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[+/=]/g, '');
}

export const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    // Components from @vscode-elements adopt constructable stylesheets; the page's own style is nonce'd.
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}
