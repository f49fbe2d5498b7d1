/**
 * Module hooks for a child process (`node --import` a data: URL that registers this file): appends
 * the URL of every module Node loads to the file named by TIERGATE_MODULE_LOG, one per line. The
 * entry of a CommonJS package imported from ESM is seen; its own require()s are not.
 */
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  appendFileSync(process.env.TIERGATE_MODULE_LOG, `${url}\n`);
  return nextLoad(url, context);
}
