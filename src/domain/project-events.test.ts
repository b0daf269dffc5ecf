import { describe, expect, it } from 'vitest';
import type { ChangeEntry } from './cve-change.ts';
import {
  concernsProjects,
  keyFlags,
  matchProjects,
  periodEvents,
  projectView,
  type ChangeItem,
} from './project-events.ts';

const P = '$PRODUCT$';

function change(vendors: string[], entries: ChangeEntry[], state = 'PUBLISHED'): ChangeItem {
  return { entries, epss: null, cve: { state, vendors } };
}

const created: ChangeEntry = { type: 'created', details: null };
const vendorsChanged = (added: string[], removed: string[] = []): ChangeEntry => ({
  type: 'vendors',
  details: { added, removed },
});
const description: ChangeEntry = { type: 'description', details: { old: 'a', new: 'b' } };

describe('projectView', () => {
  it('a new CVE enters every project subscribed to one of its keys', () => {
    const item = change(['acme', `acme${P}widget`], [created, vendorsChanged(['acme', `acme${P}widget`])]);
    expect(projectView(item, new Set(['acme']))).toEqual({ matchedKeys: ['acme'], enters: true });
    expect(projectView(item, new Set([`acme${P}widget`, 'other']))).toEqual({
      matchedKeys: [`acme${P}widget`],
      enters: true,
    });
    expect(projectView(item, new Set(['other']))).toBeUndefined();
  });

  it('a key added to a known CVE brings it into the projects that had none of its keys, not the others', () => {
    const item = change(['acme', 'globex'], [vendorsChanged(['globex'])]);
    expect(projectView(item, new Set(['globex']))).toEqual({ matchedKeys: ['globex'], enters: true });
    expect(projectView(item, new Set(['globex', 'acme']))).toEqual({
      matchedKeys: ['acme', 'globex'],
      enters: false,
    });
  });

  it('a CVE that lost every subscribed key no longer concerns the project', () => {
    const item = change(['globex'], [vendorsChanged(['globex'], ['acme'])]);
    expect(projectView(item, new Set(['acme']))).toBeUndefined();
    // A project that keeps one key, and had the removed one: the CVE was there before.
    expect(
      projectView(change(['acme'], [vendorsChanged([], ['initech'])]), new Set(['acme', 'initech'])),
    ).toEqual({ matchedKeys: ['acme'], enters: false });
  });

  it('an EPSS move never brings a CVE into a project', () => {
    const item: ChangeItem = {
      entries: [],
      epss: { old: 0.1, new: 0.5 },
      cve: { state: 'PUBLISHED', vendors: ['acme'] },
    };
    expect(keyFlags(item)).toEqual([{ key: 'acme', now: true, before: true }]);
    expect(projectView(item, new Set(['acme']))).toEqual({ matchedKeys: ['acme'], enters: false });
  });

  it('a rejected CVE concerns projects only through its rejection', () => {
    const rejection = change(
      ['acme'],
      [{ type: 'state', details: { old: 'PUBLISHED', new: 'REJECTED' } }],
      'REJECTED',
    );
    const later = change(['acme'], [description], 'REJECTED');
    expect(concernsProjects(rejection)).toBe(true);
    expect(concernsProjects(later)).toBe(false);
    expect(projectView(later, new Set(['acme']))).toBeUndefined();
    const epss: ChangeItem = {
      entries: [],
      epss: { old: 0.1, new: 0.5 },
      cve: { state: 'REJECTED', vendors: ['acme'] },
    };
    expect(concernsProjects(epss)).toBe(false);
  });
});

describe('periodEvents', () => {
  it('keeps what concerns the project, with its events; drops an EPSS move that moved nothing', () => {
    const base = { cve_id: 'CVE-2024-0001', change_id: 'c1', highest_cvss: 9.8 };
    const events = periodEvents(
      [
        { ...base, ...change(['acme'], [created, vendorsChanged(['acme'])]) },
        { ...base, change_id: 'c2', ...change(['acme'], [description]) },
        { ...base, cve_id: 'CVE-2024-0002', change_id: 'c3', ...change(['globex'], [description]) },
        {
          ...base,
          change_id: null,
          entries: [],
          epss: { old: 0.2, new: 0.2 },
          cve: { state: 'PUBLISHED', vendors: ['acme'] },
        },
      ],
      new Set(['acme']),
    );
    expect(events.map((e) => [e.change_id, e.types])).toEqual([
      ['c1', ['cve_enters_project']],
      ['c2', ['description_changed']],
    ]);
    expect(events[0]!.matched_keys).toEqual(['acme']);
  });
});

describe('matchProjects', () => {
  it('is projectView for every (project, item), for many projects at once', () => {
    // A deterministic spread of items (new CVEs, added and removed keys, EPSS moves) and projects.
    let state = 42;
    const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const KEYS = ['a', 'b', 'c', `c${P}x`, 'd', 'e', `e${P}y`, 'f'];
    const pick = (n: number) => [
      ...new Set(Array.from({ length: n }, () => KEYS[Math.floor(random() * KEYS.length)]!)),
    ];
    const items: ChangeItem[] = Array.from({ length: 300 }, (_, i) => {
      const vendors = pick(1 + Math.floor(random() * 3));
      if (i % 7 === 0)
        return { entries: [], epss: { old: 0.1, new: 0.3 }, cve: { state: 'PUBLISHED', vendors } };
      const entries: ChangeEntry[] = [];
      if (random() < 0.3) entries.push(created, vendorsChanged(vendors));
      else if (random() < 0.5)
        entries.push(
          vendorsChanged(
            vendors.slice(0, 1),
            pick(1).filter((k) => !vendors.includes(k)),
          ),
        );
      else entries.push(description);
      return { entries, epss: null, cve: { state: 'PUBLISHED', vendors } };
    });
    const projects = Array.from({ length: 40 }, (_, i) => ({ projectId: `p${i}`, keys: pick(1 + (i % 4)) }));
    const matches = new Map(
      matchProjects(
        items.map((item, i) => ({ seq: i + 1, flags: keyFlags(item) })),
        projects,
      ).map((m) => [m.projectId, m]),
    );
    let pairs = 0;
    for (const { projectId, keys } of projects) {
      const expected = items.flatMap((item, i) => {
        const view = projectView(item, new Set(keys));
        return view ? [{ seq: i + 1, enters: view.enters }] : [];
      });
      const got = matches.get(projectId);
      expect(got ? got.seqs.map((seq, j) => ({ seq, enters: got.enters[j] })) : [], projectId).toEqual(
        expected,
      );
      pairs += expected.length;
    }
    expect(pairs).toBeGreaterThan(1000);
  });
});
