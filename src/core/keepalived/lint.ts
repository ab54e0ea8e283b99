/**
 * The keepalived.conf linter: structure and keywords, then the VRRP rules of the seed, checked against the
 * inventory and against the other balancers' keepalived.conf files (siblings).
 */
import { textGuard } from '../lint/textGuard';
import { forBalancers } from '../lint/targets';
import type { Finding, Fix, Range, TextEdit } from '../findings';
import { hostsWithRole, splitEndpoint } from '../inventory/types';
import type { Inventory } from '../inventory/types';
import type { FileLinter, LintContext, SourceFile } from '../lint/types';
import { cidrContains, isIPv4, parseCidr } from '../net';
import { didYouMean } from '../haproxy/keywords';
import { BLOCK_KEYWORDS, BLOCK_SCHEMAS, NAMED_BLOCKS, NEEDS_ARGUMENT, SYSTEM_TOOLS, TOP_LEVEL } from './keywords';
import { child, parseKeepalived } from './parse';
import type { IncludeResolver, KeepalivedConfig, KNode, KToken } from './parse';
import { int, summarize, type Summary } from './summary';
import { byLayout, isPeerFile, judgePair, keepalivedHost, peersElsewhere, type DistantFile, type HostMatch, type PeerFile } from './pair';
import { configRoot } from '../lint/siblings';
import { kfinding, KEEPALIVED_RULES } from './rules';
import { t } from '../l10n';
import { detectKeepalived, isKeepalivedName } from './detect';

export { summarize, type Instance, type Script, type Summary, type VipEntry } from './summary';

// ---------------------------------------------------------------------------------------------- helpers

function range(tok: KToken): Range {
  return { start: { line: tok.line, character: tok.start }, end: { line: tok.line, character: tok.end } };
}

function nodeRange(n: KNode): Range {
  const last = n.args[n.args.length - 1] ?? n.keyword;
  return { start: { line: n.keyword.line, character: n.keyword.start }, end: { line: last.line, character: last.end } };
}

function replace(tok: KToken, text: string): TextEdit {
  return { range: range(tok), newText: text };
}

function fix(title: string, ...edits: TextEdit[]): Fix {
  return { title, edits };
}

/** Inserts lines after a node's line (or after a block's opening brace) with the indentation of its children. */
function insertInto(block: KNode, lines: string[], eol: string): TextEdit {
  const anchor = block.open ?? block.keyword;
  const first = block.children?.find((c) => c.keyword.line !== anchor.line);
  const indent = ' '.repeat(first ? first.keyword.start : block.keyword.start + 4);
  return { range: { start: { line: anchor.line, character: anchor.end }, end: { line: anchor.line, character: anchor.end } }, newText: lines.map((l) => eol + indent + l).join('') };
}

function insertAfterNode(n: KNode, lines: string[], eol: string): TextEdit {
  const last = n.close ?? n.args[n.args.length - 1] ?? n.keyword;
  const indent = ' '.repeat(n.keyword.start);
  return { range: { start: { line: last.line, character: last.end }, end: { line: last.line, character: last.end } }, newText: lines.map((l) => eol + indent + l).join('') };
}

function withFile(f: Finding, file: string | undefined): Finding {
  if (file) f.file = file;
  return f;
}

// ---------------------------------------------------------------------------------------------- structure rules

/** Blocks whose content is a list of values, so `kw value...` written without braces can be repaired. */
const LIST_BLOCKS = new Set(['virtual_ipaddress', 'virtual_ipaddress_excluded', 'virtual_routes', 'virtual_rules', 'static_ipaddress', 'static_routes', 'static_rules', 'track_script', 'track_interface', 'track_process', 'track_bfd', 'unicast_peer', 'notification_email']);
const ONE_PER_LINE = new Set(['track_script', 'track_interface', 'track_process', 'track_bfd', 'unicast_peer', 'notification_email']);

function lintStructure(cfg: KeepalivedConfig, out: Finding[], eol: string, thisPath: string | undefined): void {
  for (const p of cfg.problems) {
    const file = p.file && p.file !== thisPath ? p.file : undefined;
    if (p.kind === 'unmatched-quote') out.push(withFile(kfinding('keepalived/syntax', t('Unmatched quote: the string runs to the end of the line.'), range(p.token), [fix(t('Close the quote'), { range: { start: { line: p.token.line, character: p.token.end }, end: { line: p.token.line, character: p.token.end } }, newText: '"' })]), file));
    else if (p.kind === 'extra-close') out.push(withFile(kfinding('keepalived/braces', t("Extra '}' with no block to close."), range(p.token), [fix(t("Remove the '}'"), replace(p.token, ''))]), file));
    else if (p.kind === 'unclosed') out.push(withFile(kfinding('keepalived/braces', `${p.message}.`, range(p.token)), file));
    else out.push(withFile(kfinding('keepalived/syntax', `${p.message}.`, range(p.token)), file));
  }
  const visit = (nodes: KNode[], block: string, parent: KNode | undefined, depth: number) => {
    if (depth > 64) return; // the parser reports the nesting; do not recurse into absurd depths
    const schema = BLOCK_SCHEMAS[block];
    for (const n of nodes) {
      const kw = n.keyword.text;
      const file = n.file && n.file !== thisPath ? n.file : undefined;
      if (kw === '{') {
        out.push(withFile(kfinding('keepalived/braces', t("A '{' with no keyword before it."), range(n.keyword)), file));
      } else if (parent && TOP_LEVEL.has(kw) && kw !== 'include' && !(schema && schema.has(kw))) {
        // a top-level block inside another one: the usual sign of a missing '}'
        const p = parent;
        out.push(
          withFile(
            kfinding('keepalived/braces', t("'{0}' is a top-level block but sits inside '{1}': a '}' is missing before it.", kw, p.keyword.text), range(n.keyword), [
              fix(t('Close the previous block'), { range: { start: { line: n.keyword.line, character: 0 }, end: { line: n.keyword.line, character: 0 } }, newText: ' '.repeat(Math.max(0, p.keyword.start)) + '}' + eol }),
            ]),
            file,
          ),
        );
      } else if (schema && !schema.has(kw)) {
        const near = didYouMean(kw, schema);
        // global_defs has many rarely used keywords: one our list lacks is a warning, a likely typo an error
        const severity = block === 'global_defs' && !near ? 'warning' : undefined;
        out.push(
          withFile(
            kfinding('keepalived/unknown-keyword', t("Unknown keyword '{0}' in {1}{2}", kw, block ? `'${block}'` : t('the top level'), near ? t("; did you mean '{0}'?", near) : '.'), range(n.keyword), near ? [fix(t("Change to '{0}'", near), replace(n.keyword, near))] : undefined, severity),
            file,
          ),
        );
        continue;
      }
      if (NEEDS_ARGUMENT[block]?.has(kw) && n.args.length === 0 && !n.children) {
        out.push(withFile(kfinding('keepalived/argument', t("'{0}' needs a value; keepalived stops reading the configuration here.", kw), range(n.keyword)), file));
      }
      if (block === '' && NAMED_BLOCKS.has(kw) && n.args.length !== 1) {
        out.push(withFile(kfinding('keepalived/argument', n.args.length ? t("'{0}' takes one name, not '{1}'.", kw, n.args.map((a) => a.text).join(' ')) : t("'{0}' needs a name.", kw), n.args.length ? nodeRange(n) : range(n.keyword)), file));
      }
      if ((LIST_BLOCKS.has(kw) || kw === 'authentication') && n.children && n.args.length && schema?.has(kw)) {
        const first = n.args[0]!;
        const last = n.args[n.args.length - 1]!;
        out.push(
          withFile(
            kfinding('keepalived/argument', t("Block '{0}' takes no parameters ('{1}'); keepalived rejects it.", kw, n.args.map((a) => a.text).join(' ')), { start: range(first).start, end: range(last).end }, [
              fix(t('Remove the parameters'), { range: { start: { line: n.keyword.line, character: n.keyword.end }, end: range(last).end }, newText: '' }),
            ]),
            file,
          ),
        );
      }
      if (BLOCK_KEYWORDS.has(kw) && !n.children && (block === '' || schema?.has(kw))) {
        const indent = ' '.repeat(n.keyword.start);
        const items = n.args.map((a) => (a.quoted ? `"${a.text}"` : a.text));
        let fixes: Fix[] | undefined;
        if (LIST_BLOCKS.has(kw) && items.length) {
          const body = ONE_PER_LINE.has(kw) ? items.map((i) => `${indent}    ${i}`) : [`${indent}    ${items.join(' ')}`];
          fixes = [fix(t("Put the values in a '{0} { }' block", kw), { range: nodeRange(n), newText: [`${kw} {`, ...body, `${indent}}`].join(eol) })];
        }
        out.push(withFile(kfinding('keepalived/block-expected', t("'{0}' must open a block: '{0}{1} { ... }'.", kw, n.args.length ? ' ' + n.args.map((a) => a.text).join(' ') : ''), nodeRange(n), fixes), file));
      }
      if (n.children) visit(n.children, schema || block === '' ? kw : `${block}/${kw}`, n, depth + 1);
    }
  };
  visit(cfg.nodes, '', undefined, 0);
}

// ---------------------------------------------------------------------------------------------- VRRP rules

const VIP_OPTIONS_WITH_VALUE = new Set(['dev', 'brd', 'broadcast', 'label', 'scope', 'peer', 'preferred_lft', 'track_group']);
const VIP_FLAGS = new Set(['no_track', 'home', 'nodad', 'noprefixroute', 'autojoin', '-nodad', '-home', '-noprefixroute', '-autojoin']);

/** `ADDRESS [dev IF] [brd A] [scope S] [label L] [no_track] ...`: the first unknown or incomplete option. */
function vipOptionProblem(entry: KNode): { message: string; token: KToken } | undefined {
  const a = entry.args;
  for (let i = 0; i < a.length; i++) {
    const tok = a[i]!;
    if (VIP_FLAGS.has(tok.text)) continue;
    if (!VIP_OPTIONS_WITH_VALUE.has(tok.text)) return { message: t("unknown option '{0}'", tok.text), token: tok };
    if (!a[i + 1]) return { message: t("'{0}' needs a value", tok.text), token: tok };
    i++;
  }
  return undefined;
}

function lintInstances(s: Summary, peers: PeerFile[], inv: Inventory | undefined, invName: string, meMatch: HostMatch | undefined, path: string | undefined, siblings: SourceFile[], out: Finding[], eol: string, includer?: Summary): void {
  const me = meMatch?.host;
  const f = (x: Finding, n: KNode) => withFile(x, n.file && n.file !== path ? n.file : undefined);
  // a fragment (conf.d/*.conf pulled in by include) need not hold an instance itself
  if (s.instances.length === 0 && !includer && isKeepalivedName(path ?? 'keepalived.conf') && s.config.nodes.length > 0 && !s.config.binary && !s.config.problems.some((p) => p.kind === 'unclosed')) {
    const first = s.config.nodes[0]!;
    out.push(kfinding('keepalived/no-instance', t('This keepalived configuration has no vrrp_instance, so it holds no VIP.'), range(first.keyword)));
  }
  const endpoint = inv ? splitEndpoint(inv.cluster.controlPlaneEndpoint) : undefined;
  const lbs = inv ? hostsWithRole(inv, 'loadbalancer') : [];

  // scripts: values, path, security
  const usedScripts = new Set(s.instances.flatMap((i) => i.tracks.map((tok) => tok.keyword.text)));
  for (const sc of s.scripts.values()) {
    for (const key of ['interval', 'timeout', 'rise', 'fall']) {
      const n = child(sc.node, key);
      const v = n && int(n.args[0]);
      if (n && (v === undefined || v <= 0)) out.push(f(kfinding('keepalived/script-values', t("vrrp_script {0}: '{1}' must be a positive number (got '{2}').", sc.name, key, n.args[0]?.text ?? ''), nodeRange(n)), n));
    }
    if (sc.weight) {
      const v = int(sc.weight.args[0]);
      if (v === undefined || v < -253 || v > 253) out.push(f(kfinding('keepalived/script-values', t("vrrp_script {0}: 'weight' must be between -253 and 253 (got '{1}').", sc.name, sc.weight.args[0]?.text ?? ''), nodeRange(sc.weight)), sc.weight));
    }
    if (!sc.script) {
      out.push(f(kfinding('keepalived/script-values', t("vrrp_script {0} has no 'script' to run.", sc.name), range(sc.node.keyword)), sc.node));
      continue;
    }
    const cmdTok = sc.script.args[0];
    const program = cmdTok?.text.trim().split(/\s+/)[0] ?? '';
    if (cmdTok && !program.startsWith('/')) {
      const abs = ['killall', 'pgrep', 'pidof', 'curl'].includes(program) ? `/usr/bin/${program}` : undefined;
      const fixes = abs ? [fix(t('Use {0}', abs), replace(cmdTok, `"${cmdTok.text.trim().replace(program, abs)}"`))] : undefined;
      out.push(f(kfinding('keepalived/script-path', t("vrrp_script {0} runs '{1}' by name; give the absolute path{2} so keepalived can check it under script security.", sc.name, program, abs ? ` (${abs})` : ''), range(cmdTok), fixes), sc.script));
    } else if (cmdTok && !SYSTEM_TOOLS.has(program)) {
      const base = program.split('/').pop()!;
      const inWorkspace = siblings.some((x) => x.path.split(/[\\/]/).pop() === base);
      if (!inWorkspace) out.push(f(kfinding('keepalived/script-path', t('vrrp_script {0} runs {1}, which is neither a standard tool nor a file of this workspace; keepalived disables the check if it is missing on the balancer.', sc.name, program), range(cmdTok)), sc.script));
    }
  }
  const su = child(s.globalDefs, 'script_user');
  if (su) {
    const user = su.args[0];
    if (!user) out.push(f(kfinding('keepalived/script-security', t("'script_user' needs a user name (root on a Debian balancer)."), range(su.keyword), [fix(t("Set 'script_user root'"), { range: range(su.keyword), newText: 'script_user root' })]), su));
    else if (su.args.length > 2) out.push(f(kfinding('keepalived/script-security', t("'script_user' takes a user and an optional group; '{0}' is one too many.", su.args[2]!.text), nodeRange(su)), su));
    else if (user.text !== 'root' && didYouMean(user.text, ['root'])) out.push(f(kfinding('keepalived/script-security', t("script_user '{0}' is not a user of a Debian balancer; did you mean 'root'?", user.text), range(user), [fix(t("Set 'script_user root'"), replace(user, 'root'))], 'warning'), su));
  }
  if (s.scripts.size > 0 && [...s.scripts.keys()].some((k) => usedScripts.has(k))) {
    const gd = s.globalDefs;
    const missing: string[] = [];
    if (!child(gd, 'enable_script_security')) missing.push('enable_script_security');
    if (!child(gd, 'script_user')) missing.push('script_user root');
    if (missing.length) {
      const where = gd ? range(gd.keyword) : range(s.config.nodes[0]!.keyword);
      const edit: TextEdit = gd?.children
        ? insertInto(gd, missing, eol)
        : { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: ['global_defs {', ...missing.map((m) => `    ${m}`), '}', ''].join(eol) };
      out.push(kfinding('keepalived/script-security', t('Check scripts run but global_defs lacks {0}.', missing.join(' and ')), where, [fix(t('Add {0}', missing.join(', ')), edit)]));
    }
  }

  for (const inst of s.instances) {
    const n = inst.node;
    const name = inst.name || '(unnamed)';
    // state
    if (!inst.state) {
      // keepalived defaults to BACKUP: fine, but the one-master rule below looks at it
    } else if (inst.stateValue !== 'MASTER' && inst.stateValue !== 'BACKUP') {
      const near = didYouMean((inst.stateValue ?? '').toUpperCase(), ['MASTER', 'BACKUP']) ?? 'BACKUP';
      const tok = inst.state.args[0] ?? inst.state.keyword;
      out.push(f(kfinding('keepalived/state', t("({0}) unknown state '{1}'; keepalived falls back to BACKUP.", name, inst.stateValue ?? ''), range(tok), [fix(t("Set 'state {0}'", near), inst.state.args[0] ? replace(inst.state.args[0], near) : replace(inst.state.keyword, `state ${near}`))]), inst.state));
    }
    const nopreempt = child(n, 'nopreempt');
    if (nopreempt && inst.stateValue === 'MASTER') {
      out.push(f(kfinding('keepalived/state', t("({0}) 'nopreempt' does not work with state MASTER; keepalived clears it (use state BACKUP on every balancer with nopreempt).", name), range(nopreempt.keyword), [fix(t("Remove 'nopreempt'"), { range: nodeRange(nopreempt), newText: '' })]), nopreempt));
    }
    // priority
    if (inst.priority) {
      const v = int(inst.priority.args[0]);
      if (v === undefined || v < 1 || v > 255) {
        const tok = inst.priority.args[0] ?? inst.priority.keyword;
        out.push(f(kfinding('keepalived/priority', t("({0}) priority '{1}' is outside 1–254; keepalived falls back to 100.", name, inst.priority.args[0]?.text ?? ''), range(tok), inst.priority.args[0] ? [fix(t('Set priority 100'), replace(inst.priority.args[0], '100'))] : undefined), inst.priority));
      } else if (v === 255 && inst.tracks.length) {
        out.push(f(kfinding('keepalived/priority', t('({0}) priority 255 makes this balancer the address owner, and keepalived then ignores the track_script weight.', name), range(inst.priority.args[0]!), [fix(t('Set priority 100'), replace(inst.priority.args[0]!, '100'))]), inst.priority));
      }
    } else if (inst.stateValue === 'MASTER') {
      out.push(f(kfinding('keepalived/priority', t("({0}) a MASTER without 'priority' gets 255 (address owner), and keepalived then ignores the track_script weight.", name), range(inst.state!.keyword), [fix(t("Add 'priority 100'"), insertAfterNode(inst.state!, ['priority 100'], eol))]), n));
    }
    // virtual_router_id
    if (!inst.vrid) {
      const want = me?.vrrp?.virtualRouterId ?? 51;
      out.push(f(kfinding('keepalived/virtual-router-id', t('({0}) has no virtual_router_id; keepalived refuses the instance.', name), range(n.keyword), n.children ? [fix(t("Add 'virtual_router_id {0}'", want), insertInto(n, [`virtual_router_id ${want}`], eol))] : undefined), n));
    } else if (inst.vridValue === undefined || inst.vridValue < 1 || inst.vridValue > 255) {
      const tok = inst.vrid.args[0] ?? inst.vrid.keyword;
      out.push(f(kfinding('keepalived/virtual-router-id', t("({0}) virtual_router_id '{1}' must be between 1 and 255.", name, inst.vrid.args[0]?.text ?? ''), range(tok), inst.vrid.args[0] ? [fix(t('Set virtual_router_id 51'), replace(inst.vrid.args[0], '51'))] : undefined), inst.vrid));
    } else {
      const want = me?.vrrp?.virtualRouterId;
      if (want !== undefined && want !== inst.vridValue) {
        out.push(f(kfinding('keepalived/inventory-mismatch', t('({0}) virtual_router_id {1} in this file, but {2} gives {3}.', name, inst.vridValue, invName, want), range(inst.vrid.args[0]!), [fix(t('Set virtual_router_id {0}', want), replace(inst.vrid.args[0]!, String(want)))]), inst.vrid));
      }
    }
    // advert_int
    const adv = child(n, 'advert_int');
    if (adv && !(adv.args[0] && /^\d+(\.\d+)?$/.test(adv.args[0].text) && Number(adv.args[0].text) > 0)) {
      out.push(f(kfinding('keepalived/advert-int', t("({0}) advert_int '{1}' must be a positive number of seconds.", name, adv.args[0]?.text ?? ''), nodeRange(adv)), adv));
    }
    // authentication
    if (inst.authType) {
      const tok = inst.authType.args[0]?.text;
      if (tok !== 'PASS' && tok !== 'AH') out.push(f(kfinding('keepalived/authentication', t("({0}) auth_type '{1}' must be PASS or AH.", name, tok ?? ''), nodeRange(inst.authType), inst.authType.args[0] ? [fix(t("Set 'auth_type PASS'"), replace(inst.authType.args[0], 'PASS'))] : undefined), inst.authType));
    }
    if (inst.authPass) {
      const p = inst.authPass.args[0]?.text ?? '';
      if (p.length === 0) out.push(f(kfinding('keepalived/authentication', t('({0}) auth_pass is empty.', name), nodeRange(inst.authPass)), inst.authPass));
      else if (p.length > 8) out.push(f(kfinding('keepalived/authentication', t('({0}) auth_pass has {1} characters; keepalived uses only the first 8.', name, p.length), range(inst.authPass.args[0]!), [fix(t('Truncate to 8 characters'), replace(inst.authPass.args[0]!, p.slice(0, 8)))]), inst.authPass));
    }
    if (s.strict && (inst.authType || inst.authPass)) {
      out.push(f(kfinding('keepalived/vrrp-strict', t('({0}) vrrp_strict does not support authentication; keepalived ignores it.', name), range((inst.authType ?? inst.authPass)!.keyword)), n));
    }
    if (s.strict && inst.stateValue === 'MASTER' && inst.priorityValue !== 255) {
      out.push(f(kfinding('keepalived/vrrp-strict', t('({0}) under vrrp_strict only the address owner (priority 255) may start as MASTER.', name), range(inst.state!.keyword)), n));
    }

    // inventory: state/priority of this balancer
    if (me?.vrrp) {
      if (inst.stateValue && (inst.stateValue === 'MASTER' || inst.stateValue === 'BACKUP') && inst.stateValue !== me.vrrp.state) {
        out.push(f(kfinding('keepalived/inventory-mismatch', t('({0}) state {1} in this file, but {2} gives {3} state {4}.', name, inst.stateValue, invName, me.name, me.vrrp.state), range(inst.state!.args[0]!), [fix(t("Set 'state {0}'", me.vrrp.state), replace(inst.state!.args[0]!, me.vrrp.state))]), n));
      }
      const pv = int(inst.priority?.args[0]);
      if (inst.priority?.args[0] && pv !== undefined && pv >= 1 && pv < 255 && pv !== me.vrrp.priority) {
        out.push(f(kfinding('keepalived/inventory-mismatch', t('({0}) priority {1} in this file, but {2} gives {3} priority {4}.', name, inst.priorityValue, invName, me.name, me.vrrp.priority), range(inst.priority.args[0]), [fix(t("Set 'priority {0}'", me.vrrp.priority), replace(inst.priority.args[0], String(me.vrrp.priority)))]), n));
      }
      // interface
      if (inst.iface?.args[0] && inst.iface.args[0].text !== me.vrrp.interface) {
        out.push(f(kfinding('keepalived/interface', t("({0}) interface {1}, but {2}'s VRRP interface in the inventory is {3}.", name, inst.iface.args[0].text, me.name, me.vrrp.interface), range(inst.iface.args[0]), [fix(t('Use {0}', me.vrrp.interface), replace(inst.iface.args[0], me.vrrp.interface))]), inst.iface));
      }
      for (const v of inst.vips) {
        if (v.dev && v.dev.text !== me.vrrp.interface) out.push(f(kfinding('keepalived/interface', t("VIP {0} is put on dev {1}, but {2}'s VRRP interface is {3}.", v.token.text, v.dev.text, me.name, me.vrrp.interface), range(v.dev), [fix(t('Use {0}', me.vrrp.interface), replace(v.dev, me.vrrp.interface))]), v.node));
      }
    }
    if (!inst.iface) out.push(f(kfinding('keepalived/interface', t("({0}) has no 'interface'; keepalived needs the NIC to send adverts on.", name), range(n.keyword), me?.vrrp && n.children ? [fix(t("Add 'interface {0}'", me.vrrp.interface), insertInto(n, [`interface ${me.vrrp.interface}`], eol))] : undefined), n));

    // VIP
    if (inst.vips.length === 0) {
      const ep = endpoint?.host;
      out.push(f(kfinding('keepalived/vip', t('({0}) has no virtual_ipaddress, so it holds no VIP.', name), range(n.keyword), ep && n.children ? [fix(t('Add the VIP {0}/24', ep), insertInto(n, ['virtual_ipaddress {', `    ${ep}/24`, '}'], eol))] : undefined), n));
    }
    for (const v of inst.vips) {
      if (!isIPv4(v.address) && !v.address.includes(':')) {
        out.push(f(kfinding('keepalived/vip', t("VIP '{0}' is not a valid IP address; keepalived skips it.", v.token.text), range(v.token), endpoint ? [fix(t('Use {0}/{1}', endpoint.host, v.prefix ?? 24), replace(v.token, `${endpoint.host}/${v.prefix ?? 24}`))] : undefined), v.node));
        continue;
      }
      const bad = vipOptionProblem(v.node);
      if (bad) {
        out.push(f(kfinding('keepalived/vip', t('VIP {0}: {1}; keepalived skips the address.', v.token.text, bad.message), range(bad.token)), v.node));
        continue;
      }
      if (v.prefix !== undefined && (v.prefix < 0 || v.prefix > 32)) {
        out.push(f(kfinding('keepalived/vip', t("VIP '{0}' has an invalid prefix length.", v.token.text), range(v.token)), v.node));
        continue;
      }
      if (endpoint && isIPv4(endpoint.host) && v.address !== endpoint.host && inst.vips.length === 1) {
        out.push(f(kfinding('keepalived/vip', t('VIP {0} is not the host of controlPlaneEndpoint ({1}).', v.address, endpoint.host), range(v.token), [fix(t('Use {0}', endpoint.host), replace(v.token, `${endpoint.host}${v.prefix !== undefined ? `/${v.prefix}` : ''}`))]), v.node));
      }
      if (v.prefix === undefined) {
        out.push(f(kfinding('keepalived/vip', t("VIP {0} has no prefix length, so keepalived adds it as /32; give the subnet's (e.g. /24 as in the seed).", v.address), range(v.token), [fix(t('Use {0}/24', v.address), replace(v.token, `${v.address}/24`))], 'warning'), v.node));
      } else if (me && isIPv4(v.address)) {
        const cidr = parseCidr(`${v.address}/${v.prefix}`);
        if (cidr && lbs.length && !lbs.every((h) => cidrContains(cidr, h.address))) {
          const outside = lbs.filter((h) => !cidrContains(cidr, h.address));
          out.push(f(kfinding('keepalived/vip-subnet', t('VIP {0} is not in the subnet of {1}.', v.token.text, outside.map((h) => `${h.name} (${h.address})`).join(', ')), range(v.token)), v.node));
        }
      }
    }

    // track_script
    for (const tok of inst.tracks) {
      const scriptName = tok.keyword.text;
      if (!s.scripts.has(scriptName) && !includer?.scripts.has(scriptName)) {
        const near = didYouMean(scriptName, s.scripts.keys());
        out.push(f(kfinding('keepalived/track-script', t("({0}) tracks '{1}', but no vrrp_script of that name exists{2}", name, scriptName, near ? t("; did you mean '{0}'?", near) : '.'), range(tok.keyword), near ? [fix(t("Change to '{0}'", near), replace(tok.keyword, near))] : undefined), tok));
      }
    }
    if (inst.tracks.length === 0 && n.children) {
      const first = [...s.scripts.keys()][0];
      out.push(f(kfinding('keepalived/no-track-script', t('({0}) tracks no script, so the VIP stays here even when HAProxy is dead.', name), range(n.keyword), first ? [fix(t('Track \'{0}\'', first), insertInto(n, ['track_script {', `    ${first}`, '}'], eol))] : undefined), n));
    }

  }
  judgePair({ summary: s, peers, ...(inv ? { inventory: inv } : {}), inventoryName: invName, ...(me ? { me } : {}), meByLayout: byLayout(meMatch), eol, place: f, out });
}

// ---------------------------------------------------------------------------------------------- entry points

function globToRegExp(glob: string): RegExp {
  const esc = glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\[\\\^/g, '[^');
  return new RegExp(`(^|/)${esc}$`);
}

/** Resolves includes against the workspace's sibling files, by the pattern's last path components. */
export function siblingResolver(siblings: SourceFile[]): IncludeResolver {
  return (pattern) => {
    const parts = pattern.split('/').filter(Boolean);
    const tail = parts.slice(-2).join('/');
    const reTail = globToRegExp(tail);
    const reBase = globToRegExp(parts[parts.length - 1] ?? pattern);
    const norm = (p: string) => p.replace(/\\/g, '/');
    let hits = siblings.filter((s) => reTail.test(norm(s.path)));
    if (hits.length === 0) hits = siblings.filter((s) => reBase.test(norm(s.path)));
    return hits.map((s) => ({ path: s.path, text: s.text })).sort((a, b) => a.path.localeCompare(b.path));
  };
}


export { detectKeepalived };


export function lintKeepalived(text: string, context: LintContext = {}, path?: string): Finding[] {
  const guarded = textGuard(text, 'keepalived');
  if (guarded) return [guarded];
  const siblings = context.siblings ?? [];
  const resolver = siblingResolver(siblings.filter((s) => s.path !== path));
  const cfg = parseKeepalived(text, path, resolver);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const out: Finding[] = [];
  lintStructure(cfg, out, eol, path);
  const summary = summarize(cfg);
  const includedPaths = new Set(cfg.included);
  const inv = context.inventory;
  const meMatch = inv ? keepalivedHost(path, text, summary, inv) : undefined;
  const peers: PeerFile[] = [];
  for (const sib of siblings) {
    if (sib.path === path || includedPaths.has(sib.path) || !isKeepalivedName(sib.path)) continue;
    const pc = parseKeepalived(sib.text, sib.path, siblingResolver(siblings.filter((x) => x.path !== sib.path)));
    if (pc.binary) continue;
    const ps = summarize(pc);
    const match = inv ? keepalivedHost(sib.path, sib.text, ps, inv) : undefined;
    const host = match?.host;
    if (ps.instances.length && isPeerFile(path, meMatch, sib.path, match)) peers.push({ path: sib.path, summary: ps, ...(host ? { host } : {}) });
  }
  // no peer in its own config set: the same VRRP instance in another folder (lb1/ and lb2/) is its peer
  if (!peers.length && context.vrrpElsewhere?.length) peers.push(...peersElsewhere({ text, summary, match: meMatch }, distantFiles(context.vrrpElsewhere, inv)));
  // when this file is a fragment included by a keepalived*.conf of the workspace, names resolve in the includer
  let includer: Summary | undefined;
  if (path !== undefined && !isKeepalivedName(path)) {
    for (const sib of siblings) {
      if (sib.path === path || !isKeepalivedName(sib.path) || !/^\s*include\s/m.test(sib.text)) continue;
      const pc = parseKeepalived(sib.text, sib.path, siblingResolver(siblings.filter((x) => x.path !== sib.path)));
      if (pc.included.includes(path)) {
        includer = summarize(pc);
        break;
      }
    }
  }
  const invName = context.inventoryPath ? t('the inventory ({0})', context.inventoryPath.split(/[\\/]/).pop()) : t('the inventory');
  lintInstances(summary, peers, inv, invName, meMatch, path, siblings, out, eol, includer);
  out.sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return out;
}

/** Keepalived files of other config sets, parsed (each alone, without includes: a distant file is only compared). */
function distantFiles(files: readonly SourceFile[], inv: Inventory | undefined): DistantFile[] {
  const hostNames = new Set(inv?.hosts.map((h) => h.name) ?? []);
  const out: DistantFile[] = [];
  for (const f of files.slice(0, MAX_DISTANT_FILES)) {
    if (!isKeepalivedName(f.path) || f.text.length > MAX_DISTANT_CHARS) continue;
    const cfg = parseKeepalived(f.text, f.path);
    if (cfg.binary) continue;
    const summary = summarize(cfg);
    if (!summary.instances.length) continue;
    const match = inv ? keepalivedHost(f.path, f.text, summary, inv) : undefined;
    out.push({ path: f.path, text: f.text, summary, match, root: configRoot(f.path, hostNames), ...(match ? { host: match.host } : {}) });
  }
  return out;
}

/** A workspace's keepalived files elsewhere are parsed for every keepalived file linted: bounded. */
const MAX_DISTANT_FILES = 64;
const MAX_DISTANT_CHARS = 256_000;

export const keepalivedLinter: FileLinter = {
  kind: 'keepalived',
  rules: Object.values(KEEPALIVED_RULES),
  detect: detectKeepalived,
  scope: forBalancers,
  lint: (file: SourceFile, context: LintContext) => lintKeepalived(file.text, forBalancers(file, context), file.path),
  crossFile: true,
};
