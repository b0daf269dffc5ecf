import { describe, expect, it } from 'vitest';
import { isReservedName, RESERVED_NAMES } from './names.ts';

describe('isReservedName', () => {
  it("reserves OpenCVE's `add` and the web UI's path segments, in any case", () => {
    for (const name of RESERVED_NAMES) {
      expect(isReservedName(name)).toBe(true);
      expect(isReservedName(name.toUpperCase())).toBe(true);
    }
    expect(RESERVED_NAMES).toEqual(
      expect.arrayContaining(['add', 'new', 'settings', 'members', 'tokens', 'audit', 'invitations']),
    );
  });

  it('leaves other names free, also those that only contain a reserved word', () => {
    for (const name of ['production', 'add-ons', 'newsletter', 'Settings 2', 'editors']) {
      expect(isReservedName(name)).toBe(false);
    }
  });
});
