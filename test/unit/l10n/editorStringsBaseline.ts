/**
 * How many English texts of the editor layers (src/editor, src/views, src/commands) still bypass the catalogue, as
 * test/unit/l10n/editorStrings.ts counts them (the commands, the views, the status bars and the editor's dialogs go
 * through it, and so do the preflight's cluster checks, from the core's table; left: nine texts that are internal errors, the log channel's name, a terminal's echo, a Problems entry's source or a command to type). editorStrings.test.ts fails when the count goes above this number: a new message goes
 * through `vscode.l10n.t` (or the core's `t()`) with its Russian entry in l10n/bundle.l10n.ru.json. When you convert
 * texts, lower this number to the count the test prints, so that it can only go down.
 */
export const UNCATALOGUED_BASELINE = 9;
