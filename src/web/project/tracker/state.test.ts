import { describe, expect, it } from 'vitest';
import { cleanFilter, listQuery, readTrackerState, trackerQueryString } from './state.ts';

const bob = { email: 'bob@example.org', username: 'bob' };

describe('readTrackerState', () => {
  it('reads the triage filters beside the catalog list state, the assignee in lower case', () => {
    const state = readTrackerState(
      { status: 'resolved', assignee: 'Bob@Example.org', tag: 'vpn' },
      [bob],
      ['vpn'],
    );
    expect(state).toMatchObject({ status: 'resolved', assignee: 'bob@example.org', tag: 'vpn', errors: {} });
  });

  it('refuses a status, an assignee or a tag the page does not offer, each under its field', () => {
    const state = readTrackerState(
      { status: 'done', assignee: 'eve@example.org', tag: 'nope' },
      [bob],
      ['vpn'],
    );
    expect(state.errors).toEqual({
      status: ['Choose one of the statuses offered.'],
      assignee: ['Nobody of this organization has this email.'],
      tag: ['You have not put the tag "nope" on any CVE.'],
    });
  });

  it('takes "no_status" and "none" (nobody assigned) as filters', () => {
    expect(readTrackerState({ status: 'no_status', assignee: 'none' }, [], []).errors).toEqual({});
  });
});

describe('listQuery', () => {
  it("asks for CVEs nobody is assigned to with null, and for the user's own tag", () => {
    const state = readTrackerState({ assignee: 'none', tag: 'vpn', kev: 'true' }, [], ['vpn']);
    expect(listQuery(state, 'org-1', 'user-1')).toMatchObject({
      filters: { kev: true },
      assignee: null,
      status: undefined,
      tag: { userId: 'user-1', tag: 'vpn' },
    });
  });

  it('leaves out the filters not set', () => {
    const query = listQuery(readTrackerState({}, [], []), 'org-1', 'user-1');
    expect(query).toMatchObject({ q: undefined, status: undefined, assignee: undefined, tag: undefined });
  });
});

describe('trackerQueryString', () => {
  it("writes the triage filters after the catalog list's", () => {
    const state = readTrackerState({ kev: 'true', status: 'resolved', assignee: 'none' }, [], []);
    expect(trackerQueryString(state)).toBe('kev=true&status=resolved&assignee=none');
  });
});

describe('cleanFilter', () => {
  it('keeps only the fields the tracker knows from a filter sent back by a form', () => {
    expect(cleanFilter('status=resolved&evil=1&done=bulk')).toBe('status=resolved');
  });
});
