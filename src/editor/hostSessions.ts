/**
 * SSH for the editor: one pool per run, built from the inventory and the machine's own SSH files
 * (the remote machine's, in a Remote-SSH window), with the modal host-key prompt, passphrases
 * from SecretStorage when the user chose so, the maxParallelHosts setting and workspace trust.
 */
import * as vscode from 'vscode';
import type * as SshAdapter from '../adapters/ssh/fromInventory';
import type { Inventory } from '../core/inventory/types';
import type { HostKeyAcceptance } from '../core/ssh/hostKeyPolicy';
import type { RemoteExec } from '../core/live/etcdSource';
import type { PreflightSsh } from '../engine/preflight';
import type * as HostKeyPromptModule from './sshHostKeyPrompt';
import { SshPassphrases } from './sshSecrets';
import { isTrusted } from './trust';
import { setting } from './settings';
import { log } from './log';

/** SSH to an inventory's hosts for one command (an SshPool; closed by the command); what the preflight uses of it too. */
export type HostSession = PreflightSsh & HostKeyAcceptance;

let substitute: ((inventory: Inventory) => HostSession) | undefined;

/** The SSH adapter: its own file of the build, loaded by ready() (see HostSessions.ready). */
let adapter: typeof SshAdapter | undefined;
/** The host-key dialog: loaded with the SSH code (not at activation), as only a session asks it. */
let hostKeyPrompt: typeof HostKeyPromptModule | undefined;
let loading: Promise<typeof SshAdapter> | undefined;

function loadAdapter(): Promise<typeof SshAdapter> {
  loading ??= Promise.all([import('../adapters/ssh/fromInventory.js'), import('./sshHostKeyPrompt.js')]).then(
    ([m, prompt]) => {
      hostKeyPrompt = prompt;
      return (adapter = m);
    },
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

/**
 * For the extension-host tests only (the extension's API offers it under KW_TEST_UI=1): the hosts played below SSH
 * in place of real connections, so that a command's whole path above SSH runs; undefined puts SSH back.
 */
export function substituteHostSessions(s: ((inventory: Inventory) => HostSession) | undefined): void {
  substitute = s;
}

export class HostSessions implements vscode.Disposable {
  private readonly passphrases: SshPassphrases;
  /** The pool the live views read through (etcd when the API is down, manifests for drift). */
  private live: { inventory: Inventory; pool: HostSession } | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.passphrases = new SshPassphrases(context.secrets);
  }

  /** The extension's own known_hosts: where "Accept and remember" writes. */
  get ownKnownHostsFile(): string {
    return vscode.Uri.joinPath(this.context.globalStorageUri, 'known_hosts').fsPath;
  }

  /**
   * Loads the SSH code (not at activation: it is a file of its own). open() needs it: the registrar awaits this
   * before any command runs, and the services that open sessions themselves await it first.
   */
  async ready(): Promise<void> {
    await loadAdapter();
  }

  open(inventory: Inventory, folder: vscode.Uri | undefined): HostSession {
    if (substitute) return substitute(inventory);
    if (!adapter || !hostKeyPrompt) throw new Error('an SSH session was opened before HostSessions.ready() resolved');
    const { createInventoryPool } = adapter;
    const { ModalHostKeyPrompt } = hostKeyPrompt;
    const path = (name: 'sshConfigFile' | 'knownHostsFile'): string | undefined => {
      const v = setting(name, folder);
      if (!v) return undefined;
      return folder && !v.startsWith('/') && !v.startsWith('~') ? vscode.Uri.joinPath(folder, v).fsPath : v;
    };
    const sshConfigFile = path('sshConfigFile');
    const knownHostsFile = path('knownHostsFile');
    return createInventoryPool(inventory, {
      prompt: new ModalHostKeyPrompt(this.ownKnownHostsFile),
      auth: this.passphrases.callbacks(),
      allowConnect: isTrusted,
      maxParallelHosts: setting('maxParallelHosts'),
      // Reconnects and retries happen behind a command's back: they go to the log.
      debug: (message) => log.info(`ssh ${message}`),
      ownKnownHostsFile: this.ownKnownHostsFile,
      ...(sshConfigFile ? { sshConfigFile } : {}),
      ...(knownHostsFile ? { knownHostsFile } : {}),
    }).pool;
  }

  /**
   * A RemoteExec over a long-lived pool for the given inventory, replaced when the inventory
   * changes. Undefined in an untrusted workspace: live views then read only through the API.
   */
  remoteExec(inventory: Inventory | undefined, folder: vscode.Uri | undefined): RemoteExec | undefined {
    if (!inventory || !isTrusted()) return undefined;
    // The pool is made (and the SSH code loaded) with the first command run through it.
    return {
      exec: async (host, script) => {
        const { remoteExecOver } = await loadAdapter();
        if (this.live?.inventory !== inventory) {
          void this.live?.pool.close();
          this.live = { inventory, pool: this.open(inventory, folder) };
        }
        return remoteExecOver(this.live.pool).exec(host, script);
      },
    };
  }

  dispose(): void {
    void this.live?.pool.close();
    this.passphrases.dispose();
  }
}
