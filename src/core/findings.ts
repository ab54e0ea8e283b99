/**
 * The one shape every checker in the core reports: the inventory loader, the config rules, the host facts.
 * Positions are 0-based (the editor's convention); the command line converts to 1-based when it prints.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** A text edit that repairs a finding; applied by a quick fix in the editor or `lint --fix` later. */
export interface TextEdit {
  range: Range;
  newText: string;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  /** Edits in other files (cross-file rules), keyed by path. */
  otherFiles?: Record<string, TextEdit[]>;
}

export interface Finding {
  /** Stable rule id, e.g. `inventory/duplicate-address`, `haproxy/frontend-mode-tcp`. */
  rule: string;
  severity: Severity;
  /** What is wrong, in one sentence. */
  message: string;
  /** Why it matters, in one sentence (from the seed's reasoning). */
  why?: string;
  /** Link to upstream documentation. */
  docs?: string;
  range: Range;
  /** The file the finding is in, when a checker looks at more than one. */
  file?: string;
  fixes?: Fix[];
}

export const ZERO_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Maps string offsets to line/character positions; built once per text. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
    }
  }

  get lineCount(): number {
    return this.starts.length;
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: clamped - this.starts[lo]! };
  }

  range(startOffset: number, endOffset: number): Range {
    return { start: this.position(startOffset), end: this.position(endOffset) };
  }

  offset(pos: Position): number {
    const start = this.starts[Math.max(0, Math.min(pos.line, this.starts.length - 1))]!;
    return start + pos.character;
  }

  /** The range of a whole line without its line break. */
  lineRange(line: number): Range {
    const start = this.starts[line] ?? this.text.length;
    let end = (this.starts[line + 1] ?? this.text.length + 1) - 1;
    if (end > start && this.text.charCodeAt(end - 1) === 13) end--;
    return this.range(start, Math.max(start, end));
  }
}

export function worstSeverity(findings: readonly Finding[]): Severity | undefined {
  if (findings.some((f) => f.severity === 'error')) return 'error';
  if (findings.some((f) => f.severity === 'warning')) return 'warning';
  return findings.length ? 'info' : undefined;
}
