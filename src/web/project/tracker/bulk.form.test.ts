import { describe, expect, it } from 'vitest';
import type { ProjectCveQuery } from '../../../services/project-cves.service.ts';
import { bulkErrorsOf, bulkSelection, readBulkForm, tagList } from './bulk.form.ts';

const matching: ProjectCveQuery = { filters: { kev: true }, ordering: '-updated_at', status: 'resolved' };

describe('readBulkForm', () => {
  it('reads the selected CVEs, a status, an assignee and tags to add and remove', () => {
    const { values, filter, edit } = readBulkForm({
      scope: 'selected',
      cve: ['CVE-2021-44228', 'CVE-2024-3094'],
      set_status: 'resolved',
      set_assignee: '  bob@example.org ',
      add_tags: 'vpn, q3-audit',
      remove_tags: 'old',
      filter: 'status=to_evaluate',
    });
    expect(values.scope).toBe('selected');
    expect(values.checked).toEqual(['CVE-2021-44228', 'CVE-2024-3094']);
    expect(values.errors).toEqual({});
    expect(filter).toBe('status=to_evaluate');
    expect(edit).toEqual({
      status: 'resolved',
      assignee: 'bob@example.org',
      addTags: ['vpn', 'q3-audit'],
      removeTags: ['old'],
    });
  });

  it('leaves the status and the assignee as they are when left empty, and clears them with "none"', () => {
    expect(readBulkForm({ set_status: '', set_assignee: '' }).edit).toMatchObject({
      status: undefined,
      assignee: undefined,
    });
    expect(readBulkForm({ set_status: 'none', set_assignee: 'none' }).edit).toMatchObject({
      status: null,
      assignee: null,
    });
  });

  it('refuses a status not offered under set_status, keeping what was typed', () => {
    const { values } = readBulkForm({ set_status: 'done', add_tags: 'vpn' });
    expect(values.errors).toEqual({ set_status: ['Choose one of the statuses offered.'] });
    expect(values.set_status).toBe('done');
    expect(values.add_tags).toBe('vpn');
  });

  it('takes scope "all" only as sent, anything else as the selected CVEs', () => {
    expect(readBulkForm({ scope: 'all' }).values.scope).toBe('all');
    expect(readBulkForm({ scope: 'everything' }).values.scope).toBe('selected');
    expect(readBulkForm({}).values.scope).toBe('selected');
  });

  it('reads one checked CVE as a list, and ignores values that are not strings', () => {
    expect(readBulkForm({ cve: 'CVE-2021-44228' }).values.checked).toEqual(['CVE-2021-44228']);
    expect(readBulkForm({ cve: ['CVE-2021-44228', 7] }).values.checked).toEqual(['CVE-2021-44228']);
  });

  it('reads at most 10,000 checked CVEs', () => {
    const cve = Array.from({ length: 10_005 }, (_, i) => `CVE-2024-${10000 + i}`);
    expect(readBulkForm({ cve }).values.checked).toHaveLength(10_000);
  });
});

describe('tagList', () => {
  it('splits tags on commas and blanks, dropping empty ones', () => {
    expect(tagList(' vpn,, q3-audit  patched.2025 ')).toEqual(['vpn', 'q3-audit', 'patched.2025']);
    expect(tagList('')).toEqual([]);
  });
});

describe('bulkSelection', () => {
  it('selects the checked CVEs when the scope is "selected", whatever the filter', () => {
    const { values } = readBulkForm({ cve: ['CVE-2021-44228'] });
    expect(bulkSelection(values, undefined)).toEqual({ selection: { cveIds: ['CVE-2021-44228'] } });
  });

  it("selects every CVE matching the page's filter when the scope is all (not the ids checked)", () => {
    const { values } = readBulkForm({ scope: 'all', cve: ['CVE-2021-44228'] });
    expect(bulkSelection(values, matching)).toEqual({ selection: { matching } });
  });

  it('refuses the scope all under selection when the filter is not valid', () => {
    const { values } = readBulkForm({ scope: 'all' });
    expect(bulkSelection(values, undefined)).toEqual({
      errors: { selection: ['The filter of this page is not valid: correct it, then edit again.'] },
    });
  });
});

describe('bulkErrorsOf', () => {
  it("places the service's refusals beside the form's fields", () => {
    expect(
      bulkErrorsOf({
        cve_ids: ['CVE-2020-0001 is not a CVE of this project.'],
        assignee: ['eve@example.org is not a member of this organization'],
        q: ['Unknown field'],
        add_tags: ['At most 20 tags.'],
        _form: ['Choose a status, an assignee or tags to change.'],
      }),
    ).toEqual({
      selection: ['CVE-2020-0001 is not a CVE of this project.'],
      set_assignee: ['eve@example.org is not a member of this organization'],
      _form: ['Unknown field', 'Choose a status, an assignee or tags to change.'],
      add_tags: ['At most 20 tags.'],
    });
  });

  it("keeps a key named as one of Object's own as it is", () => {
    expect(bulkErrorsOf({ toString: ['x'] })).toEqual({ toString: ['x'] });
  });
});
