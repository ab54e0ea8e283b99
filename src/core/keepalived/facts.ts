/** What a keepalived.conf states about the cluster (the VIP), for the cross-file check (../lint/crossFile.ts). */
import type { ClusterFacts, FactExtractor } from '../lint/crossFile';
import type { FileKind, SourceFile } from '../lint/types';
import { parseKeepalived, walk } from './parse';

/** Keepalived: the first virtual_ipaddress entry. */
function keepalivedFacts(file: SourceFile): ClusterFacts | undefined {
  const cfg = parseKeepalived(file.text, file.path);
  if (cfg.binary) return undefined;
  for (const n of walk(cfg.nodes)) {
    if (n.keyword.text !== 'virtual_ipaddress' || !n.children?.length) continue;
    const tok = n.children[0]!.keyword;
    if (n.children[0]!.file && n.children[0]!.file !== file.path) continue;
    return { vip: { value: tok.text.replace(/\/\d+$/, ''), range: { start: { line: tok.line, character: tok.start }, end: { line: tok.line, character: tok.end } } } };
  }
  return undefined;
}

export const KEEPALIVED_FACTS: Partial<Record<FileKind, FactExtractor>> = { keepalived: keepalivedFacts };
