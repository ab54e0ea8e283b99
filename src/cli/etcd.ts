/**
 * `kubeadm-workbench etcd status|defrag|alarms`: etcd maintenance over SSH.
 *   etcd status --inventory F [--json]      every member's DB size, in use, quota and % of it (warning ≥ 80 %, error
 *                                           ≥ 95 %), the free pages a defragmentation gives back, alarms; exit 1 when a
 *                                           member is unhealthy, alarmed or nearly full
 *   etcd defrag --inventory F [--plan] [--yes] [--fresh] [--json]
 *                                           the rolling defragmentation (followers first, the leader last, each node's
 *                                           API server out of the balancers around it); refused while anything is unwell
 *   etcd alarms --inventory F [--json]      the alarms; exit 1 when one is on
 *   etcd alarms --disarm --inventory F [--plan] [--yes] [--fresh] [--json]
 *                                           the guided NOSPACE recovery: compact, defragment every member, disarm, write
 * The reading, refusals and runs are the etcd workflow's (engine/workflows/etcdWorkflow.ts), the editor's too.
 */
import { memberSpace, renderEtcdStatus } from '../core/etcd/space';
import { hostsWith } from '../core/inventory/types';
import { t } from '../core/l10n';
import { describeError } from '../core/live/errors';
import { readEtcdStatus } from '../engine/etcdMaintenance';
import { etcdDefragWorkflow, etcdNospaceWorkflow, type EtcdOutcome } from '../engine/workflows/etcdWorkflow';
import { UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { defineVerb, type VerbRun, type ListedVerbs } from './verb';
import { PLAN_VERB_FLAGS } from './verbFlags';
import { verbPreflight } from './verbPreflight';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, disarm: 'boolean' };

/**
 * The verb's usage in the catalogue's language (read when printed: the language is set by then). The command lines
 * are what one types and stay as written; the lines under the first align with it whatever the word "usage:" is.
 */
function usage(): string {
  const head = t('usage:');
  const pad = ' '.repeat(head.length + 1);
  return (
    `${head} kubeadm-workbench etcd status --inventory FILE [--json]\n` +
    `${pad}kubeadm-workbench etcd defrag --inventory FILE [--plan] [--yes] [--fresh] [--json]\n` +
    `${pad}kubeadm-workbench etcd alarms --inventory FILE [--disarm [--plan] [--yes] [--fresh]] [--json]\n` +
    `${pad}${t('common:')} [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]\n`
  );
}

const SUBCOMMANDS = ['status', 'defrag', 'alarms'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

/** `etcd SUB ...`: the subcommand names the verb; its mistakes and --help in the verb family's usage. */
export async function runEtcdVerb(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const sub = argv[0] as Sub;
  if (sub === ('--help' as Sub) || sub === ('-h' as Sub)) {
    io.stderr(usage());
    return EXIT_OK;
  }
  if (!SUBCOMMANDS.includes(sub)) {
    io.stderr(`${argv[0] ? t('unknown etcd subcommand "{0}"', argv[0]) : t('etcd needs a subcommand')}\n${usage()}`);
    return EXIT_USAGE;
  }
  return ETCD_VERBS[sub](argv.slice(1), io, stdin);
}

function etcdVerb(sub: Sub) {
  return defineVerb({
    words: `etcd ${sub}`, flags: FLAGS, usage, needs: { inventory: 'strict', ssh: {} },
    validate: (f) => {
      if (f.disarm && sub !== 'alarms') throw new UsageError(t('--disarm belongs to `etcd alarms`'));
    },
    run: async ({ inventory, flags, io, prompter, stdin, ssh, become, askBecomePassword, planRun }) => {
      const pool = ssh();
      if (sub === 'status' || (sub === 'alarms' && !flags.disarm)) {
        // The reads go through one control-plane node: refused before any question only when none passes the preflight.
        if (!(await verbPreflight({ inventory, flags, io, prompter, stdin, ssh }, { operation: `etcd ${sub}`, hosts: hostsWith(inventory, 'control-plane'), atLeastOne: true })).ok) return EXIT_FAILED;
        await askBecomePassword();
        let model;
        try {
          model = await readEtcdStatus({ inventory, ssh: pool, become });
        } catch (e) {
          io.stderr(`${t('etcd {0}: cannot read etcd: {1}', sub, describeError(e))}\n`);
          return EXIT_FAILED;
        }
        const spaces = model.members.map((m) => ({ ...memberSpace(m), healthy: m.healthy, problem: m.problem, learner: m.isLearner }));
        if (sub === 'status') {
          if (flags.json) io.stdout(JSON.stringify({ quorumLine: model.quorumLine, via: model.via, members: spaces, problems: model.problems }, null, 2) + '\n');
          else io.stdout(renderEtcdStatus(model));
          return spaces.some((s) => !s.healthy || s.level === 'error') ? EXIT_FAILED : EXIT_OK;
        }
        const alarms = model.members.flatMap((m) => m.alarms.map((alarm) => ({ member: m.name, id: m.id, alarm })));
        if (flags.json) io.stdout(JSON.stringify({ alarms }, null, 2) + '\n');
        else {
          const recover = alarms.some((a) => a.alarm === 'NOSPACE') ? `${t('recover: {0}', 'kubeadm-workbench etcd alarms --disarm --inventory F')}\n` : '';
          io.stdout(alarms.length ? `${alarms.map((a) => `${a.member} (${a.id}): ${a.alarm}`).join('\n')}\n${recover}` : `${t('no alarm')}\n`);
        }
        return alarms.length ? EXIT_FAILED : EXIT_OK;
      }
      const { ui, run } = planRun();
      const input = { deps: { inventory, ssh: pool }, loginUser: (h: string) => pool.loginUser(h), planOnly: Boolean(flags.plan), run };
      const outcome: EtcdOutcome = sub === 'defrag' ? await etcdDefragWorkflow(ui, input) : await etcdNospaceWorkflow(ui, input);
      if (outcome.kind === 'planned' || outcome.kind === 'nothing') return EXIT_OK;
      if (!('members' in outcome)) return EXIT_FAILED;
      const ok = outcome.kind === 'ran' && outcome.result.ok;
      if (flags.json) io.stdout(JSON.stringify({ ok, seconds: outcome.seconds, members: outcome.members }) + '\n');
      else {
        for (const m of outcome.members) {
          const back = m.reclaimedBytes !== undefined ? t(', {0} bytes back', m.reclaimedBytes) : '';
          const done = m.skipped ? t('skipped, under 1 MiB free') : `${t('defragmented in {0} s', m.defragSeconds?.toFixed(1) ?? '?')}${back}`;
          io.stdout(`${m.name}${m.leader ? t(' (leader)') : ''}: ${done}\n`);
        }
      }
      return ok ? EXIT_OK : EXIT_FAILED;
    },
  });
}

const ETCD_VERBS: Record<Sub, VerbRun> = { status: etcdVerb('status'), defrag: etcdVerb('defrag'), alarms: etcdVerb('alarms') };

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  etcd: { summary: () => `etcd status|defrag|alarms [--disarm] --inventory F [--plan] [--yes] [--json]   ${t("etcd maintenance: every member's DB size, % of quota, free pages, alarms; the rolling defragmentation (followers first, the leader last, each node out of the balancers around it); the guided NOSPACE recovery (compact, defragment, disarm, write)")}`, run: runEtcdVerb },
} satisfies ListedVerbs;
