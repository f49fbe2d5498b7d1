/**
 * A confidence target for the revocation SLA: "99 % of revocations take effect on every edge within
 * the SLA, at 95 % confidence", written `99%@95%` (the level defaults to 95 %: `99%`), in a config
 * file (`revocation.confidence`) and the `--revocation-confidence` flag; a scenario, written in
 * TypeScript, gives the object itself (`{ share: 0.99, level: 0.95 }`).
 */

export interface ConfidenceTarget {
  /** The share of revocations to prove within the SLA, in (0, 1). */
  readonly share: number;
  /** The one-sided confidence level the proof is at, in (0, 1). */
  readonly level: number;
}

export const DEFAULT_TARGET_LEVEL = 0.95;

const FORM = /^\s*(\d{1,2}(?:\.\d{1,4})?)\s*%\s*(?:@\s*(\d{1,2}(?:\.\d{1,4})?)\s*%)?\s*$/;

/** The target the text states, or why it states none (for a one-line error naming the input). */
export function parseConfidenceTarget(
  text: string,
): { ok: true; target: ConfidenceTarget } | { ok: false; problem: string } {
  const match = FORM.exec(text);
  if (!match)
    return {
      ok: false,
      problem: `"${text}" is not a target: write the share within the SLA and the confidence, e.g. "99%@95%" (or "99%", at 95 %)`,
    };
  // Percent to a share, rounded past what the text can say (99.9 / 100 is 0.9990000000000001).
  const fraction = (digits: string) => Number((Number(digits) / 100).toFixed(6));
  const share = fraction(match[1]!);
  const level = match[2] === undefined ? DEFAULT_TARGET_LEVEL : fraction(match[2]);
  if (share <= 0 || level <= 0) return { ok: false, problem: `"${text}": the share and the confidence are above 0 %` };
  return { ok: true, target: { share, level } };
}

const percent = (v: number) => `${Number((v * 100).toFixed(4))} %`;

/** "99 % of revocations within 3 s, at 95 % confidence" */
export const targetText = (t: ConfidenceTarget, slaText: string): string =>
  `${percent(t.share)} of revocations within ${slaText}, at ${percent(t.level)} confidence`;
