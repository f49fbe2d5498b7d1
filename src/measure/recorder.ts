/**
 * Assigns observation ids and streams every observation to NDJSON (gzip-compressed where the file's
 * name ends in .gz: measure/observation-file.ts), so long runs keep bounded memory.
 * Listeners (live aggregates, load histograms) see each observation once, as it is recorded. Lines
 * are written in batches (at the end of the event loop's turn, or every 64 KiB): under load one
 * write per response costs a Buffer and a stream call each.
 */
import type { Observation } from './observation.ts';
import { observationSink, type ObservationSink } from './observation-file.ts';
import { redactKeys } from '../contract/keys.ts';

export type ObservationListener = (observation: Observation) => void;

const BATCH_CHARS = 64 * 1024;

export class ObservationRecorder {
  #nextId = 1;
  #count = 0;
  readonly #stream: ObservationSink | null;
  readonly #listeners: ObservationListener[] = [];
  #batch = '';
  #flushScheduled = false;

  /** `file` null keeps nothing on disk (unit tests, dry runs). */
  constructor(readonly file: string | null) {
    this.#stream = file ? observationSink(file) : null;
  }

  nextId(): number {
    return this.#nextId++;
  }

  get count(): number {
    return this.#count;
  }

  onObservation(listener: ObservationListener): void {
    this.#listeners.push(listener);
  }

  record(observation: Observation): void {
    this.#count += 1;
    if (this.#stream) {
      // Bodies are the target's words: a server echoing a key must not put it on disk.
      this.#batch += `${redactKeys(JSON.stringify(observation))}\n`;
      if (this.#batch.length >= BATCH_CHARS) this.#flush();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    }
    for (const listener of this.#listeners) listener(observation);
  }

  async close(): Promise<void> {
    const stream = this.#stream;
    if (!stream) return;
    this.#flush();
    await stream.end();
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#batch.length === 0) return;
    this.#stream?.write(this.#batch);
    this.#batch = '';
  }
}
