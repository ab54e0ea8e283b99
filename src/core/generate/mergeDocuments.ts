/**
 * Adds the user's own kubeadm documents to a generated multi-document file: a document of a kind
 * the generator also wrote replaces it; any other kind is appended. Comments at the top stay.
 */
import { parseAllDocuments } from 'yaml';
import { t } from '../l10n';

function kindOf(doc: string): string | undefined {
  return /^kind:\s*(\S+)\s*$/m.exec(doc)?.[1];
}

export function mergeKubeadmDocuments(generated: string, extra: string): string {
  const extraDocs = parseAllDocuments(extra);
  const bad = extraDocs.find((d) => d.errors.length);
  if (bad) throw new Error(t('kubeadm extra config: {0}', bad.errors[0]!.message.split('\n')[0]));
  const additions = extraDocs.map((d) => d.toString().trim()).filter((d) => d && !/^(#.*\n?)*$/.test(d));
  const parts = generated.split(/^---\s*$/m).map((p) => p.trim());
  for (const add of additions) {
    const kind = kindOf(add);
    if (!kind) throw new Error(t('kubeadm extra config: every document needs apiVersion and kind'));
    const i = parts.findIndex((p) => kindOf(p) === kind);
    if (i >= 0) parts[i] = add;
    else parts.push(add);
  }
  return parts.join('\n---\n') + '\n';
}
