/** How the "why" panel words where a key came from, and why a CVE is not in a project (src/web/project-match-panel.tsx). */
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { keySourceOf, type CveKey, type ProjectMatch } from '../../src/domain/project-match.ts';
import type { KeyEvidence } from '../../src/domain/vendor-aliases.ts';
import type { PageContext } from '../../src/web/kit/context.ts';
import { KeysTable, MatchExplanation } from '../../src/web/shared/project-match-panel.tsx';

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

/** A vendor key of the CVE Program record, with this text evidence. */
function cnaKey(vendor: string, evidence: Extract<KeyEvidence, { source: 'cna-text' }>): CveKey {
  return { key: vendor, vendor, sources: [keySourceOf({ ...evidence, provider: 'mitre' })] };
}

const keysText = (keys: CveKey[]) => text(renderToString(h(KeysTable, { keys })));

describe('the why panel', () => {
  it('names the CNA, not an affected product, for a key its own name gave (a record that names no vendor)', () => {
    const shown = keysText([
      cnaKey('microsoft', {
        source: 'cna-text',
        rule: 'alias',
        text: '@microsoft',
        support: 12,
        records: 12,
      }),
    ]);
    expect(shown).toContain(
      'CVE Program record: the CNA “microsoft” wrote it without naming a vendor (12 of its 12 such records had this key in their CPEs)',
    );
    expect(shown).not.toContain('as written');
  });

  it('quotes the affected product as written for a key its text gave', () => {
    const shown = keysText([
      cnaKey('apache', {
        source: 'cna-text',
        rule: 'alias',
        text: 'Apache Software Foundation',
        support: 3,
        records: 3,
      }),
    ]);
    expect(shown).toContain('the affected product as written, “Apache Software Foundation”');
  });

  it('says why not in the singular for a CVE with one key', () => {
    const key = cnaKey('microsoft', { source: 'cna-text', rule: 'name', text: 'Microsoft' });
    const match: ProjectMatch = {
      cveId: 'CVE-2006-4692',
      project: 'web-apps',
      inProject: false,
      outcome: 'no_subscribed_key',
      matched: [],
      matchedKeywords: [],
      matchedComponents: [],
      resolvedBy: [],
      entered: null,
      keys: [key],
      retracted: [],
      near: [],
      subscriptionsCount: 2,
      keywordsCount: 0,
    };
    const shown = text(
      renderToString(
        h(MatchExplanation, { ctx: {} as PageContext, match, catalogUrl: '/cves/CVE-2006-4692' }),
      ),
    );
    expect(shown).toContain("Its only vendor or product key is not among the project's 2 subscriptions.");
    expect(shown).toContain('To follow this CVE, subscribe the project to it from the CVE');
  });
});
