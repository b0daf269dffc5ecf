import { describe, expect, it } from 'vitest';
import { fillMonths, lastMonths } from './statistics.ts';

describe('statistics calendar', () => {
  it('lists the last months up to the current one, across a year boundary', () => {
    expect(lastMonths(new Date('2025-02-14T23:59:00Z'), 4)).toEqual([
      '2024-11',
      '2024-12',
      '2025-01',
      '2025-02',
    ]);
    expect(lastMonths(new Date('2025-02-14T00:00:00Z'), 24)).toHaveLength(24);
    expect(lastMonths(new Date('2025-02-14T00:00:00Z'), 24)[0]).toBe('2023-03');
  });

  it('fills months without a row with 0 and drops rows outside', () => {
    expect(
      fillMonths(
        ['2024-12', '2025-01'],
        [
          { key: '2025-01', count: 3 },
          { key: '2019-05', count: 9 },
        ],
      ),
    ).toEqual([
      { key: '2024-12', count: 0 },
      { key: '2025-01', count: 3 },
    ]);
  });
});
