/**
 * A CLI run as a child process whose output a lab test watches while it runs, to kill it at a chosen moment.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface CliRun {
  child: ChildProcess;
  out: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; seconds: number }>;
  /** Resolves with the first match of `re` in the output; rejects when the CLI exits first or after `timeoutMs`. */
  waitFor: (re: RegExp, timeoutMs: number) => Promise<RegExpMatchArray>;
}

/** `echo`: the output goes to this process's stderr as well (the lab tier's log shows the run). */
export function startCli(command: string, args: string[], env: NodeJS.ProcessEnv, echo = true): CliRun {
  const t0 = Date.now();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = new Set<() => void>();
  const append = (d: Buffer) => {
    out += d.toString('utf8');
    if (echo) process.stderr.write(d);
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  let exited = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; seconds: number }>((res) => child.once('exit', (code, signal) => {
    exited = true;
    for (const w of [...waiters]) w();
    res({ code, signal, seconds: (Date.now() - t0) / 1000 });
  }));
  const waitFor = (re: RegExp, timeoutMs: number) => new Promise<RegExpMatchArray>((res, rej) => {
    const timer = setTimeout(() => done(new Error(`no ${re} in the output within ${timeoutMs / 1000} s:\n${out.slice(-3000)}`)), timeoutMs);
    const done = (e?: Error, m?: RegExpMatchArray) => {
      clearTimeout(timer);
      waiters.delete(check);
      if (e) rej(e);
      else res(m!);
    };
    const check = () => {
      const m = re.exec(out);
      if (m) done(undefined, m);
      else if (exited) done(new Error(`the CLI exited before ${re} appeared:\n${out.slice(-3000)}`));
    };
    waiters.add(check);
    check();
  });
  return { child, out: () => out, exit, waitFor };
}
