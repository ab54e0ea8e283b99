#!/usr/bin/env bash
# Maintainer helper (shared work tree): stages into the index only the given "scripts" entries of package.json,
# on top of the committed package.json, leaving other people's uncommitted package.json edits unstaged.
# Usage: scripts/lib/commit-pkg-scripts.sh name1 name2 ...   (then git commit)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tmp=$(mktemp -d)
git show HEAD:package.json > "$tmp/package.json"
node -e '
const fs = require("fs"); const [dst, ...names] = process.argv.slice(1);
const cur = require("./package.json"); const pkg = JSON.parse(fs.readFileSync(dst, "utf8"));
for (const n of names) { if (cur.scripts[n] === undefined) delete pkg.scripts[n]; else pkg.scripts[n] = cur.scripts[n]; }
fs.writeFileSync(dst, JSON.stringify(pkg, null, 2) + "\n");' "$tmp/package.json" "$@"
blob=$(git hash-object -w "$tmp/package.json")
git update-index --cacheinfo "100644,$blob,package.json"
rm -rf "$tmp"
