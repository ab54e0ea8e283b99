/**
 * The two ways a balancer can health-check the Kubernetes API servers, as a rewrite of a real haproxy.cfg's API
 * backend (the one whose servers listen on 6443): HAProxy's TCP check (the lab reference cluster's, the seed's) or
 * the HTTPS `GET /readyz` check our generator emits. The lab drill switches a running cluster's balancers between the
 * two to measure what each costs a client through the VIP while an API server restarts.
 */
import { spawnSync } from 'node:child_process';

export type ApiCheck = 'tcp' | 'readyz';

const CHECK_OPTION = /^\s*(option\s+(tcp-check|httpchk)\b|http-check\b|tcp-check\b)/;

/** `cfg` with its API backend checked by `check`; everything else, the other backends included, unchanged. */
export function withApiCheck(cfg: string, check: ApiCheck): string {
  const lines = cfg.split('\n');
  const out: string[] = [];
  let inApi = false;
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S/.test(line)) {
      inApi = false;
      if (/^backend\s/.test(line)) {
        // The API backend: the section whose server lines point at port 6443.
        let j = i + 1;
        while (j < lines.length && !/^\S/.test(lines[j]!)) j++;
        inApi = lines.slice(i + 1, j).some((l) => /^\s*server\s+\S+\s+\S+:6443\b/.test(l));
        if (inApi) {
          found = true;
          out.push(line);
          out.push(...(check === 'tcp' ? ['    option tcp-check'] : ['    option httpchk GET /readyz', '    http-check expect status 200']));
          continue;
        }
      }
      out.push(line);
      continue;
    }
    if (!inApi) {
      out.push(line);
      continue;
    }
    if (CHECK_OPTION.test(line)) continue;
    if (/^\s*server\s/.test(line)) {
      const words = line.trim().split(/\s+/).filter((w, k, all) => w !== 'check-ssl' && !(w === 'verify' && all[k + 1] === 'none') && !(w === 'none' && all[k - 1] === 'verify'));
      const at = words.indexOf('check');
      if (at < 0) throw new Error(`the API backend's server line has no check: ${line.trim()}`);
      if (check === 'readyz') words.splice(at + 1, 0, 'check-ssl', 'verify', 'none');
      out.push(`    ${words.join(' ')}`);
      continue;
    }
    out.push(line);
  }
  if (!found) throw new Error('no backend with servers on :6443 in this haproxy.cfg');
  return out.join('\n');
}

/** Which check the API backend of `cfg` uses now. */
export function apiCheckOf(cfg: string): ApiCheck {
  return /^\s*option\s+httpchk\s+GET\s+\/readyz/m.test(cfg) ? 'readyz' : 'tcp';
}

/** `script` on a balancer over the lab's SSH config (stdin `input`). */
function onBalancer(sshConfig: string, balancer: string, script: string, input?: string, timeout = 60_000) {
  return spawnSync('ssh', ['-F', sshConfig, '-o', 'ConnectTimeout=5', balancer, script], { input, encoding: 'utf8', timeout });
}

/**
 * Installs `cfg` as a balancer's /etc/haproxy/haproxy.cfg: checked by `haproxy -c` first, then a reload (the running
 * connections stay); throws with HAProxy's words when the file does not pass.
 */
export function installHaproxyCfg(sshConfig: string, balancer: string, cfg: string): void {
  const script = 'set -e; f=/etc/haproxy/haproxy.cfg; cat > "$f.kw-new"; haproxy -c -q -f "$f.kw-new"; mv "$f.kw-new" "$f"; systemctl reload haproxy';
  const r = onBalancer(sshConfig, balancer, script, cfg);
  if (r.status !== 0) throw new Error(`${balancer}: haproxy.cfg not installed (exit ${r.status}): ${r.stderr.trim()}`);
}

export function readHaproxyCfg(sshConfig: string, balancer: string): string {
  const r = onBalancer(sshConfig, balancer, 'cat /etc/haproxy/haproxy.cfg');
  if (r.status !== 0) throw new Error(`${balancer}: cannot read haproxy.cfg: ${r.stderr.trim()}`);
  return r.stdout;
}

/** The API backend's servers and their status (`UP`, `DOWN`, `UP 1/2`…) on a balancer, through its admin socket. */
export function apiServerStates(sshConfig: string, balancer: string, statCommand: string): Record<string, string> {
  const r = onBalancer(sshConfig, balancer, statCommand, undefined, 30_000);
  const lines = r.stdout.split('\n');
  const cols = (lines[0] ?? '').replace(/^# /, '').split(',');
  const out: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const f = l.split(',');
    if (f[0] === 'kubernetes-master-nodes' && f[1] && f[1] !== 'BACKEND') out[f[1]] = f[cols.indexOf('status')]!;
  }
  return out;
}
