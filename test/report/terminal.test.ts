import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/results/events.ts';
import { terminalReporter } from '../../src/report/terminal.ts';
import { terminalSummary } from '../../src/report/terminal-summary.ts';
import { plain } from '../../src/report/palette.ts';
import { because } from '../../src/catalogue/reasons/index.ts';
import { sampleResults } from '../helpers/sample-results.ts';
import { LEAKED_KEY, LEAKED_KEY_REDACTED } from './fixtures.ts';
import { memoryIo, type MemoryIo } from './memory-io.ts';

const results = sampleResults({ leakKey: LEAKED_KEY });
const byLabel = (id: string, tier: string, variant = '') =>
  results.checks.find((c) => c.id === id && c.tier === tier && c.variant === variant)!;

/** A short run: two tasks on starter-a, one result each, a warning, the end. */
function play(io: MemoryIo, listener: (event: RunEvent) => void) {
  listener({
    type: 'run-start',
    runId: results.runId,
    tiers: ['starter'],
    tasks: 2,
    windowSeconds: 60,
    target: 'http://127.0.0.1:41001',
  });
  listener({
    type: 'notice',
    message:
      'ingest-single [starter-c] (QUOTA-INGEST): 5 upload times one after another; fits a 1m window while an upload takes at most 10.8s',
  });
  listener({ type: 'task-start', task: { kind: 'access', tier: 'starter', orgs: ['starter-a'] } });
  io.advance(1200);
  listener({ type: 'check-result', result: byLabel('AUTH-MISSING', 'starter') });
  listener({
    type: 'task-waiting',
    task: { kind: 'read-sequential', tier: 'starter', orgs: ['starter-a'] },
    untilEpochS: Date.parse('2026-03-02T10:01:00Z') / 1000,
  });
  io.advance(3000);
  listener({ type: 'task-start', task: { kind: 'read-sequential', tier: 'starter', orgs: ['starter-a'] } });
  io.advance(800);
  listener({ type: 'check-result', result: byLabel('QUOTA-READ', 'starter', 'sequential') });
  listener({ type: 'warning', message: `task x stopped: key ${LEAKED_KEY} refused` });
  listener({ type: 'run-end', results, reportDir: '/work/project/reports/20260302-100000-5a1e' });
}

describe('terminalReporter in CI (no TTY or CI=true)', () => {
  it('prints one plain line per event, then the summary table, the gate and the report path', () => {
    const io = memoryIo({ tty: true, env: { CI: 'true' } });
    const reporter = terminalReporter(io);
    play(io, reporter.listener);
    reporter.finish();
    const out = io.out();
    expect(out).not.toMatch(/\u001b\[/); // no ANSI: plain lines for CI logs
    const lines = out.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      'tiergate run 20260302-100000-5a1e: 2 tasks on starter; quota window 60 s; target http://127.0.0.1:41001',
      '[   0.0 s] note: ingest-single [starter-c] (QUOTA-INGEST): 5 upload times one after another; fits a 1m window while an upload takes at most 10.8s',
      '[   0.0 s] running  access starter-a',
      '[   1.2 s] ✓ pass         AUTH-MISSING [starter]',
      '[   1.2 s] waiting  read-sequential starter-a: for the quota window at 10:01:00 UTC',
      '[   4.2 s] running  read-sequential starter-a',
      `[   5.0 s] ✗ fail         QUOTA-READ [starter] sequential: expected requests 1–60 admitted, 429 at request 61 (Limit 60); actual 429 1 request early (at request 60, Limit 60); the request used key ${LEAKED_KEY_REDACTED}`,
    ]);
    // The summary: check × tier, counts, what needs attention, the gate, the report.
    expect(out).toMatch(/^check\s+starter\s+professional\s+enterprise\s+all$/m);
    expect(out).toMatch(/^QUOTA-READ\s+✗ fail \+1\s+✓ pass\s+\? inconclusive\s+—$/m);
    expect(out).toMatch(/^AUTH-KEY-FORMAT\s+—\s+—\s+—\s+✓ pass$/m);
    expect(out).toContain(`${results.counts.pass} pass · 1 fail · 3 inconclusive · 2 skipped`);
    expect(out).toContain('Needs attention');
    expect(out).toContain('Gate: ✗ FAIL: the build must not ship');
    expect(out).toContain('Report: reports/20260302-100000-5a1e/index.html');
    expect(io.err()).toBe(`[   5.0 s] warning: task x stopped: key ${LEAKED_KEY_REDACTED} refused\n`);
    expect(out + io.err()).not.toContain(LEAKED_KEY);
  });

  it('is plain when stdout is not a TTY even without CI', () => {
    const io = memoryIo({ tty: false });
    const reporter = terminalReporter(io);
    play(io, reporter.listener);
    expect(io.out()).toContain('[   4.2 s] running  read-sequential starter-a');
    expect(io.out()).not.toMatch(/\u001b\[/);
  });
});

describe('terminalReporter on a TTY', () => {
  it('redraws a live block of tasks and verdict counts, keeps failures above it, ends with the summary', () => {
    const io = memoryIo({ tty: true });
    const reporter = terminalReporter(io);
    const { listener } = reporter;
    listener({
      type: 'run-start',
      runId: results.runId,
      tiers: ['starter'],
      tasks: 2,
      windowSeconds: 60,
      target: 'http://127.0.0.1:41001',
    });
    listener({ type: 'task-start', task: { kind: 'access', tier: 'starter', orgs: ['starter-a'] } });
    listener({
      type: 'task-waiting',
      task: { kind: 'read-sequential', tier: 'starter', orgs: ['starter-b'] },
      untilEpochS: null,
    });
    const frame = io.out();
    expect(frame).toContain('▶ running');
    expect(frame).toContain('access starter-a');
    expect(frame).toContain('◷ waiting');
    expect(frame).toMatch(/read-sequential starter-b\s+.*for a fresh quota window/);
    expect(frame).toContain('tasks 0 of 2 done');

    listener({ type: 'check-result', result: byLabel('AUTH-MISSING', 'starter') });
    expect(io.out().slice(frame.length)).toContain('tasks 1 of 2 done');
    listener({ type: 'check-result', result: byLabel('QUOTA-READ', 'starter', 'sequential') });
    listener({ type: 'run-end', results, reportDir: '/elsewhere/reports/run' });
    reporter.finish();
    reporter.finish();
    const out = io.out();
    expect(out).toMatch(/\u001b\[/); // log-update's erase sequences and colour
    const text = out.replace(/\u001b\[[0-9;]*m/g, '');
    expect(text).toContain('QUOTA-READ [starter] sequential: expected');
    expect(text).toContain('Report: /elsewhere/reports/run/index.html');
    expect(out).not.toContain(LEAKED_KEY);
  });

  it('shows how far a task that reports progress is, its estimate counting down between events', () => {
    const io = memoryIo({ tty: true });
    const reporter = terminalReporter(io);
    const { listener } = reporter;
    const revocation = { kind: 'revocation', tier: 'starter', orgs: ['starter-revocation'] } as const;
    const frameSince = (from: number) =>
      io
        .out()
        .slice(from)
        .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
    listener({
      type: 'run-start',
      runId: results.runId,
      tiers: ['starter'],
      tasks: 2,
      windowSeconds: 3,
      target: 'http://127.0.0.1:41001',
    });
    listener({ type: 'task-start', task: revocation });
    io.advance(2000);
    let from = io.out().length;
    listener({ type: 'task-progress', task: revocation, done: 6, total: 20, unit: 'trials', etaMs: 8000 });
    expect(frameSince(from)).toMatch(
      /▶ running\s+revocation starter-revocation\s+6 of 20 trials done, about 8 s left · 2 s/,
    );
    // Another task's event redraws the block: three seconds on, five are left.
    io.advance(3000);
    from = io.out().length;
    listener({ type: 'task-start', task: { kind: 'access', tier: 'starter', orgs: ['starter-a'] } });
    expect(frameSince(from)).toContain('6 of 20 trials done, about 5 s left · 5 s');
    io.advance(6000);
    from = io.out().length;
    listener({ type: 'task-progress', task: revocation, done: 19, total: 20, unit: 'trials', etaMs: 600 });
    expect(frameSince(from)).toContain('19 of 20 trials done, under 1 s left');
    reporter.finish();
  });

  it('prints no line for progress where the output is plain', () => {
    const io = memoryIo({ tty: false });
    const reporter = terminalReporter(io);
    const revocation = { kind: 'revocation', tier: 'starter', orgs: ['starter-revocation'] } as const;
    reporter.listener({ type: 'task-start', task: revocation });
    for (let done = 1; done <= 3; done++)
      reporter.listener({
        type: 'task-progress',
        task: revocation,
        done,
        total: 3,
        unit: 'trials',
        etaMs: 1000 * (3 - done),
      });
    reporter.finish();
    expect(io.out()).toBe('[   0.0 s] running  revocation starter-revocation\n');
  });

  it('leaves the last frame in place when the run stops without run-end', () => {
    const io = memoryIo({ tty: true });
    const reporter = terminalReporter(io);
    reporter.listener({ type: 'task-start', task: { kind: 'access', tier: 'starter', orgs: ['starter-a'] } });
    const before = io.out().length;
    reporter.finish();
    reporter.listener({ type: 'task-start', task: { kind: 'load', tier: 'starter', orgs: ['ignored-after-finish'] } });
    expect(io.out()).not.toContain('ignored-after-finish');
    expect(io.out().length).toBeGreaterThanOrEqual(before);
  });
});

describe('terminalSummary', () => {
  it('names the command that explains each open result', () => {
    const stuck = results.checks.findIndex((r) => r.verdict === 'inconclusive');
    const checks = results.checks.map((r, i) =>
      i === stuck ? { ...r, reasons: [because('no-room-to-measure', { room: 3, needed: 7 })] } : r,
    );
    const out = terminalSummary({ ...results, checks }, '/r', { paint: plain, cwd: '/' });
    expect(out.split('\n').filter((l) => l.trim().startsWith('next'))).toEqual([
      '      next     tiergate explain no-room-to-measure',
    ]);
  });

  it('prints how the server limits before the verdict table, one block per profile', () => {
    const out = terminalSummary(results, '/work/project/reports/run', { paint: plain, cwd: '/work/project' });
    const lines = out.split('\n');
    const title = lines.indexOf('How this server limits (starter, learned on starter-a in 4.2 s, 23 requests)');
    expect(title).toBeGreaterThan(0);
    expect(lines.slice(title + 1, title + 8)).toEqual([
      '  rate-limit headers  present',
      '  read                Limit 60   Reset epoch-seconds   windows fixed, start at the first counted request',
      '  ingest              Limit 10   Reset epoch-seconds   windows fixed, aligned to the clock',
      '  counts              HEAD yes · 404 no · 403 no · 401 no · 429 unknown',
      '  read endpoints      one shared counter',
      '  read vs ingest      independent counters and windows',
      '  beyond the cap      refused with 429',
    ]);
    expect(lines[title + 8]).toBe('');
    expect(lines.findIndex((l) => /^check\s+starter/.test(l))).toBe(title + 9);
  });

  it('prints no profile block when the run learned none', () => {
    const out = terminalSummary({ ...results, profiles: [] }, '/work/project/reports/run', {
      paint: plain,
      cwd: '/work/project',
    });
    expect(out).not.toContain('How this server limits');
    expect(out.split('\n').slice(0, 4)).toEqual([
      '',
      `tiergate ${results.runId}: ${results.checks.length} results across starter, professional, enterprise`,
      '',
      expect.stringMatching(/^check\s+starter/),
    ]);
  });
});
