/** What every command handler may use: the editor's services (src/editor/services.ts). */
import type { EditorServices } from '../editor/services';

export type CommandContext = EditorServices;

export type CommandHandler = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
