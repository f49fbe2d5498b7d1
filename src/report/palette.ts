/**
 * Colours from the Okabe–Ito palette (safe for the common colour-vision deficiencies). Colour is never
 * the only cue: verdicts carry a word and a symbol, series carry a marker shape and a legend.
 */
import type { Verdict } from '../catalogue/types.ts';
import type { StatusClass } from './observation-digest.ts';

export const OKABE_ITO = {
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
  black: '#000000',
} as const;

export const STATUS_COLOUR: Readonly<Record<StatusClass, string>> = {
  ok: OKABE_ITO.blue,
  redirect: OKABE_ITO.skyBlue,
  unauthorized: OKABE_ITO.reddishPurple,
  forbidden: '#8E4F7B',
  'rate-limited': OKABE_ITO.orange,
  'client-error': OKABE_ITO.yellow,
  'server-error': OKABE_ITO.vermillion,
  'no-response': '#4D4D4D',
};

export const VERDICT_SYMBOL: Readonly<Record<Verdict, string>> = {
  pass: '✓',
  fail: '✗',
  inconclusive: '?',
  skipped: '–',
};

export const VERDICT_LABEL: Readonly<Record<Verdict, string>> = {
  pass: 'pass',
  fail: 'fail',
  inconclusive: 'inconclusive',
  skipped: 'skipped',
};

/** Series colours in order (edges, percentiles). */
export const SERIES = [
  OKABE_ITO.blue,
  OKABE_ITO.vermillion,
  OKABE_ITO.bluishGreen,
  OKABE_ITO.reddishPurple,
  OKABE_ITO.orange,
  OKABE_ITO.skyBlue,
  OKABE_ITO.black,
] as const;

export const seriesColour = (i: number): string => SERIES[i % SERIES.length] ?? OKABE_ITO.black;

/** The threshold colour (SLA line, Limit line). */
export const THRESHOLD = '#B00020';

const ANSI = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33 } as const;
export type Style = keyof typeof ANSI;

/** Wraps text in an ANSI style, or leaves it plain. */
export type Paint = (style: Style, text: string) => string;
export const plain: Paint = (_style, text) => text;
export const ansi: Paint = (style, text) => `\u001b[${ANSI[style]}m${text}\u001b[0m`;
