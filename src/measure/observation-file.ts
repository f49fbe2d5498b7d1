/**
 * The observations file: NDJSON, gzip-compressed as it streams when its name ends in `.gz` (the
 * run's `observations.ndjson.gz`). gzip from `node:zlib`: no dependency, every tool an auditor has
 * reads it (`zcat`, `gzip -dc | jq`), and observations, repetitive JSON, shrink about twentyfold.
 * Readers take either form, and a file cut short (a run killed mid-write) yields what it holds.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { PassThrough, type Writable } from 'node:stream';
import { constants, createGunzip, createGzip } from 'node:zlib';

/** The name a run writes its observations under. */
export const OBSERVATIONS_FILE = 'observations.ndjson.gz';

const compressed = (file: string) => file.endsWith('.gz');

/** A sink for observation lines; `end` resolves once every byte is on disk. */
export interface ObservationSink {
  write(text: string): void;
  end(): Promise<void>;
}

export function observationSink(file: string): ObservationSink {
  const out = createWriteStream(file, { flags: 'w' });
  // zlib's default level: a small file for little CPU beside the measurements.
  // Why this level: docs/decisions/observation-compression.md
  const head: Writable = compressed(file) ? createGzip({ level: constants.Z_DEFAULT_COMPRESSION }) : out;
  if (head !== out) head.pipe(out);
  const done = new Promise<void>((resolve, reject) => {
    out.once('close', resolve);
    out.once('error', reject);
    head.once('error', reject);
  });
  return {
    write: (text) => void head.write(text),
    end: () => {
      head.end();
      return done;
    },
  };
}

/**
 * The file's lines, in order. A compressed file cut short ends where its data does (the lines
 * before the cut are read; the cut one is the reader's to find malformed).
 */
export function observationLines(file: string): AsyncIterable<string> {
  const raw = createReadStream(file);
  if (!compressed(file)) return createInterface({ input: raw.setEncoding('utf8'), crlfDelay: Infinity });
  const text = new PassThrough();
  const gunzip = createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
  raw.once('error', (error) => text.destroy(error));
  gunzip.once('error', () => text.end());
  raw.pipe(gunzip).pipe(text);
  return createInterface({ input: text.setEncoding('utf8'), crlfDelay: Infinity });
}
