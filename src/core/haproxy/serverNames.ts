/**
 * The server lines of a backend by name, for the duplicate-server rule of ./localRules.ts.
 */
import type { LineCursor, ParsedLine, Section } from './parse';

/**
 * The servers of a section that lintServer has seen, by name, for duplicate-server: the first server line of a
 * name with an address and no tokenizer problem (lintServer reaches every such line of a backend). Found by
 * scanning the section's earlier server lines, which allocates nothing (a backend has a few), and in a Map once
 * the section has more than a dozen.
 */
export class ServerNames {
  private added = 0;
  /** The first added server line: the scans start there. */
  private firstRel = -1;
  private byName: Map<string, ParsedLine> | undefined;
  private readonly scan: LineCursor;

  constructor(private readonly section: Section) {
    this.scan = section.cursor(-1);
  }

  /** The first server named `name` before line `rel`. */
  get(name: string, rel: number): ParsedLine | undefined {
    if (this.byName) return this.byName.get(name);
    return this.added === 0 ? undefined : this.firstNamed(name, rel - 1);
  }

  /** Notes the server line of a name that get() did not find. */
  add(name: string, line: ParsedLine): void {
    if (this.byName) {
      this.byName.set(name, line.lasting());
    } else if (++this.added === 1) {
      this.firstRel = line.rel;
    } else if (this.added > 12) {
      this.byName = new Map();
      const scan = this.scan;
      scan.moveTo(-1);
      while (this.section.advance(scan, 'server') && scan.rel <= line.rel) {
        const named = scan.word(1);
        if (named !== undefined && isServerLine(scan) && !this.byName.has(named)) this.byName.set(named, scan.lasting());
      }
    }
  }

  /** The first server line up to line `last` named `name`. */
  private firstNamed(name: string, last: number): ParsedLine | undefined {
    const scan = this.scan;
    scan.moveTo(this.firstRel - 1);
    while (this.section.advance(scan, 'server', name) && scan.rel <= last) if (isServerLine(scan)) return scan.lasting();
    return undefined;
  }
}

/** A server line lintServer notes: a name and an address, and no tokenizer problem (it is not linted then). */
function isServerLine(line: ParsedLine): boolean {
  return line.count >= 3 && line.error === undefined;
}
