/**
 * A request refused for quota (429) that says nothing of what its sender wanted to learn (a key's
 * scopes, an archive) is sent again once the wait the server announced is over: Retry-After, else
 * the body's retry_after_seconds, else a window; a window at most.
 */
import type { Observation } from '../measure/observation.ts';
import { announcedWaitS } from '../measure/reset-format.ts';
import { sleep } from '../util/sleep.ts';
import type { SuiteContext } from './context.ts';

/** Past a wait the server announced, in whole seconds: 80 ms besides the timers' margin (a tenth of a second with its floor). */
const ROUNDING_MS = 80;

export async function waitOutRefusal(context: SuiteContext, refused: Observation): Promise<void> {
  const waitS = announcedWaitS(refused);
  const marginMs = context.network.margins(refused.edge).waitOutMs + ROUNDING_MS;
  const waitMs = Math.min(waitS === null ? context.windowMs : waitS * 1000, context.windowMs) + marginMs;
  await sleep(Math.max(0, (refused.headersAt ?? refused.doneAt) + waitMs - context.prober.now()), context.signal);
}
