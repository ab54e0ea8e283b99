import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding, Range } from '../../../src/core/findings';
import { applyTextEdits, capFindings, chooseAutoFixes, editsOverlap, findingKey, findingsAt, MAX_FINDINGS_PER_FILE, planFix, planFixes, rangesTouch, rulesForKeyword } from '../../../src/core/lint/fixPlan';

const r = (l1: number, c1: number, l2: number, c2: number): Range => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

const modeHttp: Finding = {
  rule: 'haproxy/frontend-mode-tcp',
  severity: 'error',
  message: 'The API frontend runs in mode http.',
  why: 'The API speaks mutual TLS end to end.',
  range: r(20, 4, 20, 13),
  fixes: [{ title: 'Use mode tcp', edits: [{ range: r(20, 9, 20, 13), newText: 'tcp' }] }],
};

const crossFile: Finding = {
  rule: 'cross/vip',
  severity: 'error',
  message: 'The VIP differs from the inventory.',
  range: r(3, 0, 3, 10),
  fixes: [
    { title: 'Use the inventory VIP here', edits: [{ range: r(3, 0, 3, 10), newText: '10.3.60.100' }] },
    { title: 'Change the inventory instead', edits: [], otherFiles: { 'inventory.yaml': [{ range: r(5, 24, 5, 35), newText: '10.3.60.101' }] } },
  ],
};

test('a single fix becomes one preferred plan on the document', () => {
  const plans = planFixes([modeHttp], r(20, 10, 20, 10), 'haproxy.cfg');
  assert.equal(plans.length, 1);
  assert.deepEqual(plans[0]!.plan, { title: 'Use mode tcp', rule: 'haproxy/frontend-mode-tcp', preferred: true, files: [{ path: 'haproxy.cfg', edits: modeHttp.fixes![0]!.edits }] });
});

test('several fixes are offered, none preferred; otherFiles become edits of those files', () => {
  const plans = planFixes([crossFile], r(3, 2, 3, 2), 'keepalived.conf');
  assert.deepEqual(plans.map((p) => [p.plan.title, p.plan.preferred, p.plan.files.map((f) => f.path)]), [
    ['Use the inventory VIP here', false, ['keepalived.conf']],
    ['Change the inventory instead', false, ['inventory.yaml']],
  ]);
});

test('fixes of findings away from the cursor are not offered', () => {
  assert.deepEqual(planFixes([modeHttp, crossFile], r(10, 0, 10, 5), 'x'), []);
});

test('a finding in another file (finding.file) puts its own edits there', () => {
  const plan = planFix(modeHttp.fixes![0]!, { ...modeHttp, file: 'lb/haproxy.cfg' }, 'kubeadm-config.yaml');
  assert.deepEqual(plan?.files.map((f) => f.path), ['lb/haproxy.cfg']);
});

test('fixes whose edits overlap or that edit nothing are dropped', () => {
  const overlapping = { title: 'bad', edits: [{ range: r(1, 0, 1, 5), newText: 'a' }, { range: r(1, 3, 1, 8), newText: 'b' }] };
  assert.equal(planFix(overlapping, modeHttp, 'x'), undefined);
  assert.equal(planFix({ title: 'empty', edits: [] }, modeHttp, 'x'), undefined);
  assert.ok(editsOverlap(overlapping.edits));
  assert.ok(!editsOverlap([{ range: r(1, 0, 1, 3), newText: '' }, { range: r(1, 3, 1, 4), newText: '' }]), 'adjacent edits are fine');
});

test('findingsAt: inside the range, and anywhere on the line for a zero-width finding', () => {
  const empty: Finding = { rule: 'x/y', severity: 'warning', message: 'm', range: r(7, 0, 7, 0) };
  assert.deepEqual(findingsAt([modeHttp, empty], { line: 20, character: 6 }), [modeHttp]);
  assert.deepEqual(findingsAt([modeHttp, empty], { line: 20, character: 14 }), []);
  assert.deepEqual(findingsAt([modeHttp, empty], { line: 7, character: 30 }), [empty]);
  assert.ok(rangesTouch(r(1, 0, 1, 5), r(1, 5, 1, 9)));
  assert.ok(!rangesTouch(r(1, 0, 1, 5), r(1, 6, 1, 9)));
});

test('findingKey tells duplicates apart by rule, range and message', () => {
  assert.equal(findingKey(modeHttp), findingKey({ ...modeHttp, fixes: [] }));
  assert.notEqual(findingKey(modeHttp), findingKey({ ...modeHttp, range: r(21, 4, 21, 13) }));
});

test('keyword hovers find the rules that name the keyword in their title or id', () => {
  const rules = [
    { id: 'haproxy/frontend-mode-tcp', title: 'The Kubernetes API frontend runs in `mode tcp`.', why: 'TLS end to end.' },
    { id: 'haproxy/balance', title: '`balance` names an algorithm HAProxy knows.', why: 'roundrobin spreads streams.' },
    { id: 'containerd/systemd-cgroup', title: 'SystemdCgroup = true for the runc runtime.', why: 'kubelet uses systemd.' },
  ];
  assert.deepEqual(rulesForKeyword(rules, 'balance').map((x) => x.id), ['haproxy/balance']);
  assert.deepEqual(rulesForKeyword(rules, 'mode').map((x) => x.id), ['haproxy/frontend-mode-tcp']);
  assert.deepEqual(rulesForKeyword(rules, 'SystemdCgroup').map((x) => x.id), ['containerd/systemd-cgroup']);
  assert.deepEqual(rulesForKeyword(rules, 'the'), [], 'stop words explain nothing');
  assert.deepEqual(rulesForKeyword(rules, 'roundrobin'), [], 'only titles and ids are searched');
  assert.deepEqual(rulesForKeyword(rules, '6443'), []);
});

test('a flood of findings is capped for the editor with one note saying how many more there are', () => {
  const many: Finding[] = Array.from({ length: MAX_FINDINGS_PER_FILE + 20 }, (_, i) => ({ rule: 'x/y', severity: 'error', message: `m${i}`, range: r(i, 0, i, 1) }));
  const capped = capFindings(many.reverse());
  assert.equal(capped.length, MAX_FINDINGS_PER_FILE + 1);
  assert.equal(capped[0]!.range.start.line, 0, 'the first lines are kept');
  const note = capped[capped.length - 1]!;
  assert.equal(note.rule, 'lint/too-many-findings');
  assert.match(note.message, /^20 more findings/);
  assert.equal(capFindings(many.slice(0, 3)).length, 3);
});

test('a keyword is found at the end of a dotted path in a title', () => {
  const rules = [{ id: 'kubeadm/cert-sans', title: 'apiServer.certSANs covers the VIP.', why: 'w' }];
  assert.deepEqual(rulesForKeyword(rules, 'certSANs').map((x) => x.id), ['kubeadm/cert-sans']);
});

test('snake_case and camelCase keywords name kebab-case rule ids', () => {
  const rules = [{ id: 'containerd/sandbox-image', title: 'The sandbox (pause) image is right.', why: 'w' }];
  assert.deepEqual(rulesForKeyword(rules, 'sandbox_image').map((x) => x.id), ['containerd/sandbox-image']);
  assert.deepEqual(rulesForKeyword(rules, 'sandboxImage').map((x) => x.id), ['containerd/sandbox-image']);
});

test('lint --fix picks one-fix findings of the file itself, never overlapping, and applies them', () => {
  const text = 'frontend api\n    mode http\n    bind 1.2.3.4:6443\r\nbackend b\n';
  const other: Finding = { ...modeHttp, rule: 'x/other-file', file: 'elsewhere.cfg' };
  const overlapping: Finding = { ...modeHttp, rule: 'x/overlap', fixes: [{ title: 'o', edits: [{ range: r(1, 9, 1, 13), newText: 'health' }] }] };
  const mode: Finding = { ...modeHttp, range: r(1, 4, 1, 13), fixes: [{ title: 't', edits: [{ range: r(1, 9, 1, 13), newText: 'tcp' }] }] };
  const bind: Finding = { ...modeHttp, rule: 'x/bind', range: r(2, 4, 2, 8), fixes: [{ title: 'b', edits: [{ range: r(2, 9, 2, 16), newText: '10.3.60.100' }] }] };
  const { edits, fixed } = chooseAutoFixes([mode, overlapping, other, crossFile, bind], 'haproxy.cfg');
  assert.equal(fixed, 2);
  assert.equal(applyTextEdits(text, edits), 'frontend api\n    mode tcp\n    bind 10.3.60.100:6443\r\nbackend b\n');
  assert.equal(applyTextEdits('a\nb', [{ range: r(5, 0, 5, 0), newText: '\nc' }]), 'a\nb\nc', 'past the end appends');
});
