/**
 * Checks that ask a host whether a step's effect is in place: file contents by hash, sysctl values as the
 * kernel reports them, packages as dpkg and apt see them, services active, enabled and started after their
 * configuration was written. A step with such a check is skipped only when the host says so — never
 * because a run's ledger remembers it as done (the host may have been rebuilt since).
 */
import { createHash } from 'node:crypto';
import { raw, sh, type RemoteCommand } from '../ssh/command';

/** Every command must succeed; each is braced, so an `a || b` inside one cannot swallow the others. */
export function all(...cmds: RemoteCommand[]): RemoteCommand {
  const [first, ...rest] = cmds.map((c) => sh`{ ${c}; }`);
  if (!first) return sh`true`;
  return rest.reduce((acc, c) => sh`${acc} && ${c}`, first);
}

/** Exits 0 when the file on the host has exactly this content (compared by SHA-256, computed here). */
export function sameContent(path: string, content: string): RemoteCommand {
  // Written as sha256:<hex> so that logs and the secret scanners read it as the public hash it is.
  const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
  return sh`test "sha256:$(sha256sum < ${path} 2>/dev/null | cut -c1-64)" = ${digest}`;
}

/** `key = value` pairs of a sysctl.d file (comments, blank lines and `-` prefixes aside). */
export function sysctlSettings(content: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of content.split('\n')) {
    const m = /^\s*-?([A-Za-z0-9_.\/-]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m && !line.trimStart().startsWith('#') && !line.trimStart().startsWith(';')) out.push([m[1]!, m[2]!]);
  }
  return out;
}

/** Exits 0 when the kernel reports every value of the sysctl.d file (whitespace inside values normalised). */
export function sysctlApplied(content: string): RemoteCommand {
  const checks = sysctlSettings(content).map(([key, value]) => sh`test "$(sysctl -n ${key} 2>/dev/null | tr -s ${'[:space:]'} ' ' | sed 's/ $//')" = ${value.replace(/\s+/g, ' ')}`);
  return all(...checks);
}

/** Exits 0 when dpkg has every package installed (not merely known, removed or half-configured). */
export function packagesInstalled(packages: readonly string[]): RemoteCommand {
  return all(...packages.map((p) => sh`dpkg-query -W -f=${raw("'${Status}'")} ${p} 2>/dev/null | grep -qx ${'install ok installed'}`));
}

/** A package the package sources must offer; with `version`, that upstream version (`<version>-<revision>`). */
export interface OfferedPackage {
  name: string;
  version?: string;
}

/**
 * Exits 0 when apt's package lists (from the configured sources, not dpkg's status) offer every package. A package
 * asked for without a version may instead be installed already: the install that follows has nothing to fetch for
 * it, and a mirror made for this cluster (the lab's, an air-gapped one) need not carry what the image already has
 * (psmisc on a minimal Debian) — asking the sources alone would re-run the step on every resume.
 */
export function sourcesOffer(packages: readonly OfferedPackage[]): RemoteCommand {
  return all(
    ...packages.map((p) =>
      p.version
        ? sh`apt-cache madison ${p.name} 2>/dev/null | grep -qF ${`| ${p.version}-`}`
        : sh`{ apt-cache madison ${p.name} 2>/dev/null | grep -q . || dpkg-query -W -f=${raw("'${Status}'")} ${p.name} 2>/dev/null | grep -qx ${'install ok installed'}; }`,
    ),
  );
}

/**
 * Exits 0 when the unit is enabled, active, and was started after each of its configuration files was last
 * written: a file changed after the start is not what the service runs with.
 */
export function serviceConfigured(unit: string, files: readonly string[]): RemoteCommand {
  const since = sh`s=$(date -d "$(systemctl show -p ActiveEnterTimestamp --value ${unit})" +%s 2>/dev/null) && test -n "$s"`;
  return all(
    sh`systemctl is-enabled -q ${unit}`,
    sh`systemctl is-active -q ${unit}`,
    ...(files.length ? [since, ...files.map((f) => sh`test "$(stat -c %Y ${f} 2>/dev/null || echo 9999999999)" -le "$s"`)] : []),
  );
}
