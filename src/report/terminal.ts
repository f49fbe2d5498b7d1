/**
 * The terminal reporter: a RunListener. On a TTY (and not CI=true) a live block redrawn with
 * log-update: each task waiting for its quota window, running (with how far it is, for a task that
 * reports progress), or done, and the verdicts so far; failures and warnings are printed above it as
 * they come. Elsewhere (CI, pipes) plain lines, one per event but progress. On 'run-end', the
 * summary table (terminal-summary.ts). Every line passes through redactKeys.
 *
 * Runs report no "task ended" event: a task counts as done when a result for one of its organizations
 * arrives (a task's results come together, when it ends) or when the next task on one of its
 * organizations begins (tasks on one organization run one after another).
 */
import { createLogUpdate } from 'log-update';
import { VERDICTS, type Verdict } from '../catalogue/types.ts';
import type { Io } from '../util/io.ts';
import { taskName, type RunEvent, type RunListener, type TaskIdentity } from '../results/events.ts';
import { VERDICT_LABEL, VERDICT_SYMBOL } from './palette.ts';
import { redactKeys } from '../contract/keys.ts';
import { resultLabel, terminalSummary, VERDICT_STYLE, verdictWord } from './terminal-summary.ts';
import { ansi, plain, type Paint } from './palette.ts';

export interface TerminalReporter {
  readonly listener: RunListener;
  /** Stops the live display (idempotent); call it when the run ends or fails. */
  finish(): void;
}

export interface TerminalReporterOptions {
  /** Force the live display on or off; default: io.stdout is a TTY and CI is not 'true'. */
  readonly live?: boolean;
}

type TaskStatus = 'waiting' | 'running' | 'done';

interface TaskLine {
  readonly name: string;
  readonly orgs: readonly string[];
  status: TaskStatus;
  /** Monotonic ms when the status last changed. */
  since: number;
  untilEpochS: number | null;
  /** The task's last progress event, and when it came (monotonic ms); null until one does. */
  progress: {
    readonly done: number;
    readonly total: number;
    readonly unit: string;
    readonly etaMs: number | null;
    readonly at: number;
  } | null;
}

/** Live rows shown at most; the rest are summed up in one line. */
const LIVE_ROWS = 14;
const RECENT_DONE = 3;
const REFRESH_MS = 1000;

/** `access starter-a` → ['starter-a']; `isolation starter-a/starter-b` (or `+`) → both. */

const seconds = (ms: number): string => `${Math.max(0, Math.round(ms / 1000))} s`;
const clockTime = (epochS: number): string => `${new Date(epochS * 1000).toISOString().slice(11, 19)} UTC`;

/** '7 of 20 trials done, about 8 s left': the estimate counts down between events. */
function progressText(p: NonNullable<TaskLine['progress']>, now: number): string {
  const done = `${p.done} of ${p.total} ${p.unit} done`;
  if (p.etaMs === null || p.done >= p.total) return done;
  const left = p.etaMs - (now - p.at);
  return `${done}, ${left < 1000 ? 'under 1 s left' : `about ${seconds(left)} left`}`;
}

export function terminalReporter(io: Io, options: TerminalReporterOptions = {}): TerminalReporter {
  const live = options.live ?? (io.stdout.isTTY === true && io.env.CI !== 'true');
  const paint: Paint = live && !io.env.NO_COLOR ? ansi : plain;
  const frame = live ? createLogUpdate(io.stdout, { showCursor: true }) : null;
  const tasks = new Map<string, TaskLine>();
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, inconclusive: 0, skipped: 0 };
  let start: Extract<RunEvent, { type: 'run-start' }> | null = null;
  const epoch = io.clock.monotonic();
  let timer: ReturnType<typeof setInterval> | null = null;
  let finished = false;

  const elapsed = () => io.clock.monotonic() - epoch;
  const stamp = () => `[${(elapsed() / 1000).toFixed(1).padStart(6)} s]`;
  const out = (text: string) => io.stdout.write(`${redactKeys(text)}\n`);

  const setStatus = (task: TaskLine, status: TaskStatus) => {
    if (task.status === status) return;
    task.status = status;
    task.since = io.clock.monotonic();
  };
  const settleOrgs = (orgs: readonly string[], except: string | null) => {
    for (const task of tasks.values()) {
      if (task.name !== except && task.status !== 'done' && task.orgs.some((o) => orgs.includes(o)))
        setStatus(task, 'done');
    }
  };
  const taskLine = (identity: TaskIdentity): TaskLine => {
    const name = taskName(identity);
    let task = tasks.get(name);
    if (!task)
      tasks.set(
        name,
        (task = {
          name,
          orgs: identity.orgs,
          status: 'waiting',
          since: io.clock.monotonic(),
          untilEpochS: null,
          progress: null,
        }),
      );
    return task;
  };

  const verdictCounts = () =>
    VERDICTS.map((v) => paint(VERDICT_STYLE[v], `${VERDICT_SYMBOL[v]} ${counts[v]} ${VERDICT_LABEL[v]}`)).join('  ');

  const render = () => {
    if (!frame || finished) return;
    const now = io.clock.monotonic();
    const all = [...tasks.values()];
    const done = all.filter((t) => t.status === 'done');
    const active = all
      .filter((t) => t.status !== 'done')
      .sort((a, b) => (a.status === b.status ? a.since - b.since : a.status === 'running' ? -1 : 1));
    const width = Math.max(...all.map((t) => t.name.length), 10);
    const row = (t: TaskLine) => {
      const age = seconds(now - t.since);
      if (t.status === 'running')
        return `  ${paint('bold', '▶ running')}  ${t.name.padEnd(width)}  ${paint('dim', t.progress ? `${progressText(t.progress, now)} · ${age}` : age)}`;
      if (t.status === 'waiting') {
        const until =
          t.untilEpochS === null ? 'for a fresh quota window' : `for the quota window at ${clockTime(t.untilEpochS)}`;
        return `  ${paint('yellow', '◷ waiting')}  ${t.name.padEnd(width)}  ${paint('dim', `${until} · ${age}`)}`;
      }
      return `  ${paint('green', '✓ done   ')}  ${paint('dim', t.name)}`;
    };
    const shown = active.slice(0, LIVE_ROWS);
    const lines = [
      paint(
        'bold',
        start ? `tiergate ${start.runId} · window ${start.windowSeconds} s · ${start.target}` : 'tiergate: starting',
      ),
      `tasks ${done.length}${start ? ` of ${start.tasks}` : ''} done · ${verdictCounts()} · ${seconds(elapsed())}`,
      ...shown.map(row),
      ...(active.length > shown.length ? [paint('dim', `  … and ${active.length - shown.length} more`)] : []),
      ...done.slice(-Math.max(0, Math.min(RECENT_DONE, LIVE_ROWS - shown.length))).map(row),
    ];
    frame(redactKeys(lines.join('\n')));
  };

  /** A line that stays: above the live block on a TTY, in sequence otherwise. */
  const persist = (text: string, stream: 'stdout' | 'stderr' = 'stdout') => {
    if (frame) frame.clear();
    if (stream === 'stderr') io.stderr.write(`${redactKeys(text)}\n`);
    else out(text);
    render();
  };

  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };

  const listener: RunListener = (event) => {
    if (finished) return;
    if (frame && !timer) {
      timer = setInterval(render, REFRESH_MS);
      timer.unref?.();
    }
    switch (event.type) {
      case 'run-start': {
        start = event;
        if (!frame)
          out(
            `tiergate run ${event.runId}: ${event.tasks} tasks on ${event.tiers.join(', ')}; quota window ${event.windowSeconds} s; target ${event.target}`,
          );
        break;
      }
      case 'task-waiting': {
        const task = taskLine(event.task);
        settleOrgs(task.orgs, task.name);
        setStatus(task, 'waiting');
        task.untilEpochS = event.untilEpochS;
        if (!frame)
          out(
            `${stamp()} waiting  ${task.name}: ${event.untilEpochS === null ? 'for a fresh quota window' : `for the quota window at ${clockTime(event.untilEpochS)}`}`,
          );
        break;
      }
      case 'task-start': {
        const task = taskLine(event.task);
        settleOrgs(task.orgs, task.name);
        setStatus(task, 'running');
        if (!frame) out(`${stamp()} running  ${task.name}`);
        break;
      }
      case 'task-progress': {
        // Live only: a CI log gets no line per trial.
        const task = taskLine(event.task);
        task.progress = {
          done: event.done,
          total: event.total,
          unit: event.unit,
          etaMs: event.etaMs,
          at: io.clock.monotonic(),
        };
        break;
      }
      case 'check-result': {
        const r = event.result;
        counts[r.verdict] += 1;
        if (r.org) settleOrgs([r.org], null);
        const detail =
          r.verdict === 'pass'
            ? ''
            : r.verdict === 'skipped'
              ? `: ${r.notes[0] ?? 'not run'}`
              : `: expected ${r.expected}; actual ${r.actual}`;
        const line = `${verdictWord(r.verdict, paint, 14)} ${resultLabel(r)}${detail}`;
        if (!frame) out(`${stamp()} ${line}`);
        else if (r.verdict === 'fail' || r.verdict === 'inconclusive') persist(line);
        break;
      }
      case 'warning':
        persist(`${frame ? '' : `${stamp()} `}${paint('yellow', 'warning:')} ${event.message}`, 'stderr');
        break;
      case 'notice':
        persist(`${frame ? '' : `${stamp()} `}note: ${event.message}`);
        break;
      case 'run-end': {
        for (const task of tasks.values()) setStatus(task, 'done');
        stopTimer();
        if (frame) frame.clear();
        io.stdout.write(terminalSummary(event.results, event.reportDir, { paint, cwd: io.cwd }));
        finished = true;
        break;
      }
    }
    if (event.type !== 'run-end') render();
  };

  return {
    listener,
    finish() {
      stopTimer();
      if (frame && !finished) {
        render();
        frame.done();
      }
      finished = true;
    },
  };
}
