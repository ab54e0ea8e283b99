/**
 * The certificate thresholds and their defaults, apart from the assessment (assess.ts pulls in the PKI table, X.509
 * parsing and the kubelet's commands): the settings table reads the defaults at activation, the assessment runs later.
 */
export interface CertThresholds {
  warningDays: number;
  errorDays: number;
}

export const DEFAULT_THRESHOLDS: CertThresholds = { warningDays: 30, errorDays: 7 };
