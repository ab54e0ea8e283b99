/**
 * The sections one parse tokenized, as records in a typed array beside the parse's LineStore: where each section's
 * text is, its lines, its keywords, plus its name and the section-local findings the linter keeps for it.
 *
 * These records stay in the section cache for as long as the sections are cached. An object per section (its
 * record, the slice of its text, a Map entry) was most of what a young-generation GC found alive and copied after a
 * cold lint of a large file: 1,428 sections of the 10,000-line benchmark file. As integers in one array they are
 * not objects at all; a section's text is sliced when it is compared or asked for, not kept.
 */
import type { Finding } from '../findings';
import { grown, LineStore } from './lines';

// A section record: its text as offsets in the store's text, its first line in the store and its line count, the
// keywordMask of its body lines, and whether it is the preamble (the lines before the first section).
const S_FROM = 0;
const S_TO = 1;
const S_FIRST_LINE = 2;
const S_LINES = 3;
const S_KEYWORDS = 4;
const S_PREAMBLE = 5;
const STRIDE = 6;

export class SectionStore {
  private records: Int32Array = new Int32Array(16 * STRIDE);
  private count = 0;
  /** Each section's name argument (frontend/backend/... <name>), read by the rules of every lint. */
  private readonly names: (string | undefined)[] = [];
  /** Section-local findings by section (lines relative to it), and the line ending they were computed with. */
  private readonly findings: (Finding[] | undefined)[] = [];
  private readonly eols: string[] = [];

  constructor(readonly lines: LineStore) {}

  /** Tokenizes text[from, to) as one section (the preamble: as no section); returns its index. */
  add(from: number, to: number, preamble: boolean): number {
    const firstLine = this.lines.addLines(from, to);
    return this.addTokenized(from, to, preamble, firstLine, this.lines.size - firstLine);
  }

  /** Records text[from, to), already tokenized as lines [firstLine, firstLine + lineCount) of the store, as one section; returns its index. */
  addTokenized(from: number, to: number, preamble: boolean, firstLine: number, lineCount: number): number {
    const lines = this.lines;
    const at = this.count++;
    if (this.count * STRIDE > this.records.length) this.records = grown(this.records, this.count * STRIDE);
    const r = at * STRIDE;
    const records = this.records;
    records[r + S_FROM] = from;
    records[r + S_TO] = to;
    records[r + S_FIRST_LINE] = firstLine;
    records[r + S_LINES] = lineCount;
    records[r + S_KEYWORDS] = lines.keywordMask(preamble ? firstLine : firstLine + 1, firstLine + lineCount);
    records[r + S_PREAMBLE] = preamble ? 1 : 0;
    this.names.push(preamble ? undefined : lines.word(firstLine, 1));
    return at;
  }

  firstLine(s: number): number {
    return this.records[s * STRIDE + S_FIRST_LINE]!;
  }
  lineCount(s: number): number {
    return this.records[s * STRIDE + S_LINES]!;
  }
  keywords(s: number): number {
    return this.records[s * STRIDE + S_KEYWORDS]!;
  }
  preamble(s: number): boolean {
    return this.records[s * STRIDE + S_PREAMBLE] === 1;
  }
  /** The section keyword (interned: no string is made), '' for the preamble. */
  type(s: number): string {
    return this.preamble(s) ? '' : (this.lines.word(this.firstLine(s), 0) ?? '');
  }
  name(s: number): string | undefined {
    return this.names[s];
  }

  /** The section's raw text. */
  text(s: number): string {
    const r = s * STRIDE;
    return this.lines.text.slice(this.records[r + S_FROM]!, this.records[r + S_TO]!);
  }

  /** Whether section s is text[from, to), parsed as the preamble or not as `preamble` says. */
  isText(s: number, text: string, from: number, to: number, preamble: boolean): boolean {
    const r = s * STRIDE;
    const start = this.records[r + S_FROM]!;
    const end = this.records[r + S_TO]!;
    if (end - start !== to - from || (this.records[r + S_PREAMBLE] === 1) !== preamble) return false;
    // a slice made for the comparison only: the texts are compared by the engine, as one block of memory
    return text.startsWith(this.lines.text.slice(start, end), from);
  }

  /** The section-local findings kept for section s, when they were computed with this line ending. */
  localFindings(s: number, eol: string): Finding[] | undefined {
    return this.eols[s] === eol ? this.findings[s] : undefined;
  }
  keepLocalFindings(s: number, eol: string, findings: Finding[]): void {
    // pushed in order when the sections are linted in order (a cold lint), so the arrays stay packed
    while (this.findings.length < s) {
      this.findings.push(undefined);
      this.eols.push('');
    }
    this.findings[s] = findings;
    this.eols[s] = eol;
  }
}
