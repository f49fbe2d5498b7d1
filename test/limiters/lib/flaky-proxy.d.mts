/** Types of flaky-proxy.mjs, for the TypeScript tests that use it. */

export interface FlakyProxyOptions {
  /** 'http://127.0.0.1:PORT' (loopback only). */
  readonly target: string;
  /** About one request in N dropped (N ≥ 2); 0 drops none. */
  readonly dropOneIn?: number;
  /** 'seeded' (default): a hash of (seed, n) picks; 'every': requests N, 2N, … */
  readonly pick?: 'seeded' | 'every';
  readonly seed?: number;
  /** 'request' (default): never reaches the server; 'response': the server answers, the answer is lost. */
  readonly dropAt?: 'request' | 'response';
  /** 'reset' (default, ECONNRESET) or 'close' (closed with no response). */
  readonly how?: 'reset' | 'close';
  /** How long the connection stays open and silent before it is cut (default 0). */
  readonly holdMs?: number;
  /** Listening port on 127.0.0.1 (default 0: a free one). */
  readonly port?: number;
}

export interface DroppedRequest {
  /** The request's number in the order the proxy saw them, from 1. */
  readonly n: number;
  readonly method: string;
  readonly path: string;
  /** Epoch ms. */
  readonly at: number;
  readonly dropAt: 'request' | 'response';
}

export interface FlakyProxy {
  readonly url: string;
  readonly port: number;
  readonly target: string;
  readonly dropped: number;
  readonly requests: number;
  readonly connections: number;
  readonly drops: readonly DroppedRequest[];
  close(): Promise<void>;
}

export declare function startFlakyProxy(options: FlakyProxyOptions): Promise<FlakyProxy>;
/** Whether request n (from 1) is dropped: a pure function of n and the options. */
export declare function dropDecider(
  options: Pick<FlakyProxyOptions, 'dropOneIn' | 'pick' | 'seed'>,
): (n: number) => boolean;
