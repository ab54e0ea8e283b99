/**
 * The text of anything thrown. A `catch` gets `unknown`: an Error, an ssh2 or Node error object, or whatever a library
 * threw; this reads its message when it has one and says what it is otherwise, instead of a cast that prints
 * "undefined". (For cluster API failures, describeError in ./live/errors.ts adds where and which kind.)
 */
export function errorMessage(e: unknown): string {
  const message = (e as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(e);
}
