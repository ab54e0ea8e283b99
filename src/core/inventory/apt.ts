/**
 * apt source lines of the inventory (`packages.kubernetesApt`, `packages.debianApt`), parsed into parts.
 * The line is written to /etc/apt/sources.list.d and its `signed-by` keyring is where the phases dearmor the
 * downloaded key as root, so that path is confined to apt's keyring folders: a line naming /etc/passwd
 * would otherwise have the key written over it.
 */
import { posix } from 'node:path';
import { urlProblem } from './fields';
import { t } from '../l10n';

export const KEYRING_DIRS = ['/etc/apt/keyrings/', '/usr/share/keyrings/'] as const;
/** Where packages install keyrings (debian-archive-keyring.gpg): a key we download never goes there. */
export const DISTRIBUTION_KEYRINGS = '/usr/share/keyrings/';

/** The inventory's apt sources: the line, its key's URL and pin, the list file and the keyring when the line names none. */
export const APT_SOURCES = [
  { line: 'kubernetesApt', key: 'kubernetesAptKey', pin: 'kubernetesAptKeySha256', list: 'kubernetes.list', keyring: '/etc/apt/keyrings/kubernetes-apt-keyring.gpg' },
  { line: 'debianApt', key: 'debianAptKey', pin: 'debianAptKeySha256', list: 'debian-local.list', keyring: '/etc/apt/keyrings/debian-local.gpg' },
] as const;

export interface AptSource {
  uri: string;
  suite: string;
  components: string[];
  signedBy?: string;
  arch?: string;
}

const WORD = /^[A-Za-z0-9][A-Za-z0-9._~+:/-]*$/;

/** A keyring file directly inside one of apt's keyring folders; undefined when it is one. */
export function keyringProblem(path: string): string | undefined {
  const dir = KEYRING_DIRS.find((d) => path.startsWith(d));
  const name = dir ? path.slice(dir.length) : '';
  if (!dir || !/^[A-Za-z0-9][A-Za-z0-9._-]*\.(gpg|asc)$/.test(name) || posix.normalize(path) !== path) {
    return t('signed-by {0} must be a .gpg or .asc file directly in {1}', path, KEYRING_DIRS.join(' or '));
  }
  return undefined;
}

export function parseAptLine(line: string): AptSource | string {
  const m = /^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)((?:\s+\S+)*)\s*$/.exec(line);
  if (!m) return t('is not a one-line apt source: deb [signed-by=/etc/apt/keyrings/NAME.gpg] URI SUITE [COMPONENT...]');
  const out: AptSource = { uri: m[2]!, suite: m[3]!, components: m[4]!.trim() ? m[4]!.trim().split(/\s+/) : [] };
  for (const opt of (m[1] ?? '').trim().split(/\s+/).filter(Boolean)) {
    const [key, value, extra] = opt.split('=');
    if (value === undefined || extra !== undefined || !value) return t('option "{0}" is not key=value', opt);
    if (key === 'signed-by') {
      const bad = keyringProblem(value);
      if (bad) return bad;
      out.signedBy = value;
    } else if (key === 'arch') {
      if (!/^[a-z0-9-]+(,[a-z0-9-]+)*$/.test(value)) return t('arch={0} is not a list of Debian architectures', value);
      out.arch = value;
    } else {
      return t("option {0} is not supported here (only signed-by and arch): options such as trusted=yes turn off apt's signature check", key);
    }
  }
  const bad = urlProblem(out.uri, false);
  if (bad) return `URI ${out.uri} ${bad}`;
  for (const w of [out.suite, ...out.components]) if (!WORD.test(w) && w !== '/') return t('"{0}" is not a suite or component name', w);
  if (out.suite !== '/' && !WORD.test(out.suite)) return t('suite {0} is not valid', out.suite);
  return out;
}

/** The line as it is written to the host: rebuilt from the validated parts, never the inventory's text. */
export function renderAptLine(src: AptSource): string {
  const opts = [src.signedBy ? `signed-by=${src.signedBy}` : '', src.arch ? `arch=${src.arch}` : ''].filter(Boolean);
  return ['deb', ...(opts.length ? [`[${opts.join(' ')}]`] : []), src.uri, src.suite, ...src.components].join(' ');
}
