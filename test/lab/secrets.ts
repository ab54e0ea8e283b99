/**
 * What the lab tests look for in run logs and command output: secrets that must never be written there, and the
 * masked forms that prove a secret was used and hidden (rather than never used, or a log that stayed empty).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The digests the lab inventory pins its downloads with (`packages.kubernetesAptKeySha256`…): 64 hex digits like a
 * certificate key, but public — the plan's commands compare the download against them.
 */
function publicDigests(): Set<string> {
  const inventory = join(process.env.KW_LAB_CACHE ?? '/var/cache/kubeadm-workbench/lab', 'state', 'inventory.yaml');
  if (!existsSync(inventory)) return new Set();
  return new Set([...readFileSync(inventory, 'utf8').matchAll(/^\s*\w+Sha256:\s*['"]?([0-9a-f]{64})\b/gm)].map((m) => m[1]!));
}

/**
 * Bootstrap tokens, 64-hex certificate keys (CA hashes, `sha256:<hex>`, and the inventory's download pins are
 * public), private keys, kubeconfig client keys, a secret flag whose value is not `***`, and any literal the caller
 * knows (a sudo password, live tokens).
 */
export function secretsIn(text: string, known: readonly string[] = []): string[] {
  const pins = publicDigests();
  const found = [
    ...(text.match(/\b[a-z0-9]{6}\.[a-z0-9]{16}\b/g) ?? []),
    ...[...text.matchAll(/(?<!sha256:)\b[0-9a-f]{64}\b/g)].map((m) => m[0]).filter((hex) => !pins.has(hex)),
    ...(text.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----/g) ?? []),
    ...[...text.matchAll(/client-key-data:\s*(?!\*\*\*)(\S{1,8})/g)].map((m) => `client-key-data: ${m[1]}…`),
    ...[...text.matchAll(/--(?:token|certificate-key|password)(?:=|\s+)(?!\*\*\*)(\S+)/g)].map((m) => m[0]),
  ];
  for (const k of known) if (k.length >= 6 && text.includes(k)) found.push(`${k.slice(0, 3)}… (a secret the test knows)`);
  return found;
}

export interface RunLogCheck {
  name: string;
  bytes: number;
  /** How often the log shows `--token ***`, `--certificate-key ***`, and a captured secret printed as `***`. */
  masked: { token: number; certificateKey: number; captured: number };
}

const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;

/**
 * Checks run logs of the engine (`<runId>-<command>.log` beside its ledger `.json`) in a runs folder: none is empty
 * (each records at least one step), neither log nor ledger holds a secret, and where the ledger shows a secret was
 * used the log shows it masked — a join that started: `--token ***` (a control-plane join: `--certificate-key ***`
 * too); a token or certificate-key step that finished: its output line `***`.
 */
export function checkRunLogs(runsDir: string, opts: { known?: readonly string[]; only?: (name: string) => boolean } = {}): RunLogCheck[] {
  const names = readdirSync(runsDir).filter((f) => f.endsWith('.log') && (opts.only?.(f) ?? true)).sort();
  assert.ok(names.length > 0, `no run log in ${runsDir}`);
  return names.map((name) => {
    const text = readFileSync(join(runsDir, name), 'utf8');
    assert.match(text, /\] -> /, `${name}: the run log records no step (${text.length} bytes)`);
    assert.deepEqual(secretsIn(text, opts.known), [], `${name}: secrets in the run log`);
    const ledgerName = name.replace(/\.log$/, '.json');
    const ledger = readFileSync(join(runsDir, ledgerName), 'utf8');
    assert.deepEqual(secretsIn(ledger, opts.known), [], `${ledgerName}: secrets in the ledger`);
    const steps = (JSON.parse(ledger) as { steps: Record<string, { state: string }> }).steps;
    const started = (re: RegExp) => Object.entries(steps).some(([id, s]) => re.test(id) && s.state !== 'pending' && s.state !== 'skipped');
    const finished = (re: RegExp) => Object.entries(steps).some(([id, s]) => re.test(id) && s.state === 'done');
    const masked = { token: count(text, /--token \*\*\*/g), certificateKey: count(text, /--certificate-key \*\*\*/g), captured: count(text, /\] \*\*\*$/gm) };
    if (started(/^join-(control-plane|workers)\/[^/]+\/join$/)) assert.ok(masked.token > 0, `${name}: a join ran, but the log shows no "--token ***"`);
    if (started(/^join-control-plane\/[^/]+\/join$/)) assert.ok(masked.certificateKey > 0, `${name}: a control-plane join ran, but the log shows no "--certificate-key ***"`);
    if (finished(/\/(token|certificate-key)$/)) assert.ok(masked.captured > 0, `${name}: a token or certificate key was created, but the log shows no "***" for it`);
    return { name, bytes: text.length, masked };
  });
}
