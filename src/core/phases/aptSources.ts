/** The apt source lists and keys the prepare and load-balancer phases install. */
import { dirname } from 'node:path';
import { keyringProblem, parseAptLine, renderAptLine } from '../inventory/apt';
import { downloadUrl } from '../inventory/fields';
import { sh, type RemoteCommand } from '../ssh/command';
import type { UploadFile } from '../plan/types';
import type { PhaseSources } from './configs';

function file(path: string, content: string): UploadFile {
  return { path, content, mode: 0o644 };
}

/**
 * Source lists and their keys, as the Kubernetes docs do it: the host downloads the key and
 * dearmors it into the keyring that the source line names. The line is parsed and written back from
 * its parts, and its keyring must be a file in apt's keyring folders (the key is written there as root).
 */
export function aptSourceSteps(sources: PhaseSources): { files: UploadFile[]; keys: RemoteCommand[]; keyrings: string[] } {
  const files: UploadFile[] = [];
  const keys: RemoteCommand[] = [];
  /** Where the keys are stored: the step's check asks for them. */
  const keyrings: string[] = [];
  const add = (line: string | undefined, keyUrl: string | undefined, list: string, keyring: string): void => {
    if (!line) return;
    const parsed = parseAptLine(line);
    if (typeof parsed === 'string') throw new Error(`apt source ${JSON.stringify(line)} ${parsed}`);
    files.push(file(`/etc/apt/sources.list.d/${list}`, renderAptLine(parsed) + '\n'));
    if (keyUrl) {
      const target = parsed.signedBy ?? keyring;
      const bad = keyringProblem(target) ?? downloadUrl(keyUrl);
      if (bad) throw new Error(`apt key for ${list}: ${bad}`);
      // Retries: a busy mirror that refuses a connection for a moment must not fail the whole bring-up.
      keys.push(sh`mkdir -p ${dirname(target)} && curl -fsSL --retry 5 --retry-connrefused --retry-delay 2 ${keyUrl} | gpg --dearmor --yes -o ${target}`);
      keyrings.push(target);
    }
  };
  add(sources.kubernetesApt, sources.kubernetesAptKey, 'kubernetes.list', '/etc/apt/keyrings/kubernetes-apt-keyring.gpg');
  add(sources.debianApt, sources.debianAptKey, 'debian-local.list', '/etc/apt/keyrings/debian-local.gpg');
  return { files, keys, keyrings };
}

