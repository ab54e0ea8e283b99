/**
 * Run ledgers on disk (`.kubeadm-workbench/runs/<run id>.json`): written signed, atomically, never through a link;
 * read back as untrusted input. A ledger is resumed only when it is a regular file of this user, has a ledger's exact
 * shape and carries this user's signature (src/core/state/signing.ts) — so a run that came with a repository, or was
 * made by another user or machine, or was edited, is named with the reason and never continued (`up --yes` starts a
 * new run beside it).
 */
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Ledger, newRunId, parseLedgerData, type LedgerData } from '../../core/plan/ledger';
import { signatureProblem, signRecord } from '../../core/state/signing';
import { shownPath } from '../../core/text/terminal';
import { errorMessage } from '../../core/errors';
import { t } from '../../core/l10n';
import { ensureRealFolder, FileRefused, readRegularText, replaceFile } from '../../adapters/fs/safeFile';
import { stateKey } from '../../adapters/fs/stateKey';

const KIND = 'run ledger v1';
/** A ledger of 100 000 steps is a few MB; anything larger is not one of ours. */
export const MAX_LEDGER_BYTES = 16 * 1024 * 1024;

/** runs/ folders this process checked (a real folder of this user): a ledger is saved after every step. */
const checkedFolders = new Set<string>();

/** The signed, atomic write every ledger of this process uses. */
export async function writeSignedLedger(file: string, data: LedgerData): Promise<void> {
  const key = await stateKey();
  const dir = dirname(file);
  if (!checkedFolders.has(dir)) {
    await ensureRunsFolder(dir);
    checkedFolders.add(dir);
  }
  await replaceFile(file, JSON.stringify({ ...data, signature: signRecord(key, KIND, data) }, null, 2) + '\n', { mode: 0o600 });
}

/** A new run's ledger in `dir` (runs/), not yet saved. */
export function createLedger(dir: string, command: string, fingerprint: string, now = new Date()): Ledger {
  const runId = newRunId(command, now);
  return new Ledger(join(dir, `${runId}.json`), { runId, command, fingerprint, createdAt: now.toISOString(), updatedAt: now.toISOString(), completedAt: null, steps: {} }, writeSignedLedger);
}

/** A ledger file not acted on, and why — shown to the user beside the question to run. */
export interface RefusedRun {
  file: string;
  why: string;
}

export class LedgerRefused extends Error {}

/** Reads and checks one ledger file: this user's regular file, a ledger's shape, this user's signature. */
export async function loadLedger(file: string): Promise<Ledger> {
  let text: string;
  try {
    text = await readRegularText(file, { maxBytes: MAX_LEDGER_BYTES, noFollow: true, mine: true });
  } catch (e) {
    throw new LedgerRefused(e instanceof FileRefused ? e.reason : errorMessage(e));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LedgerRefused(t('it is not JSON'));
  }
  const parsed = parseLedgerData(value, basename(file));
  if ('problem' in parsed) throw new LedgerRefused(t('it is not a run ledger: {0}', parsed.problem));
  const problem = signatureProblem(await stateKey(), KIND, parsed.data, (value as { signature?: unknown }).signature);
  if (problem) throw new LedgerRefused(problem);
  return new Ledger(file, parsed.data, writeSignedLedger);
}

/**
 * The newest run of `command` with the same plan fingerprint, when it did not finish (an older unfinished one was
 * superseded) — among the ledgers that pass loadLedger. Every other file that claims to be a run of `command` is
 * returned in `refused` with its reason.
 */
export async function findResumable(dir: string, command: string, fingerprint: string): Promise<{ ledger?: Ledger; refused: RefusedRun[] }> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return { refused: [] };
  }
  const refused: RefusedRun[] = [];
  let found: Ledger | undefined;
  let decided = false;
  for (const name of names.filter((n) => n.endsWith(`-${command}.json`)).sort().reverse()) {
    const file = join(dir, name);
    let ledger: Ledger;
    try {
      ledger = await loadLedger(file);
    } catch (e) {
      refused.push({ file, why: errorMessage(e) });
      continue;
    }
    if (decided || ledger.data.fingerprint !== fingerprint) continue;
    decided = true;
    if (!ledger.isComplete()) found = ledger;
  }
  return { ...(found ? { ledger: found } : {}), refused };
}

/** One line per refused run: `runs/X.json is not resumed: it is not signed…`. At most `max`, then how many more. */
export function refusedRunLines(refused: readonly RefusedRun[], max = 3): string[] {
  const lines = refused.slice(0, max).map((r) => t('{0} is not resumed: {1}', shownPath(r.file), r.why));
  if (refused.length > max) lines.push(t('… and {0} more run file(s) not resumed for the same kinds of reasons', refused.length - max));
  return lines;
}

/** The runs/ folder: a real folder of this user, 0700. */
export async function ensureRunsFolder(dir: string): Promise<void> {
  await ensureRealFolder(dir, { mode: 0o700, mine: true });
}
