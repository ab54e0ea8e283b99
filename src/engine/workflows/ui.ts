/**
 * What an operation (drill, drain, cordon, bring-up, …) needs from the person running it, whatever the
 * front-end: the editor implements it with quick picks, modals, documents and a run terminal
 * (editor/vscodeUi.ts), the command line with its flags, stdin and stdout (cli/terminalUi.ts), and the
 * tests with a script of answers (test/support/scriptedUi.ts). A workflow asks through this and nothing
 * else, so both front-ends ask the same questions at the same moments.
 */
import type { PreflightReport, UnknownHostKey } from '../../core/preflight/model';
import type { RunOutput } from '../../core/ssh/runLog';

export interface PickItem<T> {
  label: string;
  description?: string;
  detail?: string;
  /** Preselected in a multiple choice. */
  picked?: boolean;
  /** A heading between groups of items, not a choice (its value is never returned). */
  separator?: boolean;
  value: T;
}

/** How a choice behaves where there is a list to type into (the editor's quick pick); a terminal ignores it. */
export interface PickOptions {
  /** Typing filters on the descriptions too, not only the labels. */
  matchOnDescription?: boolean;
  /**
   * The list stays open when the focus goes elsewhere (the user reads something else first): by default a single
   * choice closes and a multiple choice stays open.
   */
  ignoreFocusOut?: boolean;
}

/** How free text is asked; by default it stays open when the focus leaves and refuses only an empty answer. */
export interface InputOptions {
  /** Why the text typed so far is refused (shown under the box), or undefined when it is acceptable. */
  validate?: (value: string) => string | undefined;
  placeHolder?: string;
  /** Typed as a password: never shown. */
  password?: boolean;
  /** false: the box closes when the focus goes elsewhere. */
  ignoreFocusOut?: boolean;
}

/** How a message is shown: `modal` for a refusal the user must see; `detail` its lines under it (a modal's detail). */
export interface MessageOptions {
  modal?: boolean;
  detail?: string;
  /** The buttons offered with it (the chosen one is returned; a front-end without buttons returns undefined). */
  actions?: readonly string[];
  /** What the log keeps of an error when the message says less (default: the message itself). */
  logText?: string;
}

export interface ConfirmRequest {
  /** The question, e.g. "Drain w02: evict 2 pod(s)?". */
  message: string;
  /** What happens, line by line (the modal's detail; printed before the question on a terminal). */
  detail?: string;
  /** The buttons; the first is the one a `--yes` takes. */
  actions: readonly string[];
  /** What a terminal says when the answer is no (default: nothing was done; --yes runs without asking). */
  declined?: string;
}

export interface SecretRequest {
  title: string;
  prompt: string;
  /** Why it is asked: the secret in question, e.g. `sudo-password`; a front-end may answer some kinds by policy. */
  kind: 'sudo-password';
  /** The hosts reached as another user than root, `host → user`. */
  hosts: ReadonlyMap<string, string>;
}

/** A cancellable piece of work: progress messages, and an abort signal the user can fire. */
export interface ProgressRequest {
  title: string;
  cancellable?: boolean;
  /** The messages are the operation's narration (no run terminal): a terminal prints each one. */
  narrate?: boolean;
  /** Called once per cancel request (the count starts at 1), before the signal aborts. */
  onCancel?: (count: number) => void;
  /**
   * A second cancel is one more request, not a way out: the drill must restore the node it stopped whatever the
   * user presses. Otherwise a terminal's second Ctrl-C ends the process (a stuck remote command cannot hold it).
   */
  cancelNeverExits?: boolean;
}

/** Where a run's narration goes (a run terminal, stdout) until `finish`. */
export interface RunView {
  /** A line printed as is (kubectl's words): stdout for what it did, stderr for warnings and errors. */
  plain(text: string, stream: 'stdout' | 'stderr'): void;
  /** Over many hosts: the one summary line by state (the front-end decides how often it is shown). */
  status(line: string): void;
  finish(summary: string, ok: boolean): void;
}

export type Level = 'info' | 'warning' | 'error';

/** The unknown host keys the user accepted in the review (none by default), and whether to remember them. */
export interface HostKeyReview {
  accepted: readonly UnknownHostKey[];
  /** Written (hashed) to the own known_hosts file; otherwise accepted for this session only. */
  remember: boolean;
}

/** A progress message; `increment` (percent of the whole) advances a bar where there is one. */
export type ProgressReport = (message: string | undefined, increment?: number) => void;

export interface Ui {
  pick<T>(title: string, items: readonly PickItem<T>[], placeHolder?: string, options?: PickOptions): Promise<T | undefined>;
  pickMany<T>(title: string, items: readonly PickItem<T>[], placeHolder?: string, options?: PickOptions): Promise<T[] | undefined>;
  /** Free text (a maintenance command): undefined when the user backs out. */
  input(title: string, prompt: string, value?: string, options?: InputOptions): Promise<string | undefined>;
  /** The chosen action, or undefined: not confirmed, nothing is done. */
  confirm(request: ConfirmRequest): Promise<string | undefined>;
  /** A secret, never echoed or logged; '' means none; undefined means the user cancelled. */
  secret(request: SecretRequest): Promise<string | undefined>;
  /**
   * A document to read beside the questions: a plan, a report. `preview`: a Markdown report is also shown rendered
   * (the editor's Markdown preview, a webview), its tables readable at a glance.
   */
  show(name: string, text: string, language?: 'markdown' | 'plaintext', options?: { preview?: boolean }): Promise<void>;
  /**
   * A message at a level. `modal` for a refusal the user must see; `actions` are offered with it (the chosen one is
   * returned; a front-end without buttons returns undefined). Not awaited by the editor when it offers no action.
   */
  message(level: Level, text: string, options?: MessageOptions): Promise<string | undefined>;
  /** Runs the task with progress; the signal aborts on the user's cancel (a notification's button, Ctrl-C). */
  progress<T>(request: ProgressRequest, task: (report: ProgressReport, signal: AbortSignal) => Promise<T>): Promise<T>;
  /**
   * Opens the run's narration: every line of `output` (host-prefixed, redacted), and plain lines. `summarise`: over
   * many hosts, run-level lines and errors only, under the status line.
   */
  openRun(name: string, output: RunOutput, onCancel: () => void, options?: { summarise?: boolean }): RunView;
  /** Opens a file we wrote (a run log). */
  openFile(path: string): Promise<void>;
  /**
   * The unknown host keys of every host in scope, shown together (host, address, type, fingerprint, how to read it on
   * the host); each accepted only by the user's explicit choice, never by default. A front-end that cannot ask (the
   * command line) accepts none: its way is --accept-new-host-key.
   */
  reviewHostKeys(keys: readonly UnknownHostKey[]): Promise<HostKeyReview>;
  /** The preflight's table (a panel in the editor, a table on a terminal); `refused`: the operation it stopped. */
  showPreflight(report: PreflightReport, options?: { refused?: string }): Promise<void>;
}
