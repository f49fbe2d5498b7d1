/**
 * An organization's own figures (§8: Enterprise / Custom sells "2,500 or more"; the real figure is in
 * each customer's contract): which are acceptable for its tier, and the figures it is then held to.
 * One rule for the config file, the reference target's admin API and the checks.
 */
import {
  LIMIT_FIELDS,
  type Contract,
  type Figure,
  type LimitField,
  type LimitFigures,
  type OrgLimits,
  type TierName,
} from './types.ts';

/**
 * A Limit a server announces is believed up to this multiple of the published figure: the server's
 * figure sets how many requests go out, and a bogus one must not turn a check into a flood.
 */
export const MAX_LIMIT_FACTOR = 20;

export interface LimitProblem {
  readonly field: LimitField;
  readonly message: string;
}

/**
 * Where the tier's figure is a minimum, an organization's own must reach it; where it is exact
 * (Starter, Professional), the only figure the organization can have is the published one.
 */
export function orgLimitProblems(contract: Contract, tier: TierName, limits: Partial<OrgLimits>): LimitProblem[] {
  const published = contract.tiers[tier];
  return LIMIT_FIELDS.flatMap((field): LimitProblem[] => {
    const value = limits[field];
    const figure = published[field];
    if (value === undefined) return [];
    if (!figure.atLeast && value !== figure.value) {
      return [
        {
          field,
          message: `${published.label} has a fixed ${field} figure of ${figure.value}: write ${figure.value}, or leave it out`,
        },
      ];
    }
    if (figure.atLeast && value < figure.value) {
      return [
        {
          field,
          message: `must be at least ${figure.value} for ${published.label} (the published minimum): write the contracted figure`,
        },
      ];
    }
    return [];
  });
}

/** The figures an organization is held to: its own where it has them (exact: the contract is the figure), else its tier's published ones. */
export function figuresOf(
  contract: Contract,
  org: { readonly tier: TierName; readonly limits?: Partial<OrgLimits> | undefined },
): LimitFigures {
  const published = contract.tiers[org.tier];
  const own = (field: LimitField): Figure => {
    const value = org.limits?.[field];
    return value === undefined ? published[field] : { value, atLeast: false, declared: true };
  };
  return { read: own('read'), ingest: own('ingest'), concurrency: own('concurrency') };
}

/** An exact figure as a verdict names it, after "the": "published 60", "10000 declared in the config". */
export function exactFigureText(figure: Figure): string {
  return figure.declared ? `${figure.value} declared in the config` : `published ${figure.value}`;
}
