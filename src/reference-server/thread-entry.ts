/** Worker side of `startTargetThread`: start the target, report its URLs, close when told. */
import { parentPort, workerData } from 'node:worker_threads';
import { messageOf, TiergateError } from '../util/errors.ts';
import { startTarget } from './server.ts';
import type { TargetOptions } from './options.ts';
import type { ThreadMessage } from './thread.ts';

const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);
try {
  const target = await startTarget((workerData as { options: TargetOptions }).options);
  port.once('message', () => {
    void target.close().then(() => {
      post({ type: 'closed' });
      port.close();
    });
  });
  post({ type: 'ready', edges: target.edges, adminUrl: target.adminUrl, ca: target.ca, options: target.options });
} catch (error) {
  post({
    type: 'failed',
    code: error instanceof TiergateError ? error.code : 'TG_TARGET_START',
    message: messageOf(error),
  });
  port.close();
}
