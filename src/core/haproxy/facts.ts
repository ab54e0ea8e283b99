/** What an haproxy.cfg states about the cluster (the VIP, the port, the control planes), for the cross-file check (../lint/crossFile.ts). */
import type { Range } from '../findings';
import type { ClusterFacts, FactExtractor } from '../lint/crossFile';
import type { FileKind, SourceFile } from '../lint/types';
import { parseHaproxy } from './parse';

/** HAProxy: the bind of the first frontend/listen with an explicit address, and the servers of its backend. */
function haproxyFacts(file: SourceFile): ClusterFacts | undefined {
  const cfg = parseHaproxy(file.text);
  if (cfg.binary) return undefined;
  const lineRange = (line: number, start: number, end: number): Range => ({ start: { line, character: start }, end: { line, character: end } });
  const facts: ClusterFacts = {};
  for (const sec of cfg.sections) {
    if (sec.type !== 'frontend' && sec.type !== 'listen') continue;
    for (let rel = 0; rel < sec.lineCount; rel++) {
      const l = sec.line(rel);
      const addr = l.is(0, 'bind') ? l.word(1) : undefined;
      if (addr === undefined) continue;
      const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(addr);
      if (!m || !m[1] || m[1] === '*' || m[1] === '0.0.0.0' || m[1] === '::') continue;
      const r = lineRange(sec.startLine + l.rel, l.start(1), l.end(1));
      facts.vip = { value: m[1], range: r };
      facts.port = { value: Number(m[2]), range: r };
      const backendName = sec.type === 'listen' ? sec.name : sec.find('default_backend')[0]?.word(1);
      const backend = cfg.sections.find((b) => (b.type === 'backend' || b.type === 'listen') && b.name === backendName);
      if (backend) {
        const servers = backend.find('server').filter((x) => x.count > 2);
        if (servers.length) {
          facts.controlPlanes = {
            value: servers.map((x) => x.word(2)!.replace(/:\d+$/, '')),
            range: lineRange(backend.startLine, 0, backend.line(0).length),
          };
          facts.controlPlanesMode = 'exact';
        }
      }
      return facts;
    }
  }
  return undefined;
}

export const HAPROXY_FACTS: Partial<Record<FileKind, FactExtractor>> = { haproxy: haproxyFacts };
