/**
 * Runs the preflight (core/preflight/model.ts) over the hosts in scope, all in parallel: per host the SSH settings,
 * the name, the port's SSH greeting (adapters/ssh/probe.ts), the keys a login would offer, then one login through the
 * operation's own SSH transport — so its host-key decisions and its connections carry over to the operation — and
 * `sudo -n true` when the login user is not root (no password is ever sent here). A host that does not answer costs
 * its connect timeout once: the login is not tried after the port failed. Unknown host keys are refused and kept
 * while it runs (the transport's deferUnknownKeys), to be reviewed together afterwards (workflows/preflightStep.ts).
 */
import { checkTitle, failedCheck, okCheck, skipped, type CheckId, type CheckResult, type HostPreflight, type PreflightReport, type UnknownHostKey } from '../core/preflight/model';
import type { Inventory } from '../core/inventory/types';
import type { ResolvedHop, ResolvedHost } from '../core/ssh/config';
import { sh } from '../core/ssh/command';
import { describeSshFailure, describeSudoFailure, hostKeyFile, type KeyOffer } from '../core/ssh/failures';
import type { HostKeyAcceptance } from '../core/ssh/hostKeyPolicy';
import { ANY_EXIT_CODE, sshFailureOf, type SshTransport } from '../core/ssh/transport';
import { errorMessage } from '../core/errors';
import { t } from '../core/l10n';
import { agentSocketFor } from '../adapters/ssh/connection';
import { inspectAgent, inspectKeyFile, reachSsh, resolveName, type AgentState, type KeyFileState, type ProbeResult } from '../adapters/ssh/probe';

/** The SSH transport an operation uses, as far as the preflight needs it (a pool; a test's played hosts have less). */
export type PreflightSsh = SshTransport &
  Partial<HostKeyAcceptance> & {
    loginUser(host: string): string;
    /** The host's SSH parameters; absent: the name, port and key checks are left to the login. */
    resolve?(host: string): ResolvedHost;
    /** Connects without running anything; absent: the login is `true` run on the host. */
    connect?(host: string, options: { timeoutMs?: number; attempts?: number }): Promise<unknown>;
  };

/** The looks before the login (adapters/ssh/probe.ts; tests may replace them). */
export interface PreflightProbes {
  resolveName(name: string, timeoutMs: number): Promise<ProbeResult>;
  reach(hostname: string, port: number, timeoutMs: number): Promise<ProbeResult>;
  keyFile(file: string): Promise<KeyFileState>;
  agent(socket: string, timeoutMs: number): Promise<AgentState>;
}

export const NODE_PROBES: PreflightProbes = { resolveName, reach: reachSsh, keyFile: inspectKeyFile, agent: inspectAgent };

/** The connect time limit of a preflight: a host that does not answer is judged after this, once. */
export const PREFLIGHT_CONNECT_TIMEOUT_MS = 4000;

export interface PreflightRequest {
  inventory: Inventory;
  /** The operation's name in the table ("Bring Up", "Run Preflight Checks"). */
  operation: string;
  /** The hosts in scope (inventory names). */
  hosts: readonly string[];
  /**
   * The preflight on its own (the palette's Run Preflight Checks), not before an operation: the table shows also when
   * everything passes, and no title names an operation (the report says so: PreflightReport.standalone).
   */
  standalone?: boolean;
  /** Check sudo for hosts reached as another user than root (default true). */
  sudo?: boolean;
  /** The operation asks the sudo password itself: a sudo that wants one is a warning, not a failure. */
  sudoPasswordAsked: boolean;
  /** Kubeconfig and API checks, for operations on the cluster. */
  cluster?: () => Promise<CheckResult[]>;
  /** Per host connect time limit (default PREFLIGHT_CONNECT_TIMEOUT_MS, or the host's ConnectTimeout when it sets one). */
  timeoutMs?: number;
  /** Hosts checked at once (default 64). */
  parallel?: number;
  probes?: PreflightProbes;
}

export async function runPreflight(ssh: PreflightSsh, req: PreflightRequest): Promise<PreflightReport> {
  const t0 = Date.now();
  const clusterP = req.cluster ? req.cluster().catch((e: unknown): CheckResult[] => [{ id: 'kubeconfig', state: 'fail', detail: t('not checked'), cause: errorMessage(e), fix: t('see the Kubeadm Workbench log') }]) : Promise.resolve([]);
  ssh.deferUnknownKeys?.(true);
  let hosts: HostPreflight[];
  try {
    const keyCache = new Map<string, Promise<KeyFileState>>();
    const agentCache = new Map<string, Promise<AgentState>>();
    const probes = req.probes ?? NODE_PROBES;
    const ctx: HostContext = {
      ssh, req, probes,
      keyFile: (f) => keyCache.get(f) ?? keyCache.set(f, probes.keyFile(f)).get(f)!,
      agent: (s) => agentCache.get(s) ?? agentCache.set(s, probes.agent(s, 1500)).get(s)!,
    };
    hosts = await inParallel(req.hosts, req.parallel ?? 64, (h) => checkHost(ctx, h));
  } finally {
    ssh.deferUnknownKeys?.(false);
  }
  const clusterChecks = await clusterP;
  return { cluster: req.inventory.cluster.name, operation: req.operation, ...(req.standalone ? { standalone: true as const } : {}), at: new Date(t0).toISOString(), hosts, clusterChecks, ms: Date.now() - t0 };
}

async function inParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface HostContext {
  ssh: PreflightSsh;
  req: PreflightRequest;
  probes: PreflightProbes;
  keyFile(file: string): Promise<KeyFileState>;
  agent(socket: string): Promise<AgentState>;
}

const AFTER_REACH: CheckId[] = ['host-key', 'login', 'sudo'];

async function checkHost(ctx: HostContext, host: string): Promise<HostPreflight> {
  const t0 = Date.now();
  const { ssh, req } = ctx;
  const spec = req.inventory.hosts.find((h) => h.name === host);
  const row = (checks: CheckResult[], target: string, via: string[], unknownKey?: UnknownHostKey): HostPreflight => ({
    host, address: spec?.address ?? '?', target, via, checks, ms: Date.now() - t0, ...(unknownKey ? { unknownKey } : {}),
  });
  let r: ResolvedHost | undefined;
  try {
    r = ssh.resolve?.(host);
  } catch (e) {
    const f = sshFailureOf(e) ?? describeSshFailure({ hostname: host, port: 22, user: '', stage: 'connect', configError: errorMessage(e) });
    return row([failedCheck('ssh-config', f), ...skipped(['resolve', 'reach', 'keys', ...AFTER_REACH], 'ssh-config')], spec?.address ?? host, []);
  }
  const target = r ? `${r.user}@${r.hostname}${r.port === 22 ? '' : `:${r.port}`}` : (spec?.address ?? host);
  const via = r?.jumps.map((j) => j.alias) ?? [];
  const timeoutMs = req.timeoutMs ?? (r?.connectTimeoutSec ? r.connectTimeoutSec * 1000 : PREFLIGHT_CONNECT_TIMEOUT_MS);
  const checks: CheckResult[] = [okCheck('ssh-config', r ? settingsDetail(r) : t('the inventory\'s'))];
  if (r) {
    const first: ResolvedHop = r.jumps[0] ?? r;
    const keysP = keysCheck(ctx, r);
    const name = await ctx.probes.resolveName(first.hostname, timeoutMs);
    if (!name.ok) return row([...checks, failedCheck('resolve', name.failure!), await keysP, ...skipped(['reach', ...AFTER_REACH], 'resolve')], target, via);
    checks.push(okCheck('resolve', name.detail));
    const reach = await ctx.probes.reach(first.hostname, first.port, timeoutMs);
    if (!reach.ok) return row([...checks, failedCheck('reach', reach.failure!), await keysP, ...skipped(AFTER_REACH, 'reach')], target, via);
    checks.push(okCheck('reach', via.length ? t('{0} (the first jump host, {1}) in {2} ms', reach.detail, via[0], reach.ms) : t('{0} in {1} ms', reach.detail, reach.ms)));
    checks.push(await keysP);
  } else {
    checks.push(...(['resolve', 'reach', 'keys'] as const).map((id) => ({ id, state: 'skipped' as const, detail: t('checked by the login') })));
  }
  const login = await tryLogin(ctx, host, timeoutMs);
  if (login.failure) {
    const f = login.failure;
    if (f.group === 'host-key') return row([...checks, failedCheck('host-key', f), ...skipped(['login', 'sudo'], 'host-key')], target, via, unknownKeyOf(ctx, host, r));
    const keyKnown: CheckResult = f.group === 'auth' ? okCheck('host-key', t('known')) : { id: 'host-key', state: 'skipped', detail: t('not shown: the connection failed before it') };
    // No usable key, as the keys check said: the same cause once, not twice.
    const keysFailed = checks.some((c) => c.id === 'keys' && c.state === 'fail');
    const loginCheck: CheckResult = keysFailed && f.group === 'auth' ? { id: 'login', state: 'skipped', detail: t('not possible: no usable key (see keys)') } : failedCheck('login', f);
    return row([...checks, keyKnown, loginCheck, ...skipped(['sudo'], 'login')], target, via);
  }
  checks.push(okCheck('host-key', t('known')), okCheck('login', t('as {0} in {1} ms', login.user, login.ms)));
  checks.push(await sudoCheck(ctx, host, login.user, timeoutMs));
  return row(checks, target, via);
}

function settingsDetail(r: ResolvedHost): string {
  const from = [...new Set(Object.values(r.sources).filter((s) => s !== 'default'))];
  return from.length ? t('from {0}', from.join(', ')) : t('defaults');
}

async function keysCheck(ctx: HostContext, r: ResolvedHost): Promise<CheckResult> {
  const socket = agentSocketFor({ auth: undefined }, r);
  const useAgent = Boolean(socket) && !(r.identitiesOnly && r.sources.IdentityFile !== 'default');
  const [files, agent] = await Promise.all([Promise.all(r.identityFiles.map((f) => ctx.keyFile(f))), useAgent ? ctx.agent(socket) : Promise.resolve(undefined)]);
  const agentKeys = new Set(agent?.fingerprints ?? []);
  const loaded = files.filter((f) => f.state === 'loaded');
  const inAgent = files.filter((f) => f.state === 'encrypted' && f.fingerprint && agentKeys.has(f.fingerprint));
  const encrypted = files.filter((f) => f.state === 'encrypted' && !inAgent.includes(f));
  const words = (f: KeyFileState) => (f.keyType ? `${f.file} (${f.keyType})` : f.file);
  const agentWords = agent ? (agent.error ? t('the ssh-agent does not answer ({0})', agent.error) : agent.fingerprints!.length === 1 ? t('the ssh-agent holds 1 key') : t('the ssh-agent holds {0} keys', agent.fingerprints!.length)) : t('no ssh-agent');
  if (loaded.length || inAgent.length || agentKeys.size) {
    const offered = [...loaded.map(words), ...inAgent.map((f) => t('{0} through the agent', words(f)))];
    return okCheck('keys', t('{0}; {1}', offered.length ? t('offers {0}', offered.join(', ')) : t('the agent\'s keys'), agentWords));
  }
  if (encrypted.length) {
    const f = encrypted[0]!;
    return {
      id: 'keys', state: 'warn', kind: 'encrypted-key', detail: words(f), command: `ssh-add ${f.file}`,
      cause: t('{0} is passphrase-protected and no ssh-agent holds it: the editor asks the passphrase when it connects; the command line cannot', f.file),
      fix: t('load it into an agent once (eval "$(ssh-agent)"; ssh-add {0}), then run again', f.file),
    };
  }
  const offers: KeyOffer[] = [...files.map((f) => ({ source: f.file, state: f.state, offered: false })), ...(agent ? [{ source: 'agent', socket, state: 'agent-unavailable' as const, offered: false }] : [])];
  const f = describeSshFailure({ hostname: r.hostname, port: r.port, user: r.user, stage: 'auth', error: { level: 'client-authentication' }, keys: offers, ...(agent?.error ? { agentError: agent.error } : {}) });
  return { id: 'keys', state: 'fail', detail: t('no usable key'), cause: f.reason ?? f.cause, fix: f.fix, kind: f.kind, ...(f.command ? { command: f.command } : {}) };
}

async function tryLogin(ctx: HostContext, host: string, timeoutMs: number): Promise<{ user: string; ms: number; failure?: undefined } | { failure: NonNullable<ReturnType<typeof sshFailureOf>> }> {
  const t0 = Date.now();
  try {
    if (ctx.ssh.connect) await ctx.ssh.connect(host, { timeoutMs, attempts: 2 });
    else await ctx.ssh.exec(host, sh`true`, { timeoutMs });
    return { user: ctx.ssh.loginUser(host), ms: Date.now() - t0 };
  } catch (e) {
    const f = sshFailureOf(e);
    if (f) return { failure: f };
    const said = errorMessage(e).replace(new RegExp(`^${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `), '');
    return { failure: { kind: 'other', group: 'network', retry: 'no', cause: t('the login did not work: {0}', said), fix: t('see the Kubeadm Workbench log for the details') } };
  }
}

function unknownKeyOf(ctx: HostContext, host: string, r: ResolvedHost | undefined): UnknownHostKey | undefined {
  for (const alias of [host, ...(r?.jumps.map((j) => j.alias) ?? [])]) {
    const k = ctx.ssh.refusedKey?.(alias);
    if (k?.status !== 'unknown') continue;
    return { host, alias, address: k.port === 22 ? k.name : `[${k.name}]:${k.port}`, keyType: k.keyType, fingerprint: k.fingerprint, check: `ssh-keygen -lf ${hostKeyFile(k.keyType)}`, ...(k.note ? { note: k.note } : {}) };
  }
  return undefined;
}

async function sudoCheck(ctx: HostContext, host: string, user: string, timeoutMs: number): Promise<CheckResult> {
  if (user === 'root') return okCheck('sudo', t('not needed: logged in as root'));
  if (ctx.req.sudo === false) return { id: 'sudo', state: 'skipped', detail: t('not needed by this operation') };
  try {
    // -n: never a prompt and never a password here; LC_ALL=C: sudo's words are what the taxonomy reads.
    const r = await ctx.ssh.exec(host, sh`LC_ALL=C sudo -n true`, { okCodes: [...ANY_EXIT_CODE], timeoutMs: Math.max(timeoutMs, 5000) });
    const f = describeSudoFailure({ user, host, code: r.code, stderr: r.stderr, withPassword: false });
    if (!f) return okCheck('sudo', t('{0} may use sudo without a password', user));
    const asked = f.kind === 'sudo-password' && ctx.req.sudoPasswordAsked;
    return { ...failedCheck('sudo', f, asked ? 'warn' : 'fail'), detail: asked ? t('the operation asks the password once, before it runs') : checkTitle('sudo') };
  } catch (e) {
    return { id: 'sudo', state: 'fail', detail: checkTitle('sudo'), cause: t('sudo could not be tried: {0}', errorMessage(e)), fix: t('see the Kubeadm Workbench log for the details') };
  }
}
