import { log } from '../editor/log';
import { defineCommand } from './context';

/** Shows the Kubeadm Workbench log: where a row's or a message's short cause has its whole error. */
export const showLog = defineCommand({}, () => () => log.show());
