/** The webview panels' view types: the composition root registers a panel's serializer without loading its code. */
export const DIAGNOSTICS_VIEW_TYPE = 'kubeadm.diagnostics';
