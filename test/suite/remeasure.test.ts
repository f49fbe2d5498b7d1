import { describe, expect, it } from 'vitest';
import { remeasureBudget, remeasureText } from '../../src/suite/remeasure.ts';

describe('remeasureBudget', () => {
  it('grants each lane its windows for measuring again, then says why not', () => {
    const budget = remeasureBudget(1);
    expect(budget.take('starter-a')).toBeNull();
    expect(budget.take('starter-b')).toBeNull();
    expect(budget.take('starter-a')).toEqual({ code: 'remeasure-budget-spent', windowsPerLane: 1, lane: 'starter-a' });
    expect(remeasureText(budget)).toContain('at most one window more per organization');
    expect(remeasureText(remeasureBudget())).toContain('at most 2 windows more per organization');
  });
});
