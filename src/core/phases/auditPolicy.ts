/**
 * The step that places the API server's audit policy (cluster.apiServerAuditLog) on a control-plane node. It
 * runs before kubeadm init or join on that node: the generated kubeadm config starts the API server with
 * --audit-policy-file, and an API server whose policy file is missing exits at once, so the init or join would
 * time out waiting for it.
 */
import { t } from '../l10n';
import { AUDIT_POLICY_PATH } from '../generate/auditPolicy';
import type { Step } from '../plan/types';
import { sameContent } from './checks';

export function auditPolicyStep(policy: string): Omit<Step, 'id' | 'phase' | 'host'> {
  return {
    title: t('API server audit policy ({0})', AUDIT_POLICY_PATH),
    why: t('inventory.yaml turns the audit log on (cluster.apiServerAuditLog): the API server is started with this policy and would not start without the file. The kubectl run timeline reads the stages it logs.'),
    // Root only: the policy says what is (not) recorded about every request, which is nobody else's to change.
    files: [{ path: AUDIT_POLICY_PATH, content: policy, mode: 0o600 }],
    check: sameContent(AUDIT_POLICY_PATH, policy),
  };
}
