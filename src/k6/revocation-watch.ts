/**
 * What a vantage point probes next on one edge (scenarios/k6/revocation.ts, and the tests' k6-style
 * probe processes): the run revokes its list of disposable keys in list order, a few trials at
 * once, so a vantage probes, at every slot, each of the first `watch` keys of the list not yet
 * settled on the edge. A key is settled once `settleProbes` probes in a row have rejected it; the edge is
 * done when every key is. No I/O and no Node import, so k6 can run it.
 */
import { redactKey } from '../contract/redact.ts';

export interface WatchOptions {
  /** The disposable keys, in the order of the run's revocation.hook.keys. */
  readonly keys: readonly string[];
  /** Keys probed at once: twice the trials the run runs at once covers each trial's key and its successor. */
  readonly watch: number;
  /** Rejections that settle a key, with no admission between them. */
  readonly settleProbes: number;
  /** The status that means "rejected as revoked" (401). */
  readonly rejectStatus: number;
}

/** Keys whose shown form (prefix and last four) is the same cannot be told apart in the records. */
export function ambiguousKeys(keys: readonly string[]): string[] {
  const seen = new Map<string, number>();
  for (const key of keys) seen.set(redactKey(key), (seen.get(redactKey(key)) ?? 0) + 1);
  return [...seen.entries()].filter(([, n]) => n > 1).map(([shown]) => shown);
}

export class KeyWatch {
  readonly #options: WatchOptions;
  /** Rejections in a row, per key index; settled at settleProbes. */
  readonly #rejections: number[];

  constructor(options: WatchOptions) {
    if (options.keys.length === 0) throw new Error('no keys to watch');
    const ambiguous = ambiguousKeys(options.keys);
    if (ambiguous.length > 0)
      throw new Error(
        `keys shown alike (${ambiguous.join(', ')}) cannot be told apart in the records: list keys whose last four characters differ`,
      );
    this.#options = options;
    this.#rejections = options.keys.map(() => 0);
  }

  /** The key indexes to probe at this slot: the first `watch` not yet settled (none once every key is). */
  open(): number[] {
    const { settleProbes, watch } = this.#options;
    const open: number[] = [];
    for (let i = 0; i < this.#rejections.length && open.length < watch; i++)
      if (this.#rejections[i]! < settleProbes) open.push(i);
    return open;
  }

  /**
   * What probing key `index` answered (null: no response). Only an admission starts the count over:
   * a 429 (the organization's concurrency cap, which the vantages share with the run) or a lost
   * answer says nothing of the key, and must not keep it from settling.
   */
  record(index: number, status: number | null): void {
    const count = this.#rejections[index]!;
    if (count >= this.#options.settleProbes) return;
    if (status === this.#options.rejectStatus) this.#rejections[index] = count + 1;
    else if (status !== null && status >= 200 && status < 300) this.#rejections[index] = 0;
  }

  get done(): boolean {
    return this.#rejections.every((n) => n >= this.#options.settleProbes);
  }
}

/** What a vantage point is told through its environment (the k6 script's `-e`, the tests' processes'). */
export interface VantageEnv {
  /** null: unnamed (the ingest names it by its output file). */
  readonly vantage: string | null;
  readonly edges: readonly { readonly label: string; readonly url: string }[];
  readonly intervalMs: number;
  readonly durationS: number;
  readonly watch: WatchOptions;
}

function whole(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${raw}: expected a whole number of at least 1`);
  return n;
}

/** VANTAGE, EDGES, TIERGATE_REVOCATION_KEYS, WATCH, INTERVAL_MS, SETTLE_MS, DURATION_S (scenarios/k6/revocation.ts says what each means); a mistake throws, naming the variable. */
export function readVantageEnv(env: Readonly<Record<string, string | undefined>>, rejectStatus: number): VantageEnv {
  const list = (name: string) =>
    (env[name] ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  const edges = list('EDGES').map((item) => {
    const eq = item.indexOf('=');
    if (eq < 1 || !/^https?:\/\/[^/]+/.test(item.slice(eq + 1)))
      throw new Error(`EDGES: "${item}" is not label=http(s)-base-url`);
    return { label: item.slice(0, eq), url: item.slice(eq + 1).replace(/\/+$/, '') };
  });
  if (edges.length === 0)
    throw new Error(
      'EDGES is empty: -e EDGES=edge-0=https://host,edge-1=https://host2 (named as the run names its edges)',
    );
  const keys = list('TIERGATE_REVOCATION_KEYS');
  if (keys.length === 0)
    throw new Error("TIERGATE_REVOCATION_KEYS is empty: list the run's revocation.hook.keys in order");
  const intervalMs = whole(env, 'INTERVAL_MS', 50);
  return {
    vantage: env['VANTAGE'] || null,
    edges,
    intervalMs,
    durationS: whole(env, 'DURATION_S', 600),
    watch: {
      keys,
      watch: whole(env, 'WATCH', 14),
      settleProbes: Math.ceil(whole(env, 'SETTLE_MS', 1000) / intervalMs),
      rejectStatus,
    },
  };
}

/** The vantage's per-probe metric (a Trend): value = the send time on the vantage's wall clock, epoch ms; the sample's time is when the answer was in. */
export const REVOCATION_PROBE_METRIC = 'tiergate_revocation_probe';

/** A probe's tags: who sent it, to which edge, with which key (shown), what came back. */
export type RevocationProbeTags = {
  readonly vantage: string;
  readonly edge: string;
  readonly key: string;
  readonly status: string;
  readonly date: string;
  readonly edge_node: string;
};

export function probeTags(
  vantage: string,
  edge: string,
  key: string,
  status: number | null,
  date: string | null,
  edgeNode: string | null,
): RevocationProbeTags {
  return {
    vantage,
    edge,
    key: redactKey(key),
    status: String(status ?? 0),
    date: date ?? 'none',
    edge_node: edgeNode ?? 'none',
  };
}
