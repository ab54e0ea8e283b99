/**
 * Remove, replace and reset a node, written once for the editor's "Remove from Cluster…", "Replace…" and "Reset
 * Host…" and the CLI's `remove`, `replace` and `reset`: first what the hosts and etcd say (engine/nodes.ts; nothing
 * acts), shown; a refusal in one message before any step runs; another unhealthy etcd member passed only with the
 * host's name typed back (a quorum loss never); then the plan through the plan-run workflow (shown, approved,
 * narrated, cancellable, resumable); after a run that ended well, the inventory.yaml edit shown as a diff and
 * handed to the front-end only when the user says so (the CLI writes the file, the editor applies it unsaved).
 */
import { t } from '../../core/l10n';
import { describeError } from '../../core/live/errors';
import type { HostKeyAcceptance, RefusedHostKey } from '../../core/ssh/hostKeyPolicy';
import { sudoUnlessRoot } from '../become';
import { prepareNodeOperation, type NodeDeps, type NodeOperation, type NodePreparation, type NodeRequest } from '../nodes';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import type { Ui } from './ui';

/** Where the inventory edit goes once the user wants it. */
export interface InventoryEditTarget {
  /** The file as the user knows it (a path on the command line, "inventory.yaml" in the editor). */
  file: string;
  /** The question and its button: "Write /srv/c/inventory.yaml?" / "Apply it to inventory.yaml (unsaved, to review and save)?". */
  question: string;
  action: string;
  /** Writes or applies the new text; the message to say afterwards. */
  apply(text: string): Promise<string>;
}

export interface NodesWorkflowInput {
  deps: Omit<NodeDeps, 'become' | 'say'>;
  loginUser: (host: string) => string;
  request: Omit<NodeRequest, 'forceTyped'>;
  /**
   * The host's name given up front to force past another unhealthy member (CLI --force NAME; '' under --yes:
   * a forced removal is never taken by a --yes). Otherwise the user is asked to type it.
   */
  forceName?: string;
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent'>;
  inventoryEdit: InventoryEditTarget;
  /** The SSH transport's host keys: a changed key (a re-imaged host) is shown and accepted only when the user types it back. */
  hostKeys?: HostKeyAcceptance;
  /** Fingerprints the user gave up front for such a key (CLI --accept-new-host-key=SHA256:…): taken as typed. */
  fingerprintsGiven?: readonly string[];
}

export type NodesOutcome =
  | { kind: 'failed-to-read' | 'refused'; message: string }
  | { kind: 'not-confirmed' | 'cancelled' }
  | (Extract<PlanRunOutcome, { kind: 'ran' }> & { edit: 'applied' | 'kept' | 'none' });

export function nodeOperationTitle(req: Omit<NodeRequest, 'forceTyped'>): string {
  if (req.operation === 'replace') return t('Replace {0} with {1}', req.host, req.replacement?.name ?? '?');
  return req.operation === 'remove' ? t('Remove {0} from the cluster', req.host) : t('Reset {0}', req.host);
}

function refusal(operation: NodeOperation, host: string, reasons: readonly string[]): string {
  return `${t('{0}: {1} refused; nothing was done:', host, operation)}\n${reasons.map((r) => `  - ${r}`).join('\n')}`;
}

export async function nodesWorkflow(ui: Ui, input: NodesWorkflowInput): Promise<NodesOutcome> {
  const req = input.request;
  const { operation, host } = req;
  const title = nodeOperationTitle(req);
  // The checks read with sudo -n; the run asks the password once, and a re-check after it reads with it.
  let password: string | undefined;
  const become = (h: string) => sudoUnlessRoot(input.loginUser, password)(h);
  const prepare = (forceTyped?: string): Promise<NodePreparation> =>
    ui.progress({ title: t('{0}: asking the hosts and etcd…', title), narrate: true }, (progress) =>
      prepareNodeOperation({ ...input.deps, become, say: (line) => progress(`.. ${line}`) }, { ...req, ...(forceTyped !== undefined ? { forceTyped } : {}) }),
    );
  const found = (prep: NodePreparation) => ui.show(`${operation}-${host}-found.txt`, [...prep.facts, ...prep.warnings.map((w) => `! ${w}`)].join('\n'));
  let prep: NodePreparation;
  try {
    prep = await prepare();
    await found(prep);
    if (await acceptChangedKeys(ui, input, prep)) {
      prep = await prepare();
      await found(prep);
    }
    if (prep.refusals.length && prep.forceable) {
      await ui.message('error', refusal(operation, host, prep.refusals), { modal: true });
      const typed = input.forceName ?? (await ui.input(t('Force the {0} of {1}', operation, host), t('Another etcd member is unhealthy. To {0} {1} anyway, type its name ({1})', operation, host)));
      if (typed === undefined || typed.trim() !== host) {
        const message = refusal(operation, host, [t('not confirmed; nothing was done')]);
        await ui.message('error', message);
        return { kind: 'not-confirmed' };
      }
      prep = await prepare(typed.trim());
      await found(prep);
    }
  } catch (e) {
    const message = t('{0} not started: {1}', title, describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  if (prep.refusals.length || !prep.plan) {
    const message = refusal(operation, host, prep.refusals.length ? prep.refusals : [t('nothing to do')]);
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  const outcome = await planRunWorkflow(ui, {
    ...input.run,
    inventory: input.deps.inventory,
    plan: prep.plan,
    command: operation,
    title,
    planDocument: `${operation}-${host}-plan.txt`,
    password: (p) => (password = p),
  });
  if (outcome.kind !== 'ran') return outcome;
  if (!outcome.result.ok || !prep.inventoryEdit || operation === 'reset') return { ...outcome, edit: 'none' };
  return { ...outcome, edit: await offerInventoryEdit(ui, input, prep.inventoryEdit) };
}

/** The edit as a diff the user reads, then written or applied only on their word. */
async function offerInventoryEdit(ui: Ui, input: NodesWorkflowInput, edit: { text: string; diff: string }): Promise<'applied' | 'kept'> {
  const { host, replacement } = input.request;
  const target = input.inventoryEdit;
  const what = t('The inventory without {0}{1}', host, replacement ? t(', with {0} in its place', replacement.name) : '');
  await ui.show(`${input.request.operation}-${host}-inventory.diff`, `\n${what}:\n${edit.diff}`);
  const kept = t('{0} left as it was; it still lists {1}.', target.file, host);
  const answer = await ui.confirm({
    message: target.question,
    detail: t('{0} is done. {1} is shown beside this question; every other line of {2} stays as it is.', nodeOperationTitle(input.request), what, target.file),
    actions: [target.action],
    declined: kept,
  });
  // A terminal says `kept` when the answer is no; in the editor the user closed the question themselves.
  if (answer !== target.action) return 'kept';
  await ui.message('info', await target.apply(edit.text));
  return 'applied';
}

/**
 * A host that refused our connection because its key changed — a re-imaged host, or someone in between: the key it
 * presents and the one on record shown, then accepted for this run only when the user types its fingerprint back
 * (read on the host's console). Nothing else accepts it: not --yes, not a button. True when one was accepted.
 */
async function acceptChangedKeys(ui: Ui, input: NodesWorkflowInput, prep: NodePreparation): Promise<boolean> {
  const keys = input.hostKeys;
  if (!keys) return false;
  let accepted = false;
  for (const host of prep.hostKeyRefused) {
    const key = keys.refusedKey(host);
    if (key?.status !== 'changed') continue;
    await ui.show(`host-key-${host}.txt`, changedKeyText(key));
    const typed = input.fingerprintsGiven?.includes(key.fingerprint) ? key.fingerprint : await ui.input(t('Accept the new host key of {0}', host), t("{0} presents {1} {2}. Type that fingerprint to accept it for this run, once you have read the same on the host's console; anything else keeps the connection refused", host, key.keyType, key.fingerprint));
    if (typed?.trim() !== key.fingerprint) continue;
    keys.acceptKey(host, key.fingerprint);
    accepted = true;
  }
  return accepted;
}

function changedKeyText(k: RefusedHostKey): string {
  const where = k.port === 22 ? k.name : `[${k.name}]:${k.port}`;
  const file = k.file ?? '~/.ssh/known_hosts';
  return [
    t('{0} ({1}) presents a host key that differs from the one on record:', k.alias, where),
    '',
    `  ${t('presented: {0} {1}', k.keyType, k.fingerprint)}`,
    `  ${t('on record: {0}{1}', file, k.line ? t(' line {0}', k.line) : '')}`,
    '',
    t('A re-imaged host has new keys; so does a machine put in its place by someone else (a man-in-the-middle).'),
    t('Read the key on the host itself (its console: {0}) and accept it only when it is the same.', `ssh-keygen -lf /etc/ssh/ssh_host_${k.keyType.replace(/^ssh-/, '').replace(/-sha2-nistp\d+$/, '')}_key.pub`),
    '',
    t('Accepted, it is used for this run only; {0} keeps the old line until you remove it ({1}).', file, `ssh-keygen -R '${where}' -f ${file}`),
  ].join('\n') + '\n';
}
