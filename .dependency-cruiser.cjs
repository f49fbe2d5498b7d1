/**
 * The layers of src/, lowest first: a folder may import its own files and the folders before it,
 * never one after it, and no module may sit in an import cycle. `npm test` runs `npm run deps`,
 * which fails on either. docs/architecture.md's layout table lists the same folders in the same order.
 */
const LAYERS = [
  'util',
  'contract',
  'catalogue',
  'config',
  'scenario',
  'reference-server',
  'measure',
  'profile',
  'windows',
  'verdicts',
  'checks',
  'results',
  'provision',
  'suite',
  'revocation',
  'tasks',
  'k6',
  'report',
  'run',
  'cli',
];

const upward = LAYERS.map((layer, i) => ({
  name: `layer-${layer}`,
  comment: `src/${layer}/ may import only ${i === 0 ? 'itself' : `src/{${LAYERS.slice(0, i).join(',')}}/`}`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${[...LAYERS.slice(i + 1), 'index\\.ts$', 'cli\\.ts$'].join('|')})` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no import cycles, between folders or files',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unknown-folder',
      severity: 'error',
      comment: 'every folder of src/ has a place in LAYERS',
      from: { path: '^src/[^/]+/', pathNot: `^src/(${LAYERS.join('|')})/` },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
