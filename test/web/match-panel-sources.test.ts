/** How the "why" panel words where a key came from (src/web/project-match-panel.tsx). */
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { keySourceOf } from '../../src/domain/project-match.ts';
import { KeysTable } from '../../src/web/project-match-panel.tsx';

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

describe('the why panel', () => {
  it('names the CNA, not an affected product, for a key its own name gave (a record that names no vendor)', () => {
    const source = keySourceOf({
      source: 'cna-text',
      rule: 'alias',
      text: '@microsoft',
      support: 12,
      records: 12,
      provider: 'mitre',
    });
    const html = renderToString(
      h(KeysTable, { keys: [{ key: 'microsoft', vendor: 'microsoft', sources: [source] }] }),
    );
    expect(text(html)).toContain(
      'CVE Program record: written by the CNA “microsoft”, naming no vendor (12 of 12 records of this CNA naming no vendor had this key in their CPEs)',
    );
    expect(text(html)).not.toContain('as written');
  });

  it('quotes the affected product as written for a key its text gave', () => {
    const source = keySourceOf({
      source: 'cna-text',
      rule: 'alias',
      text: 'Apache Software Foundation',
      support: 3,
      records: 3,
      provider: 'mitre',
    });
    const html = renderToString(
      h(KeysTable, { keys: [{ key: 'apache', vendor: 'apache', sources: [source] }] }),
    );
    expect(text(html)).toContain('the affected product as written, “Apache Software Foundation”');
  });
});
