/** The apt source lists and keys the prepare and load-balancer phases install. */
import { APT_SOURCES, keyringProblem, parseAptLine, renderAptLine } from '../inventory/apt';
import { aptKeyProblems, sha256Hex } from '../inventory/downloads';
import { downloadUrl } from '../inventory/fields';
import { sh, type RemoteCommand } from '../ssh/command';
import type { UploadFile } from '../plan/types';
import type { PhaseSources } from './configs';
import { t } from '../l10n';

function file(path: string, content: string): UploadFile {
  return { path, content, mode: 0o644 };
}

/** The keyrings this tool wrote on a host, one path a line: only those (or a new path) are ever written again. */
export const KEYRING_RECORD = '/var/lib/kubeadm-workbench/apt-keyrings';

/**
 * `sh -c KEY_SCRIPT kw KEYRING URL SHA256`: the key downloaded into a private temp folder, compared with its pin
 * (when there is one), dearmored, and installed into the keyring only when that file is new, recorded as ours, or
 * already holds exactly this key (a host set up before the record existed) — never over a keyring a package or
 * an admin put there (debian-archive-keyring.gpg). Constant text: the three values arrive as arguments.
 */
const KEY_SCRIPT = [
  'set -e',
  `k=$1; rec=${KEYRING_RECORD}`,
  't=$(mktemp -d); trap \'rm -rf "$t"\' EXIT',
  // Retries: a busy mirror that refuses a connection for a moment must not fail the whole bring-up.
  'curl -fsSL --retry 5 --retry-connrefused --retry-delay 2 -o "$t/key" "$2"',
  'if [ -n "$3" ]; then s=$(sha256sum < "$t/key"); s=${s%% *}; if [ "$s" != "$3" ]; then echo "the key from $2 has sha256 $s, not the pinned $3: not installed" >&2; exit 1; fi; fi',
  'gpg --dearmor --yes -o "$t/keyring" < "$t/key"',
  'if [ -e "$k" ] || [ -L "$k" ]; then if ! grep -qxF -- "$k" "$rec" 2>/dev/null && ! cmp -s -- "$t/keyring" "$k"; then echo "$k exists and was not written by kubeadm-workbench (it is not in $rec): not overwritten; name a new keyring file in /etc/apt/keyrings/ in the source\'s signed-by" >&2; exit 1; fi; fi',
  'mkdir -p -- "${k%/*}" "${rec%/*}"',
  'cp -- "$t/keyring" "$k.kw-tmp"; chmod 0644 -- "$k.kw-tmp"; mv -f -- "$k.kw-tmp" "$k"',
  'grep -qxF -- "$k" "$rec" 2>/dev/null || echo "$k" >> "$rec"',
].join('\n');

/** The keyring is there and this tool wrote it (a step that finds it so is skipped). */
export function keyringInstalled(keyring: string): RemoteCommand {
  return sh`test -s ${keyring} && grep -qxF -- ${keyring} ${KEYRING_RECORD}`;
}

/**
 * Source lists and their keys, as the Kubernetes docs do it: the host downloads the key and dearmors it into the
 * keyring that the source line names. The line is parsed and written back from its parts, its keyring must be a
 * file in /etc/apt/keyrings (a downloaded key never goes over a distribution keyring), no two sources share one, and
 * a key over plain http is installed only when its sha256 pin matches (inventory/downloads.ts says the same at the
 * inventory's lines; this refuses a model that skipped the loader).
 */
export function aptSourceSteps(sources: PhaseSources): { files: UploadFile[]; keys: RemoteCommand[]; keyrings: string[] } {
  const problems = aptKeyProblems(sources);
  if (problems.length) throw new Error(problems.map((d) => d.message).join(' '));
  const files: UploadFile[] = [];
  const keys: RemoteCommand[] = [];
  /** Where the keys are stored: the step's check asks for them. */
  const keyrings: string[] = [];
  for (const s of APT_SOURCES) {
    const line = sources[s.line];
    const keyUrl = sources[s.key];
    if (!line) continue;
    const parsed = parseAptLine(line);
    if (typeof parsed === 'string') throw new Error(t('apt source {0} {1}', JSON.stringify(line), parsed));
    files.push(file(`/etc/apt/sources.list.d/${s.list}`, renderAptLine(parsed) + '\n'));
    if (!keyUrl) continue;
    const target = parsed.signedBy ?? s.keyring;
    const pin = sources[s.pin];
    const bad = keyringProblem(target) ?? downloadUrl(keyUrl) ?? (pin !== undefined ? sha256Hex(pin) : undefined);
    if (bad) throw new Error(t('apt key for {0}: {1}', s.list, bad));
    keys.push(sh`sh -c ${KEY_SCRIPT} kw ${target} ${keyUrl} ${pin ?? ''}`);
    keyrings.push(target);
  }
  return { files, keys, keyrings };
}
