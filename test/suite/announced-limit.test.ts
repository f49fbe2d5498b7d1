/** How many requests a quota check sends, from the published figure and the Limit the server announces. */
import { describe, expect, it } from 'vitest';
import type { Figure } from '../../src/contract/types.ts';
import { limitFromAnnounced, uploadsFromAnnounced } from '../../src/suite/announced-limit.ts';

const STARTER: Figure = { value: 10, atLeast: false };
const ENTERPRISE: Figure = { value: 500, atLeast: true };
const DECLARED: Figure = { value: 600, atLeast: false, declared: true };

describe('limitFromAnnounced (reads)', () => {
  it("tests the larger of the published and the announced figure; Enterprise's announced one, within bounds", () => {
    expect(limitFromAnnounced(STARTER, 60)).toBe(60);
    expect(limitFromAnnounced(STARTER, 5)).toBe(10);
    expect(limitFromAnnounced(ENTERPRISE, 800)).toBe(800);
    expect(limitFromAnnounced(ENTERPRISE, 400)).toBe(500);
    expect(limitFromAnnounced(ENTERPRISE, 10 ** 9)).toBe(500 * 20);
    expect(limitFromAnnounced(STARTER, null)).toBe(10);
  });
});

describe('uploadsFromAnnounced (ingest)', () => {
  it('uploads the published or declared figure whatever Limit is announced: one past it shows an over-admission', () => {
    // A server announcing its read Limit on ingest (one global counter) would otherwise get 60 slow uploads.
    expect(uploadsFromAnnounced(STARTER, 60)).toBe(10);
    expect(uploadsFromAnnounced(DECLARED, 5000)).toBe(600);
    expect(uploadsFromAnnounced(ENTERPRISE, 800)).toBe(800);
    expect(uploadsFromAnnounced(ENTERPRISE, null)).toBe(500);
  });
});
