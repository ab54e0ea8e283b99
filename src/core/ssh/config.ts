/**
 * Resolves an inventory host to SSH connection parameters through OpenSSH client configs, parsed with the
 * `ssh-config` library (its parser only: evaluation is done here, so `Match exec` is never run and Include is
 * read through the caller's reader).
 *
 * Layers, highest first:
 *  1. the inventory's explicit SSH settings — the host's `ssh:` block, then the inventory-wide `ssh:` block
 *     (user, port, identityFile, proxyJump). Like options on the ssh command line they beat every config file.
 *  2. `~/.ssh/config`, then the workspace SSH config (setting kubeadmWorkbench.sshConfigFile), read in that
 *     order with OpenSSH's rule: for each parameter the first value obtained wins (IdentityFile accumulates).
 *  3. defaults: user `root` (the inventory's default), port 22, HostName = the inventory address, and OpenSSH's
 *     default identity files (~/.ssh/id_ed25519, id_ecdsa, id_rsa) when none is named.
 *
 * `Host` patterns (`*`, `?`, `!negation`, several per line) are matched against the inventory host name and
 * against its address: a block applies when a pattern matches either, unless a negated pattern matches either. A config `HostName` replaces the inventory address
 * as the SSH endpoint (the address stays the cluster's node IP); `%h` in it is the inventory address.
 * `Match` supports `all`, `host`, `originalhost`, `user`, `localuser`; `Match exec` is never executed and its
 * block is skipped with a warning. `Include` takes globs, relative paths are relative to ~/.ssh, and may appear
 * inside Host/Match blocks (then only applies when the block does).
 * Tokens: `~` and `%d %h %n %p %r %u %%` (and `%l` when a local host name is given) in IdentityFile,
 * UserKnownHostsFile, IdentityAgent; `%h %%` in HostName.
 * ProxyJump: comma lists `[user@]host[:port]`, `none`; each hop is resolved through the configs itself (the
 * first hop's own ProxyJump is followed, as OpenSSH does); an inventory host name as hop uses that host's
 * inventory settings.
 */
import type * as SshConfigLib from 'ssh-config' with { 'resolution-mode': 'import' };
import type { Line } from 'ssh-config' with { 'resolution-mode': 'import' };
// ssh-config ships CommonJS (dist/) and ESM (lib/); its type map only points at the ESM build, so the types
// are imported as ESM and the CommonJS build is required (what esbuild and tsx load).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse } = require('ssh-config') as typeof SshConfigLib;
import { matchPatternList, wildcardMatch } from './knownHosts';
import { errorMessage } from '../errors';
import { t, t as say } from '../l10n';

export interface SshConfigEnv {
  /** Config files in precedence order; a missing file is skipped. Usually [~/.ssh/config, workspace file]. */
  files: string[];
  homeDir: string;
  /** The local user name (for `%u` and `Match localuser`). */
  localUser: string;
  localHostName?: string;
  /** Returns the text of a file, or undefined when it does not exist. */
  readFile: (path: string) => string | undefined;
  /** Lists the entry names of a directory (for Include globs); [] when it does not exist. */
  listDir: (path: string) => string[];
}

/** The explicit SSH settings of the inventory for one host (host's own over inventory-wide; no defaults). */
export interface ExplicitSsh {
  user?: string;
  port?: number;
  identityFile?: string;
  proxyJump?: string;
}

export interface SshTarget {
  /** The inventory host name (matched against Host patterns, `%n`). */
  name: string;
  /** The inventory address (default HostName, also matched against Host patterns). */
  address: string;
  explicit?: ExplicitSsh;
}

export interface ResolvedHop {
  /** What the hop was called (inventory name, jump spec host, or alias). */
  alias: string;
  hostname: string;
  port: number;
  user: string;
  identityFiles: string[];
  identitiesOnly: boolean;
  /** `none` disables the agent; a path overrides SSH_AUTH_SOCK. */
  identityAgent?: string;
  /** The name to look up in known_hosts instead of hostname. */
  hostKeyAlias?: string;
  /** Extra known_hosts files named by UserKnownHostsFile. */
  userKnownHostsFiles: string[];
  connectTimeoutSec?: number;
  serverAliveIntervalSec?: number;
  serverAliveCountMax?: number;
  /** Where each parameter came from: `inventory`, a config file path, or `default`. */
  sources: Record<string, string>;
}

export interface ResolvedHost extends ResolvedHop {
  /** Jump hosts, first to last; the target is reached through the last one. Empty for a direct connection. */
  jumps: ResolvedHop[];
  warnings: string[];
}

/** Looks up an inventory host by name (for ProxyJump hops that name inventory hosts). */
export type InventoryLookup = (name: string) => SshTarget | undefined;

interface Collected {
  values: Map<string, { value: string; source: string }>;
  identityFiles: { value: string; source: string }[];
  warnings: string[];
}

const MAX_INCLUDE_DEPTH = 16;
const MAX_JUMP_DEPTH = 8;

function valueText(v: Line extends infer L ? (L extends { value: infer V } ? V : never) : never): string {
  if (typeof v === 'string') return v;
  return (v as { val: string }[]).map((x) => x.val).join(' ');
}

function valueList(v: unknown): string[] {
  if (typeof v === 'string') return v.split(/\s+/).filter((s) => s !== '');
  return (v as { val: string }[]).map((x) => x.val);
}

export function expandTilde(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return `${home}/${path.slice(2)}`;
  return path;
}

function join(dir: string, rel: string): string {
  return rel.startsWith('/') ? rel : `${dir.replace(/\/+$/, '')}/${rel}`;
}

/** Expands an Include argument to existing files, in lexical order per glob, via env.listDir. */
export function expandIncludeGlob(pattern: string, env: SshConfigEnv): string[] {
  const abs = join(`${env.homeDir}/.ssh`, expandTilde(pattern, env.homeDir));
  const parts = abs.split('/').filter((p) => p !== '');
  let paths = [''];
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    if (!/[*?]/.test(part)) {
      paths = paths.map((p) => `${p}/${part}`);
      continue;
    }
    const next: string[] = [];
    for (const p of paths) {
      for (const name of [...env.listDir(p || '/')].sort()) {
        if (name.startsWith('.') && !part.startsWith('.')) continue;
        if (wildcardMatch(name, part) && name === name.trim()) next.push(`${p}/${name}`);
      }
    }
    paths = next;
    if (!last && paths.length === 0) break;
  }
  return paths.filter((p) => env.readFile(p) !== undefined);
}

interface MatchContext {
  name: string;
  address: string;
  env: SshConfigEnv;
  /** The user so far (explicit or first User seen), for Match user. */
  user: () => string | undefined;
  hostname: () => string;
}

/** A Host block applies when a positive pattern matches the name or the address and no negated one matches either. */
function hostBlockApplies(patterns: string[], ctx: MatchContext): boolean {
  const candidates = ctx.address !== ctx.name ? [ctx.name, ctx.address] : [ctx.name];
  const negated = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  if (negated.some((p) => candidates.some((c) => wildcardMatch(c, p)))) return false;
  return patterns.some((p) => !p.startsWith('!') && candidates.some((c) => wildcardMatch(c, p)));
}

function matchBlockApplies(args: string[], ctx: MatchContext, c: Collected, file: string): boolean {
  let i = 0;
  let result = true;
  while (i < args.length) {
    const raw = args[i++]!;
    const negate = raw.startsWith('!');
    const crit = (negate ? raw.slice(1) : raw).toLowerCase();
    let ok: boolean;
    if (crit === 'all') ok = true;
    else if (crit === 'canonical' || crit === 'final') ok = true;
    else {
      const arg = args[i++];
      if (arg === undefined) {
        c.warnings.push(t('{0}: Match {1} needs an argument; block skipped', file, crit));
        return false;
      }
      const list = arg.split(',');
      switch (crit) {
        case 'host':
          ok = matchPatternList(ctx.hostname(), list);
          break;
        case 'originalhost':
          ok = matchPatternList(ctx.name, list) || matchPatternList(ctx.address, list);
          break;
        case 'user':
          ok = matchPatternList(ctx.user() ?? 'root', list);
          break;
        case 'localuser':
          ok = matchPatternList(ctx.env.localUser, list);
          break;
        case 'exec':
          c.warnings.push(t('{0}: Match exec is never run by Kubeadm Workbench; that block is skipped', file));
          return false;
        default:
          c.warnings.push(t('{0}: Match {1} is not supported; that block is skipped', file, crit));
          return false;
      }
    }
    if (negate) ok = !ok;
    result = result && ok;
  }
  return result;
}

function collect(lines: readonly Line[], file: string, ctx: MatchContext, c: Collected, depth: number): void {
  for (const line of lines) {
    if (line.type !== 1) continue; // comments, blank lines
    const param = line.param.toLowerCase();
    if ('config' in line) {
      const section = line as Line & { config: Line[] };
      let applies: boolean;
      if (param === 'host') applies = hostBlockApplies(valueList(line.value), ctx);
      else applies = matchBlockApplies(valueList(line.value), ctx, c, file);
      if (applies) collect(section.config, file, ctx, c, depth);
      continue;
    }
    if (param === 'include') {
      if (depth >= MAX_INCLUDE_DEPTH) {
        c.warnings.push(t('{0}: Include nested too deeply; ignored', file));
        continue;
      }
      for (const pattern of valueList(line.value)) {
        for (const inc of expandIncludeGlob(pattern, ctx.env)) {
          const text = ctx.env.readFile(inc);
          if (text === undefined) continue;
          collect(parseSafe(text, inc, c), inc, ctx, c, depth + 1);
        }
      }
      continue;
    }
    const value = valueText(line.value as never);
    if (param === 'identityfile') {
      c.identityFiles.push({ value, source: file });
      continue;
    }
    if (!c.values.has(param)) c.values.set(param, { value, source: file });
  }
}

function parseSafe(text: string, file: string, c: Collected): readonly Line[] {
  try {
    return parse(text);
  } catch (e) {
    c.warnings.push(t('{0}: cannot parse: {1}', file, errorMessage(e)));
    return [];
  }
}

function collectAll(target: SshTarget, env: SshConfigEnv, explicitUser: string | undefined): Collected {
  const c: Collected = { values: new Map(), identityFiles: [], warnings: [] };
  const ctx: MatchContext = {
    name: target.name,
    address: target.address,
    env,
    user: () => explicitUser ?? c.values.get('user')?.value,
    hostname: () => c.values.get('hostname')?.value.replace(/%h/g, target.address) ?? target.address,
  };
  for (const file of env.files) {
    const text = env.readFile(file);
    if (text === undefined) continue;
    collect(parseSafe(text, file, c), file, ctx, c, 0);
  }
  return c;
}

export interface TokenValues {
  d: string;
  h: string;
  n: string;
  p: number;
  r: string;
  u: string;
  l?: string;
}

/** OpenSSH `%` tokens. Unknown tokens are left as written and reported. */
export function expandTokens(text: string, t: TokenValues, warnings?: string[]): string {
  return text.replace(/%(.)/g, (m, ch: string) => {
    switch (ch) {
      case '%':
        return '%';
      case 'd':
        return t.d;
      case 'h':
        return t.h;
      case 'n':
        return t.n;
      case 'p':
        return String(t.p);
      case 'r':
        return t.r;
      case 'u':
        return t.u;
      case 'l':
        if (t.l !== undefined) return t.l;
        break;
    }
    warnings?.push(say('token {0} is not supported in "{1}"', m, text));
    return m;
  });
}

function toInt(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

function resolveHop(target: SshTarget, env: SshConfigEnv, warnings: string[]): { hop: ResolvedHop; proxyJump?: { value: string; source: string } } {
  const ex = target.explicit ?? {};
  const c = collectAll(target, env, ex.user);
  warnings.push(...c.warnings);
  const sources: Record<string, string> = {};
  const pick = (key: string, explicit: string | number | undefined, fallback: string): string => {
    if (explicit !== undefined && explicit !== '') {
      sources[key] = 'inventory';
      return String(explicit);
    }
    const v = c.values.get(key.toLowerCase());
    if (v) {
      sources[key] = v.source;
      return v.value;
    }
    sources[key] = 'default';
    return fallback;
  };
  const user = pick('User', ex.user, 'root');
  const portText = pick('Port', ex.port, '22');
  const port = toInt(portText);
  if (port === undefined || port < 1 || port > 65535) throw new SshConfigError(t('{0}: invalid Port "{1}" (from {2})', target.name, portText, String(sources.Port)));
  const hostnameRaw = c.values.get('hostname');
  let hostname = target.address;
  sources.HostName = 'inventory';
  if (hostnameRaw) {
    hostname = expandTokens(hostnameRaw.value, { d: env.homeDir, h: target.address, n: target.name, p: port, r: user, u: env.localUser }, warnings);
    sources.HostName = hostnameRaw.source;
  }
  const tokens: TokenValues = { d: env.homeDir, h: hostname, n: target.name, p: port, r: user, u: env.localUser, ...(env.localHostName ? { l: env.localHostName } : {}) };
  const pathOf = (p: string) => expandTokens(expandTilde(p, env.homeDir), tokens, warnings);

  let identityFiles: string[];
  if (ex.identityFile) {
    // The inventory's key comes first; config keys still follow (ssh -i adds to IdentityFile).
    identityFiles = [ex.identityFile, ...c.identityFiles.map((f) => f.value)].map(pathOf);
    sources.IdentityFile = 'inventory';
  } else if (c.identityFiles.length > 0) {
    identityFiles = c.identityFiles.map((f) => pathOf(f.value));
    sources.IdentityFile = c.identityFiles[0]!.source;
  } else {
    identityFiles = ['~/.ssh/id_ed25519', '~/.ssh/id_ecdsa', '~/.ssh/id_rsa'].map(pathOf);
    sources.IdentityFile = 'default';
  }
  identityFiles = [...new Set(identityFiles)];

  const get = (k: string) => c.values.get(k)?.value;
  const hop: ResolvedHop = {
    alias: target.name,
    hostname,
    port,
    user,
    identityFiles,
    identitiesOnly: /^yes$/i.test(get('identitiesonly') ?? 'no'),
    userKnownHostsFiles: get('userknownhostsfile') ? valueList(get('userknownhostsfile')!).filter((f) => f !== 'none').map(pathOf) : [],
    sources,
  };
  const agent = get('identityagent');
  if (agent !== undefined) hop.identityAgent = agent === 'none' || agent === 'SSH_AUTH_SOCK' ? agent : pathOf(agent);
  const alias = get('hostkeyalias');
  if (alias !== undefined) hop.hostKeyAlias = alias;
  const ct = toInt(get('connecttimeout'));
  if (ct !== undefined) hop.connectTimeoutSec = ct;
  const sai = toInt(get('serveraliveinterval'));
  if (sai !== undefined) hop.serverAliveIntervalSec = sai;
  const sacm = toInt(get('serveralivecountmax'));
  if (sacm !== undefined) hop.serverAliveCountMax = sacm;
  for (const unsupported of ['proxycommand', 'localcommand', 'remotecommand', 'knownhostscommand']) {
    if (c.values.has(unsupported)) warnings.push(t('{0}: {1} (from {2}) is not used by Kubeadm Workbench', target.name, unsupported, c.values.get(unsupported)!.source));
  }
  const pj = ex.proxyJump ? { value: ex.proxyJump, source: 'inventory' } : c.values.get('proxyjump');
  return { hop, ...(pj ? { proxyJump: pj } : {}) };
}

export class SshConfigError extends Error {}

/** `[user@]host[:port]` or `ssh://[user@]host[:port]`, IPv6 in brackets. */
export function parseJumpSpec(spec: string): { user?: string; host: string; port?: number } {
  let s = spec.trim().replace(/^ssh:\/\//, '');
  let user: string | undefined;
  const at = s.lastIndexOf('@');
  if (at >= 0) {
    user = s.slice(0, at);
    s = s.slice(at + 1);
  }
  let host = s;
  let port: number | undefined;
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([^:]+)(?::(\d+))?$/.exec(s);
  if (m) {
    host = m[1]!;
    if (m[2] !== undefined) port = Number(m[2]);
  }
  if (!host || /\s/.test(host)) throw new SshConfigError(t('invalid ProxyJump host "{0}"', spec));
  if (port !== undefined && (port < 1 || port > 65535)) throw new SshConfigError(t('invalid port in ProxyJump "{0}"', spec));
  return { ...(user ? { user } : {}), host, ...(port !== undefined ? { port } : {}) };
}

/**
 * Resolves a target (normally an inventory host) to its connection parameters and jump chain.
 * Throws SshConfigError for invalid values and for ProxyJump loops.
 */
export function resolveHost(target: SshTarget, env: SshConfigEnv, lookup: InventoryLookup = () => undefined): ResolvedHost {
  const warnings: string[] = [];
  const jumps = resolveChain(target, env, lookup, warnings, [target.name]);
  const { hop } = resolveHop(target, env, warnings);
  return { ...hop, jumps, warnings: [...new Set(warnings)] };
}

function resolveChain(target: SshTarget, env: SshConfigEnv, lookup: InventoryLookup, warnings: string[], seen: string[]): ResolvedHop[] {
  if (seen.length > MAX_JUMP_DEPTH) throw new SshConfigError(t('ProxyJump chain too long: {0}', seen.join(' → ')));
  const { proxyJump } = resolveHop(target, env, []);
  if (!proxyJump || proxyJump.value.trim().toLowerCase() === 'none') return [];
  const specs = proxyJump.value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const hops: ResolvedHop[] = [];
  specs.forEach((spec, i) => {
    const j = parseJumpSpec(spec);
    if (seen.includes(j.host)) throw new SshConfigError(t('ProxyJump loop: {0}', [...seen, j.host].join(' → ')));
    const inv = lookup(j.host);
    const hopTarget: SshTarget = inv
      ? { ...inv, explicit: { ...inv.explicit, ...(j.user ? { user: j.user } : {}), ...(j.port ? { port: j.port } : {}) } }
      : { name: j.host, address: j.host, explicit: { ...(j.user ? { user: j.user } : {}), ...(j.port ? { port: j.port } : {}) } };
    if (i === 0) {
      // The first hop is connected to like `ssh hop`: its own ProxyJump applies.
      hops.push(...resolveChain(hopTarget, env, lookup, warnings, [...seen, j.host]));
    }
    // Later hops are reached through the previous ones; their own ProxyJump is overridden (as with ssh -J).
    const { hop } = resolveHop({ ...hopTarget, explicit: { ...hopTarget.explicit, proxyJump: 'none' } }, env, warnings);
    hop.sources.ProxyJump = proxyJump.source;
    hops.push(hop);
  });
  return hops;
}

/** The explicit SSH settings of an inventory host: its own `ssh:` over the inventory-wide one, no defaults. */
export function explicitSshFor(invSsh: ExplicitSsh | undefined, hostSsh: ExplicitSsh | undefined): ExplicitSsh {
  const out: ExplicitSsh = {};
  for (const src of [invSsh, hostSsh]) {
    if (!src) continue;
    if (src.user !== undefined) out.user = src.user;
    if (src.port !== undefined) out.port = src.port;
    if (src.identityFile !== undefined) out.identityFile = src.identityFile;
    if (src.proxyJump !== undefined) out.proxyJump = src.proxyJump;
  }
  return out;
}
