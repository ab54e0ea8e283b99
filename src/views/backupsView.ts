/**
 * Backups view: the local etcd backups (newest first: time, cluster, revision, size; sha256 and members in the
 * tooltip; "Restore from this backup…" and "Open Folder" on each row) and the scheduled snapshots on each
 * control-plane node (timer, count, the newest snapshot's age; warning colour past two intervals). Local backups
 * are listed from their manifests when the view is first shown or the folder changes; the nodes only on Refresh.
 */
import { ViewIds } from '../editor/commandIds';
import type { EtcdBackups } from '../editor/etcdBackups';
import { buildBackupsTree } from './backupRows';
import { StaticTreeView } from './staticTree';

export class BackupsView extends StaticTreeView {
  private tick: NodeJS.Timeout | undefined;
  private shown = '';

  constructor(private readonly backups: EtcdBackups) {
    super(ViewIds.backups);
    this.disposables.push(backups.onDidChange(() => this.show()), this.treeView.onDidChangeVisibility((e) => this.ticking(e.visible)));
    this.show();
    this.ticking(this.treeView.visible);
    // The folder is listed when the view is first shown (and again when its setting changes), not at activation.
    let listed = false;
    const listOnce = (visible: boolean): void => {
      if (!visible || listed) return;
      listed = true;
      void backups.refreshLocal();
    };
    this.disposables.push(this.treeView.onDidChangeVisibility((e) => listOnce(e.visible)));
    listOnce(this.treeView.visible);
  }

  /** While the view is visible the ages ("5 min ago") move without a Refresh: a rebuild every 5 s, fired only when a row's text changed. */
  private ticking(visible: boolean): void {
    clearInterval(this.tick);
    this.tick = visible ? setInterval(() => this.show(), TICK_MS) : undefined;
  }

  private show(): void {
    const roots = buildBackupsTree(this.backups.folder, this.backups.local, this.backups.schedules, Date.now(), this.backups.schedulesAt?.getTime());
    const text = JSON.stringify(roots);
    if (text === this.shown) return;
    this.shown = text;
    this.setRoots(roots);
  }

  override dispose(): void {
    clearInterval(this.tick);
    super.dispose();
  }
}

const TICK_MS = 5_000;
