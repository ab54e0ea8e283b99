/**
 * The same fan-out work done by Ansible (ad-hoc, from a venv outside the repository: `-m script` with our own facts
 * script — the same work as ours —, `-m command`, `-m copy`; and, as a comparison of its own that is not the same
 * work, `-m setup`, Ansible's full fact gathering) and by Debian's parallel-ssh, against the bench's hosts. Host keys are checked against the
 * harness's known_hosts (StrictHostKeyChecking=yes); each run gets its own ControlPath directory, so no run
 * reuses another's connections.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FACTS_SCRIPT } from '../../src/core/phases/factsScript';
import { payload, UPLOAD_DIR } from './ours';

export type Task = 'facts' | 'command' | 'upload';
/** What Ansible runs: a task, or `setup` (its own fact gathering, the separate labelled line of the table). */
export type AnsibleTask = Task | 'setup';

export interface ToolResult {
  wallMs: number;
  ok: number;
  failed: number;
  note?: string;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Runs a program to its end, keeping its output; `track` learns the child so Ctrl-C can stop it. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string; track?: (pid: number | undefined) => void } = {}): Promise<Run> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    opts.track?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => (stderr += e.message));
    child.on('close', (code) => {
      opts.track?.(undefined);
      resolve({ code, stdout, stderr, wallMs: performance.now() - t0 });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

function sshOptions(dir: string): string[] {
  return ['-o', `UserKnownHostsFile=${join(dir, 'known_hosts')}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=yes', '-o', 'BatchMode=yes'];
}

/** Writes the payload file once (the same bytes ours.ts uploads) and returns its path and checksums. */
export function payloadFile(dir: string): { path: string; sha1: string; sha256: string } {
  const data = payload();
  const path = join(dir, 'payload.bin');
  if (!existsSync(path)) writeFileSync(path, data, { mode: 0o600 });
  return { path, sha1: createHash('sha1').update(data).digest('hex'), sha256: createHash('sha256').update(data).digest('hex') };
}

let runNo = 0;

export async function ansible(venv: string, dir: string, hosts: number, task: AnsibleTask, forks: number, track: (pid: number | undefined) => void): Promise<ToolResult> {
  const inv = join(dir, 'ansible-inventory.ini');
  if (!existsSync(inv)) {
    const lines = ['[fan]', ...readHosts(dir), '', '[fan:vars]', 'ansible_user=root', `ansible_ssh_private_key_file=${join(dir, 'client')}`, ''];
    writeFileSync(inv, lines.join('\n'));
  }
  const cp = join(dir, `cp-${++runNo}`);
  mkdirSync(cp, { recursive: true });
  const env = {
    ANSIBLE_HOST_KEY_CHECKING: 'True',
    // Ansible's own default ssh_args plus the bench's known_hosts.
    ANSIBLE_SSH_ARGS: ['-C', '-o', 'ControlMaster=auto', '-o', 'ControlPersist=60s', ...sshOptions(dir)].join(' '),
    ANSIBLE_SSH_CONTROL_PATH_DIR: cp,
    ANSIBLE_PYTHON_INTERPRETER: '/usr/bin/python3',
    ANSIBLE_LOCAL_TEMP: join(dir, 'ansible-local'),
    ANSIBLE_HOME: join(dir, 'ansible-home'),
    ANSIBLE_NOCOLOR: '1',
    ANSIBLE_FORCE_COLOR: '0',
    ANSIBLE_DEPRECATION_WARNINGS: 'False',
  };
  const p = payloadFile(dir);
  // Our facts script, as a file the script module copies to each host and runs there with sh (what ours.ts runs).
  const facts = join(dir, 'facts.sh');
  if (!existsSync(facts)) writeFileSync(facts, `#!/bin/sh\n${FACTS_SCRIPT}`, { mode: 0o700 });
  const moduleArgs: Record<AnsibleTask, string[]> = {
    facts: ['-m', 'script', '-a', `${facts} executable=sh`],
    setup: ['-m', 'setup'],
    command: ['-m', 'command', '-a', 'uname -r'],
    upload: ['-m', 'copy', '-a', `src=${p.path} dest=${UPLOAD_DIR}/ansible-${forks}.bin mode=0644 checksum=${p.sha1}`],
  };
  const r = await run(join(venv, 'bin', 'ansible'), ['fan', '-i', inv, '-f', String(forks), ...moduleArgs[task]], { env, track });
  // Ad-hoc output: one "HOST | SUCCESS|CHANGED|FAILED!|UNREACHABLE! ..." line per host.
  const ok = (r.stdout.match(/^\S+ \| (SUCCESS|CHANGED)\b/gm) ?? []).length;
  const failed = (r.stdout.match(/^\S+ \| (FAILED|UNREACHABLE)/gm) ?? []).length;
  return { wallMs: r.wallMs, ok, failed: Math.max(failed, hosts - ok), ...(ok === 0 ? { note: lastLines(r.stderr || r.stdout) } : {}) };
}

export async function pssh(dir: string, hosts: number, task: Task, parallel: number, track: (pid: number | undefined) => void): Promise<ToolResult> {
  const common = ['-h', join(dir, 'hosts'), '-l', 'root', '-p', String(parallel), '-t', '300', '-x', [...sshOptions(dir), '-i', join(dir, 'client')].join(' ')];
  const count = (r: Run) => ({ ok: (r.stdout.match(/\[SUCCESS\]/g) ?? []).length, failed: (r.stdout.match(/\[FAILURE\]/g) ?? []).length });
  if (task === 'facts') {
    // The same facts script, its output not parsed (parallel-ssh only runs commands).
    const r = await run('parallel-ssh', [...common, '-I', 'sh'], { stdin: FACTS_SCRIPT, track });
    return { wallMs: r.wallMs, ...settle(count(r), hosts), note: 'facts script, output not parsed' };
  }
  if (task === 'command') {
    const r = await run('parallel-ssh', [...common, 'uname', '-r'], { track });
    return { wallMs: r.wallMs, ...settle(count(r), hosts) };
  }
  const p = payloadFile(dir);
  const dest = `${UPLOAD_DIR}/pssh-${parallel}.bin`;
  const copy = await run('parallel-scp', [...common, p.path, dest], { track });
  const check = await run('parallel-ssh', [...common, `echo '${p.sha256}  ${dest}' | sha256sum -c --quiet`], { track });
  const c = count(check);
  return { wallMs: copy.wallMs + check.wallMs, ...settle(c, hosts), note: 'parallel-scp, then sha256sum -c' };
}

function settle(c: { ok: number; failed: number }, hosts: number): { ok: number; failed: number } {
  return { ok: c.ok, failed: Math.max(c.failed, hosts - c.ok) };
}

export function readHosts(dir: string): string[] {
  return readFileSync(join(dir, 'hosts'), 'utf8').split('\n').filter(Boolean);
}

function lastLines(s: string): string {
  return s.trim().split('\n').slice(-2).join(' | ').slice(0, 200);
}
