/**
 * What the extension host may load before activate() returns: dist/extension.js and the files it requires at its
 * top level (minified, as packaged). It holds the composition root, the views and the services the Inventory's first
 * paint needs, 150 KB in 27 files when this was set; every command, the linters, the SSH code, the engine and the
 * webviews load on first use (scripts/bundles.mjs splits the build where the code says import()). A static import of
 * any of them would add 30 KB (one command and its engine code) to 450 KB (the linters): the budget leaves room for
 * a few more views, not for that. The bundle was 1,472,772 bytes in one file before the split. Checked on the
 * package (test/package) and on what the extension host has loaded once the extension is active (test/vscode).
 * Tightened from 200 KB when activation was 190,381 bytes (test/package; the Leases view's constant and the SSH
 * host-key dialog moved off the activation path): 6 KB of room.
 */
export const EAGER_EXTENSION_BYTES = 192 * 1024;
