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
import { whyLines } from '../catalogue/reasons/index.ts';

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

/** One task's row in the live block: running (with its progress), waiting (for which window), or done. */
function taskRow(t: TaskLine, now: number, width: number, paint: Paint): string {
  const age = seconds(now - t.since);
  if (t.status === 'running')
    return `  ${paint('bold', '▶ running')}  ${t.name.padEnd(width)}  ${paint('dim', t.progress ? `${progressText(t.progress, now)} · ${age}` : age)}`;
  if (t.status === 'waiting') {
    const until =
      t.untilEpochS === null ? 'for a fresh quota window' : `for the quota window at ${clockTime(t.untilEpochS)}`;
    return `  ${paint('yellow', '◷ waiting')}  ${t.name.padEnd(width)}  ${paint('dim', `${until} · ${age}`)}`;
  }
  return `  ${paint('green', '✓ done   ')}  ${paint('dim', t.name)}`;
}

/** The plain line a check result gets: its verdict, its label, and what was expected when it did not pass. */
function checkLine(r: Extract<RunEvent, { type: 'check-result' }>['result'], paint: Paint): string {
  const detail =
    r.verdict === 'pass'
      ? ''
      : r.verdict === 'skipped'
        ? `: ${whyLines(r)[0] ?? 'not run'}`
        : `: expected ${r.expected}; actual ${r.actual}`;
  return `${verdictWord(r.verdict, paint, 14)} ${resultLabel(r)}${detail}`;
}

/** The reporter's state (tasks, verdict counts, the live block and its timer) and how each event changes it. */
class TerminalDisplay {
  readonly #io: Io;
  readonly #paint: Paint;
  readonly #frame: ReturnType<typeof createLogUpdate> | null;
  readonly #tasks = new Map<string, TaskLine>();
  readonly #counts: Record<Verdict, number> = { pass: 0, fail: 0, inconclusive: 0, skipped: 0 };
  #start: Extract<RunEvent, { type: 'run-start' }> | null = null;
  readonly #epoch: number;
  #timer: ReturnType<typeof setInterval> | null = null;
  #finished = false;

  constructor(io: Io, options: TerminalReporterOptions) {
    this.#io = io;
    const live = options.live ?? (io.stdout.isTTY === true && io.env.CI !== 'true');
    this.#paint = live && !io.env.NO_COLOR ? ansi : plain;
    this.#frame = live ? createLogUpdate(io.stdout, { showCursor: true }) : null;
    this.#epoch = io.clock.monotonic();
  }

  /** Monotonic ms since the reporter was made. */
  #elapsed(): number {
    return this.#io.clock.monotonic() - this.#epoch;
  }

  /** The elapsed-time prefix of a plain line. */
  #stamp(): string {
    return `[${(this.#elapsed() / 1000).toFixed(1).padStart(6)} s]`;
  }

  /** One line to stdout, keys redacted. */
  #out(text: string): void {
    this.#io.stdout.write(`${redactKeys(text)}\n`);
  }

  /** Changes a task's status, and when it changed, if it is a new one. */
  #setStatus(task: TaskLine, status: TaskStatus): void {
    if (task.status === status) return;
    task.status = status;
    task.since = this.#io.clock.monotonic();
  }

  /** Marks done every other task on one of these organizations. */
  #settleOrgs(orgs: readonly string[], except: string | null): void {
    for (const task of this.#tasks.values()) {
      if (task.name !== except && task.status !== 'done' && task.orgs.some((o) => orgs.includes(o)))
        this.#setStatus(task, 'done');
    }
  }

  /** The task's line, made (waiting) on first sight. */
  #taskLine(identity: TaskIdentity): TaskLine {
    const name = taskName(identity);
    let task = this.#tasks.get(name);
    if (!task)
      this.#tasks.set(
        name,
        (task = {
          name,
          orgs: identity.orgs,
          status: 'waiting',
          since: this.#io.clock.monotonic(),
          untilEpochS: null,
          progress: null,
        }),
      );
    return task;
  }

  /** The verdicts so far, one coloured count per verdict. */
  #verdictCounts(): string {
    const paint = this.#paint;
    return VERDICTS.map((v) =>
      paint(VERDICT_STYLE[v], `${VERDICT_SYMBOL[v]} ${this.#counts[v]} ${VERDICT_LABEL[v]}`),
    ).join('  ');
  }

  /** Redraws the live block (on a TTY, until the run ends). */
  readonly #render = (): void => {
    const frame = this.#frame;
    if (!frame || this.#finished) return;
    const paint = this.#paint;
    const start = this.#start;
    const now = this.#io.clock.monotonic();
    const all = [...this.#tasks.values()];
    const done = all.filter((t) => t.status === 'done');
    const active = all
      .filter((t) => t.status !== 'done')
      .sort((a, b) => (a.status === b.status ? a.since - b.since : a.status === 'running' ? -1 : 1));
    const width = Math.max(...all.map((t) => t.name.length), 10);
    const row = (t: TaskLine) => taskRow(t, now, width, paint);
    const shown = active.slice(0, LIVE_ROWS);
    const lines = [
      paint(
        'bold',
        start ? `tiergate ${start.runId} · window ${start.windowSeconds} s · ${start.target}` : 'tiergate: starting',
      ),
      `tasks ${done.length}${start ? ` of ${start.tasks}` : ''} done · ${this.#verdictCounts()} · ${seconds(this.#elapsed())}`,
      ...shown.map(row),
      ...(active.length > shown.length ? [paint('dim', `  … and ${active.length - shown.length} more`)] : []),
      ...done.slice(-Math.max(0, Math.min(RECENT_DONE, LIVE_ROWS - shown.length))).map(row),
    ];
    frame(redactKeys(lines.join('\n')));
  };

  /** A line that stays: above the live block on a TTY, in sequence otherwise. */
  #persist(text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    if (this.#frame) this.#frame.clear();
    if (stream === 'stderr') this.#io.stderr.write(`${redactKeys(text)}\n`);
    else this.#out(text);
    this.#render();
  }

  /** Stops the live block's refresh. */
  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** The run listener: updates the state for one event and redraws. */
  readonly listener: RunListener = (event) => {
    if (this.#finished) return;
    if (this.#frame && !this.#timer) {
      this.#timer = setInterval(this.#render, REFRESH_MS);
      this.#timer.unref?.();
    }
    switch (event.type) {
      case 'run-start': {
        this.#start = event;
        if (!this.#frame)
          this.#out(
            `tiergate run ${event.runId}: ${event.tasks} tasks on ${event.tiers.join(', ')}; quota window ${event.windowSeconds} s; target ${event.target}`,
          );
        break;
      }
      case 'task-waiting':
        this.#onTaskWaiting(event);
        break;
      case 'task-start': {
        const task = this.#taskLine(event.task);
        this.#settleOrgs(task.orgs, task.name);
        this.#setStatus(task, 'running');
        if (!this.#frame) this.#out(`${this.#stamp()} running  ${task.name}`);
        break;
      }
      case 'task-progress':
        this.#onTaskProgress(event);
        break;
      case 'check-result':
        this.#onCheckResult(event);
        break;
      case 'warning':
        this.#persist(
          `${this.#frame ? '' : `${this.#stamp()} `}${this.#paint('yellow', 'warning:')} ${event.message}`,
          'stderr',
        );
        break;
      case 'notice':
        this.#persist(`${this.#frame ? '' : `${this.#stamp()} `}note: ${event.message}`);
        break;
      case 'run-end':
        this.#onRunEnd(event);
        break;
    }
    if (event.type !== 'run-end') this.#render();
  };

  /** A task waits for a quota window: it is the one running on its organizations now. */
  #onTaskWaiting(event: Extract<RunEvent, { type: 'task-waiting' }>): void {
    const task = this.#taskLine(event.task);
    this.#settleOrgs(task.orgs, task.name);
    this.#setStatus(task, 'waiting');
    task.untilEpochS = event.untilEpochS;
    if (!this.#frame)
      this.#out(
        `${this.#stamp()} waiting  ${task.name}: ${event.untilEpochS === null ? 'for a fresh quota window' : `for the quota window at ${clockTime(event.untilEpochS)}`}`,
      );
  }

  /** A task's progress, kept for its live row. */
  #onTaskProgress(event: Extract<RunEvent, { type: 'task-progress' }>): void {
    // Live only: a CI log gets no line per trial.
    const task = this.#taskLine(event.task);
    task.progress = {
      done: event.done,
      total: event.total,
      unit: event.unit,
      etaMs: event.etaMs,
      at: this.#io.clock.monotonic(),
    };
  }

  /** A check's result: counted; a line for it (on a TTY, only for a failure or an inconclusive one). */
  #onCheckResult(event: Extract<RunEvent, { type: 'check-result' }>): void {
    const r = event.result;
    this.#counts[r.verdict] += 1;
    if (r.org) this.#settleOrgs([r.org], null);
    const line = checkLine(r, this.#paint);
    if (!this.#frame) this.#out(`${this.#stamp()} ${line}`);
    else if (r.verdict === 'fail' || r.verdict === 'inconclusive') this.#persist(line);
  }

  /** The run ended: every task is done, the live block goes, the summary table is written. */
  #onRunEnd(event: Extract<RunEvent, { type: 'run-end' }>): void {
    for (const task of this.#tasks.values()) this.#setStatus(task, 'done');
    this.#stopTimer();
    if (this.#frame) this.#frame.clear();
    this.#io.stdout.write(terminalSummary(event.results, event.reportDir, { paint: this.#paint, cwd: this.#io.cwd }));
    this.#finished = true;
  }

  /** Stops the live display (idempotent). */
  finish(): void {
    this.#stopTimer();
    if (this.#frame && !this.#finished) {
      this.#render();
      this.#frame.done();
    }
    this.#finished = true;
  }
}

export function terminalReporter(io: Io, options: TerminalReporterOptions = {}): TerminalReporter {
  const display = new TerminalDisplay(io, options);
  return {
    listener: display.listener,
    finish() {
      display.finish();
    },
  };
}
