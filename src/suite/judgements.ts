/**
 * The run's judgements: each verdict function a task calls, through `judge`, with what it was judged
 * on (verdicts/replay.ts) and what it found. When a task's checks become results, each result is
 * linked to the judgement that found it: the one that returned the very finding the result was made
 * of; where a procedure copied it on (a note added), the latest one with its verdict, expected and
 * actual (a measurement taken again supersedes the first). Written beside the observations as
 * judgements.ndjson.gz, for `tiergate verify` to judge again.
 */
import { NOT_REPLAYED, REPLAYABLE, type NotReplayedName, type ReplayableName } from '../checks/verdict-table.ts';
import type { CheckResult, Finding } from '../catalogue/types.ts';
import type { Contract, TierName } from '../contract/types.ts';
import { observationSink } from '../measure/observation-file.ts';
import { encodeArgs, findingText, judgedThenProcedure, type FindingText } from '../verdicts/replay.ts';
import { redactKeys } from '../contract/keys.ts';

export const JUDGEMENTS_FILE = 'judgements.ndjson.gz';

/** An argument written before, by an earlier judgement: `[record, argument]`, both counted from 0. */
export interface SameAs {
  readonly $sameAs: readonly [number, number];
}

const isSameAs = (value: unknown): value is SameAs =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as SameAs).$sameAs) &&
  (value as SameAs).$sameAs.length === 2;

/**
 * The records with every argument written once put back where it was referred to (an earlier
 * record's); a reference to nothing earlier is a problem, named.
 */
export function withSharedArgs(records: readonly JudgementRecord[]): {
  readonly records: JudgementRecord[];
  readonly problems: string[];
} {
  const problems: string[] = [];
  const resolved: JudgementRecord[] = [];
  for (const [index, record] of records.entries()) {
    const args = record.args?.map((arg) => {
      if (!isSameAs(arg)) return arg;
      const [at, i] = arg.$sameAs;
      const earlier = at < index ? resolved[at]?.args?.[i] : undefined;
      if (earlier === undefined)
        problems.push(`${JUDGEMENTS_FILE}: record ${index + 1} refers to an argument no earlier record has`);
      return earlier ?? null;
    });
    resolved.push({ ...record, args: args ?? null });
  }
  return { records: resolved, problems };
}

/** The result a judgement decided. */
export interface JudgementLink {
  readonly check: CheckResult['id'];
  readonly tier: TierName | null;
  readonly variant: string;
  readonly org: string | null;
}

export interface JudgementRecord {
  /** The verdict function; a withheld judgement's is named though it cannot be called again. */
  readonly fn: string;
  /** The encoded arguments; null where they could not be written down (`why`). */
  readonly args: readonly unknown[] | null;
  readonly why?: string;
  readonly found: FindingText;
  link: JudgementLink | null;
}

type Fn<K extends ReplayableName> = (typeof REPLAYABLE)[K];

/**
 * Whether a result says what a judgement found: the same verdict and words, and the judgement's
 * reasons first. A procedure may add reasons of its own after them (measured again in the next
 * window, or why not), which are not the judgement's to replay.
 */
const sameText = (a: FindingText, b: Omit<FindingText, 'reasons'> & { readonly reasons?: FindingText['reasons'] }) =>
  a.verdict === b.verdict &&
  a.expected === b.expected &&
  a.actual === b.actual &&
  judgedThenProcedure(a.reasons, b.reasons ?? []);

export class JudgementLog {
  readonly #records: JudgementRecord[] = [];
  /** Each finding a judgement returned, to the judgement: two checks may find the same words on different observations. */
  readonly #byFinding = new WeakMap<object, JudgementRecord>();
  /** Each object already written as an argument, to where: judged on again (the revocation trials, by four checks), it is written once. */
  readonly #written = new WeakMap<object, SameAs['$sameAs']>();

  constructor(readonly contract: Contract) {}

  /** Calls the verdict function, and records what it judged and found. */
  judge<K extends ReplayableName>(name: K, ...args: Parameters<Fn<K>>): ReturnType<Fn<K>> {
    const found = (REPLAYABLE[name] as (...a: readonly unknown[]) => Finding)(...args) as ReturnType<Fn<K>>;
    this.record(name, args, found);
    return found;
  }

  /**
   * Records a judgement made elsewhere (a tally's), with arguments that say where its input is. An
   * input that cannot be written down (verdicts/replay.ts NotEncodable) is a tiergate bug, and throws:
   * verify requires every judgement's input.
   */
  record(name: ReplayableName, args: readonly unknown[], found: Finding): void {
    const index = this.#records.length;
    const encoded = args.map((arg, i) => {
      const earlier = typeof arg === 'object' && arg !== null ? this.#written.get(arg) : undefined;
      if (earlier) return { $sameAs: earlier } satisfies SameAs;
      if (typeof arg === 'object' && arg !== null) this.#written.set(arg, [index, i]);
      return encodeArgs([arg], this.contract)[0];
    });
    this.#push(found, { fn: name, args: encoded, found: findingText(found), link: null });
  }

  #push(found: Finding, record: JudgementRecord): void {
    this.#records.push(record);
    this.#byFinding.set(found, record);
  }

  /** A judgement whose input is not written down: recorded, so that verify says why it is not judged again. */
  withheld<F extends Finding>(found: F, fn: NotReplayedName): F {
    this.#push(found, { fn, args: null, why: NOT_REPLAYED[fn], found: findingText(found), link: null });
    return found;
  }

  /**
   * Links a result to the judgement that returned `finding` (the object it was made of), else to the
   * latest unlinked one that found what it says; false where none did (the procedure decided it).
   */
  link(result: CheckResult, finding: object): boolean {
    const own = this.#byFinding.get(finding);
    const record = own && own.link === null && sameText(own.found, result) ? own : this.#latestSaying(result);
    if (!record) return false;
    record.link = { check: result.id, tier: result.tier, variant: result.variant, org: result.org };
    return true;
  }

  /** Links a result to its judgement, or records that the procedure decided it: every result has one, which verify requires. */
  linkOrRecord(result: CheckResult, finding: Finding): void {
    if (this.link(result, finding)) return;
    this.withheld(finding, 'procedure');
    this.link(result, finding);
  }

  #latestSaying(result: CheckResult): JudgementRecord | undefined {
    for (let i = this.#records.length - 1; i >= 0; i--) {
      const record = this.#records[i]!;
      if (record.link === null && sameText(record.found, result)) return record;
    }
    return undefined;
  }

  get records(): readonly JudgementRecord[] {
    return this.#records;
  }

  async write(file: string): Promise<void> {
    const sink = observationSink(file);
    // A judgement's input is observations by reference; anything key-shaped left in it is redacted, as in the observations.
    for (const record of this.#records) sink.write(`${redactKeys(JSON.stringify(record))}\n`);
    await sink.end();
  }
}
