/** Markdown helpers: aligned tables read well both in a terminal and rendered. */

export type Align = 'left' | 'right';

export function table(headers: string[], rows: string[][], align: Align[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (text: string, i: number) =>
    align[i] === 'right' ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0);
  const line = (cells: string[]) => `| ${cells.map((c, i) => cell(c, i)).join(' | ')} |`;
  const rule = widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w)));
  return [
    line(headers),
    `| ${rule.join(' | ')} |`,
    ...rows.map((r) => line(headers.map((_, i) => r[i] ?? ''))),
  ].join('\n');
}

export const fence = (text: string, lang = '') => `\`\`\`${lang}\n${text}\n\`\`\``;

export const int = (n: number) => Math.round(n).toLocaleString('en-US');

export const fixed = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
