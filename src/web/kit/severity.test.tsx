import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { SeverityBadge } from './severity.tsx';

const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe('SeverityBadge', () => {
  it('draws a score in a list with its version, coloured by its rating', () => {
    const html = renderToString(<SeverityBadge score={9.8} version="3.1" title="CVSS 3.1 base score" />);
    expect(html).toContain('class="badge sev-critical"');
    expect(html).toContain('title="CVSS 3.1 base score"');
    expect(text(html)).toBe('9.8 v3.1');
  });

  it('names the rating where asked', () => {
    expect(text(renderToString(<SeverityBadge score={10} version="3.1" named />))).toBe(
      '10.0 Critical · v3.1',
    );
    expect(text(renderToString(<SeverityBadge score={5.3} named />))).toBe('5.3 Medium');
  });

  it('rates 0.0 as none, as CVSS does', () => {
    const html = renderToString(<SeverityBadge score={0} named />);
    expect(html).toContain('sev-none');
    expect(text(html)).toBe('0.0 None');
  });

  it('draws a dash without a score', () => {
    expect(renderToString(<SeverityBadge score={null} />)).toBe('<span class="muted">–</span>');
  });
});
