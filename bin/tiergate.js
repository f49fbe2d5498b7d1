#!/usr/bin/env node
// The CLI is TypeScript run through tsx, which also loads users' TypeScript scenario files.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
