#!/usr/bin/env node
// The CLI, compiled into dist/ by `npm run build` (`npm ci` and `npm pack` run it). TypeScript is
// loaded only for a user's .ts scenario file, when one is named.
import module from 'node:module';

// Node 22.1+ keeps the compiled modules between runs (a quicker start, as npm and vite do); Node 20
// has no compile cache, and this does nothing there.
module.enableCompileCache?.();

const cli = new URL('../dist/cli.js', import.meta.url);
const { main } = await import(cli.href).catch((error) => {
  if (error?.url !== cli.href) throw error;
  process.stderr.write('tiergate: not built in this checkout (no dist/cli.js): run npm run build\n');
  process.exit(2);
});
process.exitCode = await main(process.argv.slice(2));
