/**
 * Errors with stable codes. Tests assert on `code`, never on message text.
 * A UsageError is the user's mistake: one line naming the input and the fix, exit code 2.
 */
export type ErrorCode =
  | 'TG_USAGE'
  | 'TG_CONFIG'
  | 'TG_ENV'
  | 'TG_SCENARIO'
  | 'TG_RESULTS_FILE'
  | 'TG_NOT_LOOPBACK'
  | 'TG_K6_MISSING'
  | 'TG_K6_VERSION'
  | 'TG_TARGET_START'
  | 'TG_UNREACHABLE';

export class TiergateError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'TiergateError';
    this.code = code;
  }
}

/** A mistake in a flag, config file or environment variable. Exit code 2. */
export class UsageError extends TiergateError {
  constructor(message: string, code: ErrorCode = 'TG_USAGE') {
    super(code, message);
    this.name = 'UsageError';
  }
}

/** Exit codes, distinct per outcome (k6 style). */
export const EXIT = {
  pass: 0,
  fail: 1,
  usage: 2,
  inconclusive: 3,
  interrupted: 130,
} as const;

/** The exit code of a finished run: its verdict's, or `interrupted` when Ctrl-C cut it short. */
export function exitCodeFor(verdict: 'pass' | 'fail' | 'inconclusive', interrupted = false): number {
  if (interrupted) return EXIT.interrupted;
  return { pass: EXIT.pass, fail: EXIT.fail, inconclusive: EXIT.inconclusive }[verdict];
}

/** What was thrown, as text for a note, a reply or a message: an Error's message, else the value itself. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What was thrown, with its stack when it has one: for reporting a bug in tiergate itself. */
export function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
