/**
 * A run folder's evidence read back: the judgements, and the observations they refer to. `tiergate
 * verify` judges them again; `tiergate k6 ingest --revocation` takes a run's revocation trials from them.
 */
import { access } from 'node:fs/promises';
import type { Observation } from '../measure/observation.ts';
import { observationLines } from '../measure/observation-file.ts';
import { JUDGEMENTS_FILE, type JudgementRecord } from './judgements.ts';
import type { ObservationSource, referenced } from '../verdicts/replay.ts';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** The observations the judgements refer to (by id, or a whole tier's), read in one pass; a sustained-load run's others are not kept. */
export async function readObservations(
  file: string,
  wanted: ReturnType<typeof referenced>,
): Promise<ObservationSource & { readonly malformed: number }> {
  const byId = new Map<number, Observation>();
  const inOrder: Observation[] = [];
  let malformed = 0;
  for await (const line of observationLines(file)) {
    if (line === '') continue;
    try {
      const o = JSON.parse(line) as Observation;
      if (wanted.ids.has(o.id)) byId.set(o.id, o);
      if (o.tier !== null && wanted.tiers.has(o.tier)) inOrder.push(o);
    } catch {
      malformed += 1;
    }
  }
  return { byId, inOrder, malformed };
}

/** The judgements file's records (null: no such file); a line that is not one is a problem, named by its number. */
export async function readJudgements(file: string, problems: string[]): Promise<JudgementRecord[] | null> {
  if (!(await exists(file))) return null;
  const records: JudgementRecord[] = [];
  let n = 0;
  for await (const line of observationLines(file)) {
    n += 1;
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = null;
    }
    if (isJudgement(parsed)) records.push(parsed);
    else problems.push(`${JUDGEMENTS_FILE}: line ${n} is not a judgement`);
  }
  return records;
}

function isJudgement(value: unknown): value is JudgementRecord {
  const r = value as Partial<JudgementRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.fn === 'string' &&
    (r.args === null || Array.isArray(r.args)) &&
    typeof r.found === 'object' &&
    r.found !== null &&
    'link' in r
  );
}
