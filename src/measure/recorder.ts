/**
 * Assigns observation ids and streams every observation to NDJSON, so long runs keep bounded memory.
 * Listeners (live aggregates, load histograms) see each observation once, as it is recorded.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Observation } from './observation.ts';
import { redactKeys } from '../contract/keys.ts';

export type ObservationListener = (observation: Observation) => void;

export class ObservationRecorder {
  #nextId = 1;
  #count = 0;
  readonly #stream: WriteStream | null;
  readonly #listeners: ObservationListener[] = [];

  /** `file` null keeps nothing on disk (unit tests, dry runs). */
  constructor(readonly file: string | null) {
    this.#stream = file ? createWriteStream(file, { flags: 'w' }) : null;
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
    // Bodies are the target's words: a server echoing a key must not put it on disk.
    this.#stream?.write(`${redactKeys(JSON.stringify(observation))}\n`);
    for (const listener of this.#listeners) listener(observation);
  }

  async close(): Promise<void> {
    const stream = this.#stream;
    if (!stream) return;
    await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
}
