/**
 * The "Kubeadm Workbench" log (a LogOutputChannel): what goes wrong in the background — watches that fail or
 * recover, the cluster connection and the lazily loaded kube adapter, the lint worker stopping a file, SSH
 * reconnects — where nobody is waiting for a message, plus one line per failed command and the path of every run
 * log. Created on the first line, so activation does not pay for it and a quiet session has no channel.
 * Lines must not carry secrets: callers pass messages that are already redacted or carry no command output.
 */
import * as vscode from 'vscode';

export const LOG_CHANNEL_NAME = 'Kubeadm Workbench';

let channel: vscode.LogOutputChannel | undefined;

function out(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel(LOG_CHANNEL_NAME, { log: true });
  return channel;
}

export const log = {
  info: (message: string): void => out().info(message),
  warn: (message: string): void => out().warn(message),
  error: (message: string): void => out().error(message),
  debug: (message: string): void => out().debug(message),
  /** The path of a run's log file, on a line of its own so the Output view links it. */
  runLog: (what: string, path: string): void => out().info(`${what}: run log ${path}`),
  show: (): void => out().show(true),
};

/** For context.subscriptions: disposes the channel if one was made. */
export const logDisposable: vscode.Disposable = { dispose: () => { channel?.dispose(); channel = undefined; } };
