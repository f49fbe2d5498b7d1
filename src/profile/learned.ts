/** The small shared pieces of profile inference: an answer with its evidence, or left open with the reason. */
import { CLOCK_SLACK_MS, type EndPlacing } from '../measure/reset-format.ts';
import type { DiscoveryRecord } from './record.ts';
import type { Learned } from './types.ts';

export const undecided = <T>(how: string, evidence: readonly number[] = []): Learned<T> => ({
  value: null,
  how,
  evidence,
});

export const learned = <T>(value: T, how: string, evidence: readonly (number | undefined)[]): Learned<T> => ({
  value,
  how,
  evidence: evidence.filter((id): id is number => id !== undefined),
});

/** Responses compared for a Reset that moves are placed against announced ends by the run's clock estimate. */
export const placingOf = (record: DiscoveryRecord, clockOffsetMs: number): EndPlacing => ({
  windowMs: record.windowMs,
  clockOffsetMs,
  slackMs: CLOCK_SLACK_MS,
});
