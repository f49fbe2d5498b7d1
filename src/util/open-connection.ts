/**
 * A keep-alive connection opened ahead of the request that is to take it, so that no handshake falls
 * inside that request's time (a revoke call the SLA clock starts at).
 */
import { request, type Dispatcher } from 'undici';

/**
 * Opens a connection to `origin` on `dispatcher` (undici's global one where absent): HEAD /, which
 * carries nothing and changes nothing; whatever it answers, the connection is open. Resolves once the
 * connection is free for the next request: undici closes one after a HEAD unless told not to, and
 * takes it back a turn of the event loop after the answer (a request sent sooner opens another).
 */
export async function openConnection(
  origin: string,
  options: { readonly dispatcher?: Dispatcher; readonly signal?: AbortSignal } = {},
): Promise<void> {
  const response = await request(`${origin}/`, { method: 'HEAD', reset: false, ...options });
  await response.body.dump();
  await new Promise((resolve) => setImmediate(resolve));
}
