/**
 * How a command is declared and what its handler receives. A command names what it needs — workspace trust, a valid
 * inventory.yaml, a cluster connection — with the words of the message that says it is missing; `bindCommand`
 * checks them in that order, in this one place, and hands the handler a context where they are there (`Given`).
 * A missing need is said with its next steps as buttons (no cluster connection: Select Kubeconfig…, Bring Up
 * Cluster…, Open Settings — the picker the timeline command opens — and a connection made there runs the command on).
 * Around every handler is one error boundary: a cancel ends quietly, anything else thrown becomes one error message
 * ("‹command title› failed: …", an SSH failure by its cause, with Run Preflight and the host's line) with Show Log,
 * and one line in the log.
 */
import * as vscode from 'vscode';
import type { KubeConnection } from '../adapters/kube/index';
import type { Inventory } from '../core/inventory/types';
import { describeError } from '../core/live/errors';
import { sshFailureOf } from '../core/ssh/transport';
import { plainWords } from '../core/text/plainWords';
import { usableInventory, type LoadedInventory } from '../editor/inventoryWorkspace';
import { log } from '../editor/log';
import type { EditorServices } from '../editor/services';
import { requireTrust } from '../editor/trust';
import { editorUi, withoutCommands } from '../editor/vscodeUi';
import type { NextStep } from './nextSteps';
import { ExplainedFailure, isCancel } from '../core/errors';

/** The message with its next steps; nextSteps.ts (with the kubeconfig picker) loads with the first one shown. */
async function offerNextSteps(...args: Parameters<typeof import('./nextSteps').offerNextSteps>): Promise<boolean> {
  return (await import('./nextSteps.js')).offerNextSteps(...args);
}

/** What every command handler may use: the editor's services (src/editor/services.ts). */
export type CommandContext = EditorServices;

/** What a command needs before it runs; each entry holds the words of its message. */
export interface Needs {
  /** Completes "Trust the workspace to …" (src/editor/trust.ts). */
  trust?: string;
  /** The subject of "… needs a valid inventory.yaml (see the Problems panel)." */
  inventory?: string;
  /** 'usable' (the default): the file has no error. 'parsed': a model is enough, even while the file has errors. */
  inventoryCheck?: 'usable' | 'parsed';
  /** Completes "Cannot … : no cluster connection (why)." */
  cluster?: string;
}

/** Present when a command declared `inventory`. */
export interface WithInventory {
  loaded: LoadedInventory;
  inv: Inventory;
  /** The workspace folder of inventory.yaml (folder settings, SSH config paths). */
  folder: vscode.Uri | undefined;
}

/** Present when a command declared `cluster`: the live views' connection, up. */
export interface WithCluster {
  conn: KubeConnection;
}

/** The context a command's handler receives: the services plus what its needs guarantee. */
export type Given<N extends Needs> = CommandContext &
  (N extends { inventory: string } ? WithInventory : unknown) &
  (N extends { cluster: string } ? WithCluster : unknown);

/** A declared command: its needs and its handler over the guaranteed context, with typed arguments. */
export interface Command<N extends Needs, A extends unknown[], R> {
  readonly needs: N;
  handler(ctx: Given<N>): (...args: A) => Promise<R> | R;
}

/** Any declared command, as the registrar holds them (each keeps its own needs and argument types). */
export interface AnyCommand {
  readonly needs: Needs;
  handler(ctx: never): (...args: never) => unknown;
}

export function defineCommand<const N extends Needs, A extends unknown[], R>(needs: N, handler: (ctx: Given<N>) => (...args: A) => Promise<R> | R): Command<N, A, R> {
  return { needs, handler };
}

/** Why a command stopped: a cancel (nothing to tell) or a failure (one message and its next steps). */
export type Outcome = { kind: 'cancelled' } | { kind: 'failed'; message: string; steps: NextStep[]; asIs?: boolean };

export function classifyFailure(e: unknown): Outcome {
  if (e instanceof vscode.CancellationError || isCancel(e)) return { kind: 'cancelled' };
  if (e instanceof ExplainedFailure) return { kind: 'failed', message: e.message, steps: e.inInventory ? [{ kind: 'openInventory' }] : [], asIs: true };
  // An SSH failure: its host and cause (the taxonomy's words), the preflight that checks every host, the host's line.
  const ssh = sshFailureOf(e);
  if (ssh) {
    const host = (e as { host?: unknown }).host;
    const name = typeof host === 'string' ? host.split(' ')[0]! : undefined;
    return { kind: 'failed', message: describeError(e), steps: [{ kind: 'runPreflight' }, ...(name ? [{ kind: 'revealHost' as const, host: name }] : [])] };
  }
  return { kind: 'failed', message: withoutCommands(plainWords(describeError(e))), steps: [] };
}

/** Checks the needs; the guaranteed context, `retry` when a button made the missing need good, or undefined after the user was told. */
async function provide<N extends Needs>(services: CommandContext, needs: N): Promise<Given<N> | 'retry' | undefined> {
  if (needs.trust !== undefined && !(await requireTrust(editorUi(services.reports), needs.trust))) return undefined;
  let given: CommandContext & Partial<WithInventory & WithCluster> = services;
  if (needs.inventory !== undefined) {
    const loaded = await services.inventory.get();
    const inv = needs.inventoryCheck === 'parsed' ? loaded?.inventory : usableInventory(loaded);
    if (!loaded || !inv) {
      void offerNextSteps(services, 'error', vscode.l10n.t('{0} needs a valid inventory.yaml (see the Problems panel).', needs.inventory), [{ kind: loaded ? 'openInventory' : 'createInventory' }]);
      return undefined;
    }
    given = { ...given, loaded, inv, folder: vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri };
  }
  if (needs.cluster !== undefined) {
    const conn = await services.connection.ensure();
    if (!conn) {
      const made = await refuseWithoutCluster(services, needs.cluster);
      return made ? 'retry' : undefined;
    }
    given = { ...given, conn };
  }
  return given as Given<N>;
}

/**
 * The function VS Code calls for command `id` (titled `title` in package.json): needs, then the handler inside the
 * error boundary. Resolves to the handler's result, or undefined when a need was missing or the handler failed.
 */
export function bindCommand(services: CommandContext, id: string, title: string, command: AnyCommand): (...args: unknown[]) => Promise<unknown> {
  const bound = async (...args: unknown[]): Promise<unknown> => {
    try {
      const given = await provide(services, command.needs);
      // The user connected from the refusal's picker: the command goes on, with its arguments.
      if (given === 'retry') return bound(...args);
      if (!given) return undefined;
      // The arguments are what VS Code passes: a tree row of the views this command's menus name (package.json),
      // a string from another command, or nothing from the palette. Each handler's parameter type says which.
      return await command.handler(given as never)(...(args as never));
    } catch (e) {
      const outcome = classifyFailure(e);
      if (outcome.kind === 'cancelled') {
        log.info(`${id}: cancelled`);
        return undefined;
      }
      // The log gets the whole text (a command's included); the message a short cause and its next steps.
      void offerNextSteps(services, 'error', outcome.asIs ? outcome.message : vscode.l10n.t('{0} failed: {1}', title, outcome.message), outcome.steps, `${id}: ${describeError(e)}`);
      return undefined;
    }
  };
  return bound;
}

/**
 * "Cannot drain a node: no cluster connection — why." with the ways to get one: the context picker (which also
 * browses for a kubeconfig), the bring-up, the setting. Resolves true when the user connected from it.
 */
export async function refuseWithoutCluster(services: CommandContext, what: string): Promise<boolean> {
  const state = services.connection.state;
  const why = state.kind === 'error' ? plainWords(state.message) : state.kind === 'untrusted' ? vscode.l10n.t('the workspace is not trusted') : vscode.l10n.t('no cluster context is chosen yet');
  const steps: NextStep[] = state.kind === 'untrusted' ? [{ kind: 'trust' }] : [{ kind: 'selectKubeconfig' }, { kind: 'bringUp' }, { kind: 'openKubeconfigSetting' }];
  return offerNextSteps(services, 'error', vscode.l10n.t('Cannot {0}: no cluster connection ({1}).', what, why), steps);
}
