/** `tiergate run --dry-run`: the plan as text, before any socket opens. */
import { formatDurationMs } from '../util/duration.ts';
import { DISCOVERY_WINDOWS, type Plan, type PlannedTask } from './plan.ts';
import { TASKS } from '../tasks/registry.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { plannedUploads } from './upload-plan.ts';
import { plannedReads } from './read-plan.ts';
import { REMEASURE_WINDOWS_PER_LANE, remeasureText } from '../suite/remeasure.ts';
import type { OrgLimits } from '../contract/types.ts';
import type { WritePolicy } from '../contract/writes.ts';
import { plannedWrites } from './footprint-plan.ts';
import type { BulkPolicy, RevocationShape } from '../scenario/define.ts';
import { targetText } from '../config/confidence-target.ts';
import { trialsToProve } from '../verdicts/support/confidence.ts';
import { reasonText } from '../catalogue/reasons/index.ts';

/** The task's line, and under it what it sends (from its declaration). */
const taskLine = (t: PlannedTask, indent = '') =>
  `${t.kind} [${t.orgs.join(', ')}]${t.consumes === 'none' ? '' : ` (${t.consumes === 'ingest' ? 'an' : 'a'} ${t.consumes} window)`}: ${t.checks.join(', ')}\n${indent}  ${TASKS[t.kind].describe}`;

export interface PlanContext {
  /** How long the target takes to answer an upload, where known before the run (the embedded target's parse time). */
  readonly uploadMs: number | null;
  readonly limitsOf?: (org: string) => Partial<OrgLimits> | undefined;
  readonly writes: WritePolicy;
  /** Bulk uploads counted per request (the config declares bulk-counts-per-resume false). */
  readonly bulkCountsPerRequest: boolean;
  /** The revocation task's shape as it will run (trials raised to a confidence target's). */
  readonly revocation: Required<RevocationShape> | null;
  /** How each task's read series is shaped (its tier's scenario's quota.bulk). */
  readonly bulkOf: (task: PlannedTask) => BulkPolicy;
  /** The rate-limit header dialect the run will judge, in a line (report/header-dialect.ts). */
  readonly headers: string;
}

/** The trials, and what a confidence target takes. */
function revocationShapeLine(shape: Required<RevocationShape>): string {
  const sla = formatDurationMs(recruitingApi.revocationSlaMs);
  const trials = `  ${shape.trials} trials, at most ${shape.parallel} at once`;
  if (!shape.confidence) return trials;
  return `${trials}; target ${targetText(shape.confidence, sla)}: proving it takes ${trialsToProve(shape.confidence)} trials, none slower (REVOKE-LATENCY passes only once proven)`;
}

export function describePlan(
  plan: Plan,
  windowMs: number,
  { uploadMs, limitsOf, writes, revocation, bulkCountsPerRequest, bulkOf, headers }: PlanContext,
): string {
  const lines: string[] = [`headers: ${headers}`];
  for (const tier of plan.tiers) {
    lines.push(`${tier.tier}: organizations ${tier.orgs.join(', ')}`);
    // The limiter profile (profile/discover.ts): beside the lanes on an organization of its own, or first on a lane.
    const learn = 'learn how the server limits (two to four windows)';
    const brief = `learn how the server limits, kept brief: the window it uses up (${DISCOVERY_WINDOWS}; how windows start stays open where the server shows rate-limit headers)`;
    if (tier.profile?.runs === 'beside') lines.push(`  beside the lanes: ${learn}, on ${tier.profile.org}`);
    if (tier.profile?.runs === 'first-on-lane') lines.push(`  first on lane ${tier.profile.org}: ${brief}`);
    if (tier.profile?.runs === 'before-tier') lines.push(`  before all: ${brief}, on ${tier.profile.org}`);
    for (const joint of tier.joint) lines.push(`  first, together: ${taskLine(joint, '  ')}`);
    for (const org of tier.orgs) {
      const lane = tier.lanes[org] ?? [];
      lines.push(`  lane ${org}:${lane.length === 0 ? ' (no task of its own)' : ''}`);
      for (const task of lane) lines.push(`    ${taskLine(task, '    ')}`);
    }
    if (tier.collected.length > 0) lines.push(`  over every response: ${tier.collected.join(', ')}`);
  }
  if (plan.revocation)
    lines.push(`revocation: ${taskLine(plan.revocation)}`, ...(revocation ? [revocationShapeLine(revocation)] : []));
  for (const load of plan.load) lines.push(`load: ${taskLine(load)}`);
  for (const refused of plan.refused)
    lines.push(
      `refused: ${refused.kind} (${refused.tier}): ${refused.checks.join(', ')} skipped: ${reasonText(refused.reason)}`,
    );
  lines.push(
    `checks: ${plan.checks.length}; quota windows needed: ${plan.windowsNeeded} (window ${formatDurationMs(windowMs)})`,
    remeasureText({ windowsPerLane: REMEASURE_WINDOWS_PER_LANE }),
  );
  const reads = plannedReads(plan, {
    contract: recruitingApi,
    windowMs,
    roundTripMs: null,
    bulkOf,
    ...(limitsOf ? { limitsOf } : {}),
  });
  if (reads.length > 0)
    lines.push(
      'reads (the round trip is measured when the run starts; a read series goes one at a time where it fits a quarter of the window, else its bulk together and a tail one at a time):',
      ...reads.map((r) => `  ${r.line}`),
    );
  const uploads = plannedUploads(plan, recruitingApi, windowMs, uploadMs, limitsOf);
  if (uploads.length > 0)
    lines.push(
      `uploads (${uploadMs === null ? 'the upload time is measured when the run starts' : `${formatDurationMs(uploadMs)} an upload`}):`,
      ...uploads.map((u) => `  ${u.line}`),
    );
  const revocationTrials = revocation ? { trials: revocation.trials, parallel: revocation.parallel } : undefined;
  lines.push(
    ...plannedWrites(plan, writes, {
      contract: recruitingApi,
      ...(limitsOf ? { limitsOf } : {}),
      bulkCountsPerRequest,
      ...(revocationTrials ? { revocationTrials } : {}),
    }),
  );
  return `${lines.join('\n')}\n`;
}
