// The layer table of src/: which folder may import which. One table, read by the ESLint rule below (eslint.config.mjs)
// and by the unit test that walks every import of src/ (test/unit/layers/layers.test.ts), so both say the same.
//
//   core → nothing · adapters → core · engine → core, adapters · cli → core, adapters, engine
//   editor layers, bottom to top: editor → views, webviews → commands → extension.ts (the composition root)
//   webviews/protocol (messages shared with the browser bundles) → core · webview-ui (browser bundles) → core, protocol
//
// Within a layer anything goes; an import of a folder not listed for the importing layer is a back-edge.
// `vscode` may be imported only by the editor layers.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

const BELOW_EDITOR = ['core', 'adapters', 'engine', 'webviews/protocol'];

/** layer → the layers it may import. Keys are folders under src/ (longest match wins) or the one top-level file. */
export const LAYERS = {
  core: [],
  adapters: ['core'],
  engine: ['core', 'adapters'],
  cli: ['core', 'adapters', 'engine'],
  'webviews/protocol': ['core'],
  'webview-ui': ['core', 'webviews/protocol'],
  editor: BELOW_EDITOR,
  views: [...BELOW_EDITOR, 'editor'],
  webviews: [...BELOW_EDITOR, 'editor'],
  commands: [...BELOW_EDITOR, 'editor', 'views', 'webviews'],
  'extension.ts': [...BELOW_EDITOR, 'editor', 'views', 'webviews', 'commands'],
};

/** The layers that run in the extension host and may import `vscode`. */
export const VSCODE_LAYERS = ['editor', 'views', 'webviews', 'commands', 'extension.ts'];

const KEYS = Object.keys(LAYERS).sort((a, b) => b.length - a.length);

/** The layer of a path relative to src/ ('/'-separated), or undefined for a file outside every layer. */
export function layerOf(rel) {
  return KEYS.find((k) => rel === k || rel.startsWith(`${k}/`));
}

/**
 * Why `spec`, imported by `file` (absolute), breaks the table — or undefined when it does not. Imports that resolve
 * outside src/ (the JSON schemas) and packages other than `vscode` are not layers.
 */
export function layerViolation(file, spec) {
  const from = relative(srcRoot, file).split(sep).join('/');
  if (from.startsWith('..')) return undefined;
  const layer = layerOf(from);
  if (!layer) return `${from} is in no layer: put it in one of the folders of the layer table (scripts/layers.mjs)`;
  if (spec === 'vscode') {
    return VSCODE_LAYERS.includes(layer) ? undefined : `${layer}/ must not import vscode (only ${VSCODE_LAYERS.join(', ')} may)`;
  }
  if (!spec.startsWith('.')) return undefined;
  const to = relative(srcRoot, resolve(dirname(file), spec)).split(sep).join('/');
  if (to.startsWith('..')) return undefined;
  const target = layerOf(to) ?? layerOf(`${to}.ts`);
  if (!target) return `${from} imports ${to}, which is in no layer`;
  if (target === layer || LAYERS[layer].includes(target)) return undefined;
  return `${layer} must not import ${target} (${from} → ${to}); ${layer} may import ${LAYERS[layer].join(', ') || 'nothing'} (scripts/layers.mjs)`;
}

/** The ESLint rule: every import, export-from, dynamic import() and require() of a source file against the table. */
export const oneWayRule = {
  meta: { type: 'problem', docs: { description: 'imports follow the layer table of src/ (scripts/layers.mjs)' }, schema: [] },
  create(context) {
    const check = (node, source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const message = layerViolation(context.filename, source.value);
      if (message) context.report({ node: source, message });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSExternalModuleReference: (node) => check(node, node.expression),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
    };
  },
};
