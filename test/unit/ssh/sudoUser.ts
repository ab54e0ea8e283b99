/**
 * Test harness: a real local user for logins that are not root, with a password and a sudoers rule of the test's
 * choosing (a sudo that asks for the password, or none at all), removed again afterwards. Needs root and sudo
 * (scripts/setup.sh installs it); the user's name is unique per run, its home is inside the test's folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestUser {
  name: string;
  password: string;
  remove(): void;
}

export function createTestUser(baseDir: string, opts: { sudo: 'password' | 'none' }): TestUser {
  if (!existsSync('/usr/bin/sudo')) throw new Error('sudo is not installed: scripts/setup.sh installs it (apt-get install sudo)');
  if (process.getuid?.() !== 0) throw new Error('creating a test user needs root');
  const name = `kwt${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  const home = join(baseDir, `home-${name}`);
  mkdirSync(baseDir, { recursive: true });
  execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', home, '--shell', '/bin/sh', name]);
  mkdirSync(home, { recursive: true });
  execFileSync('chown', [name, home]);
  execFileSync('chpasswd', { input: `${name}:${password}\n` });
  const rule = `/etc/sudoers.d/${name}`;
  if (opts.sudo === 'password') {
    writeFileSync(rule, `${name} ALL=(ALL:ALL) ALL\nDefaults:${name} !lecture\n`, { mode: 0o440 });
    execFileSync('visudo', ['-c', '-q', '-f', rule]);
  }
  return {
    name,
    password,
    remove: () => {
      rmSync(rule, { force: true });
      try {
        execFileSync('userdel', [name], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    },
  };
}
