import { describe, expect, it } from 'vitest';
import { exactFigureText, figuresOf, orgLimitProblems } from '../../src/contract/org-limits.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';

describe('orgLimitProblems', () => {
  it('accepts Enterprise figures at or above the published minimums', () => {
    expect(orgLimitProblems(recruitingApi, 'enterprise', { read: 2500, ingest: 2000, concurrency: 250 })).toEqual([]);
  });

  it('refuses an Enterprise figure below its minimum, naming the field and the minimum', () => {
    expect(orgLimitProblems(recruitingApi, 'enterprise', { read: 2499, concurrency: 99 })).toEqual([
      {
        field: 'read',
        message: 'must be at least 2500 for Enterprise / Custom (the published minimum): write the contracted figure',
      },
      {
        field: 'concurrency',
        message: 'must be at least 100 for Enterprise / Custom (the published minimum): write the contracted figure',
      },
    ]);
  });

  it('accepts only the published figure on Starter and Professional', () => {
    expect(orgLimitProblems(recruitingApi, 'starter', { read: 60, ingest: 10, concurrency: 5 })).toEqual([]);
    expect(orgLimitProblems(recruitingApi, 'professional', { ingest: 61 })).toEqual([
      { field: 'ingest', message: 'Professional has a fixed ingest figure of 60: write 60, or leave it out' },
    ]);
  });
});

describe('figuresOf', () => {
  it("takes the organization's own figures, exact, and its tier's published ones for the rest", () => {
    const figures = figuresOf(recruitingApi, { tier: 'enterprise', limits: { read: 10_000 } });
    expect(figures.read).toEqual({ value: 10_000, atLeast: false, declared: true });
    expect(figures.ingest).toBe(recruitingApi.tiers.enterprise.ingest);
    expect(figures.concurrency).toBe(recruitingApi.tiers.enterprise.concurrency);
  });

  it("is the tier's published figures without limits of its own", () => {
    expect(figuresOf(recruitingApi, { tier: 'starter' }).read).toBe(recruitingApi.tiers.starter.read);
  });

  it('names an exact figure by where it comes from', () => {
    expect(exactFigureText(recruitingApi.tiers.starter.read)).toBe('published 60');
    expect(exactFigureText(figuresOf(recruitingApi, { tier: 'enterprise', limits: { read: 10_000 } }).read)).toBe(
      '10000 declared in the config',
    );
  });
});
