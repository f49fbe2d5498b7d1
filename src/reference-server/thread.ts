/**
 * The reference target on a thread of its own. In one event loop with the harness, the target's
 * answers would wait behind the harness's own bursts and timers, and a measurement of the target
 * would partly measure the harness; on its own thread (a second core) it answers as a server would.
 * Same contract as `startTarget`; only the options cross the thread boundary, so the thread always
 * runs on the real clock (a clock is functions, which cannot be sent to a thread).
 */
import { Worker } from 'node:worker_threads';
import { TiergateError } from '../util/errors.ts';
import { COMPILED, MODULE_EXT } from '../util/own-files.ts';
import type { ResolvedTargetOptions, TargetOptions } from './options.ts';
import type { RunningTarget } from './server.ts';

export type ThreadMessage =
  | {
      readonly type: 'ready';
      readonly edges: readonly string[];
      readonly adminUrl: string;
      readonly ca: string | null;
      readonly options: ResolvedTargetOptions;
    }
  | { readonly type: 'failed'; readonly code: string; readonly message: string }
  | { readonly type: 'closed' };

/** How long a clean close may take before the thread is terminated. */
const CLOSE_GRACE_MS = 5_000;

const ENTRY = new URL(`./thread-entry${MODULE_EXT}`, import.meta.url);

/**
 * Compiled, the worker runs the entry as it is. From the sources, it loads TypeScript: tsx's loader
 * hooks do not reach worker threads on Node 20, so the worker registers them itself.
 */
function newWorker(options: TargetOptions): Worker {
  const workerData = { options };
  if (COMPILED) return new Worker(ENTRY, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); })`;
  return new Worker(source, { eval: true, workerData });
}

export async function startTargetThread(options: TargetOptions = {}): Promise<RunningTarget> {
  const worker = newWorker(options);
  const first = await new Promise<ThreadMessage>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(
        new TiergateError('TG_TARGET_START', `the reference target's thread exited (${code}) before it was ready`),
      ),
    );
  });
  if (first.type !== 'ready') {
    await worker.terminate();
    throw new TiergateError(
      'TG_TARGET_START',
      first.type === 'failed' ? first.message : 'the reference target did not start',
    );
  }
  // A thread that dies later (an uncaught error) must not hang close(): track its exit, and if a
  // clean close takes too long, terminate it.
  let exited = false;
  const gone = new Promise<void>((resolve) => worker.once('exit', () => ((exited = true), resolve())));
  worker.on('error', () => {});
  let closing: Promise<void> | null = null;
  return {
    edges: first.edges,
    adminUrl: first.adminUrl,
    ca: first.ca,
    options: first.options,
    close: () =>
      (closing ??= (async () => {
        if (exited) return;
        worker.postMessage('close');
        const timer = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
        await gone;
        clearTimeout(timer);
      })()),
  };
}
