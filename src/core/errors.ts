/**
 * The text of anything thrown. A `catch` gets `unknown`: an Error, an ssh2 or Node error object, or whatever a library
 * threw; this reads its message when it has one and says what it is otherwise, instead of a cast that prints
 * "undefined". (For cluster API failures, describeError in ./live/errors.ts adds where and which kind.)
 */
export function errorMessage(e: unknown): string {
  const message = (e as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(e);
}

/**
 * Whether what was thrown is a cancel rather than a failure: an AbortSignal's abort (`AbortError`, the name Node and
 * our own aborts give) or VS Code's cancellation (`Canceled`). A cancel is not reported as an error.
 */
export function isCancel(e: unknown): boolean {
  const name = (e as { name?: unknown } | null | undefined)?.name;
  return name === 'AbortError' || name === 'Canceled';
}

/** What was thrown as an Error (kept when it is one; otherwise one carrying its text), for a value typed Error. */
export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(errorMessage(e));
}

/**
 * A failure explained where it happened, in the user's words (the bring-up plan that could not be made from the
 * workspace, and why): the editor's error boundary shows its message as it is — not as "‹title› failed: …" — with
 * the inventory one click away when `inInventory`.
 */
export class ExplainedFailure extends Error {
  override readonly name = 'ExplainedFailure';
  constructor(message: string, readonly inInventory = false) {
    super(message);
  }
}
