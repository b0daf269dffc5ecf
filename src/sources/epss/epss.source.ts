/** FIRST EPSS daily scores (`cve,epss,percentile` CSV, usually gzipped): the `first` statement. */
import { parse as parseCsv } from 'csv-parse';
import { chain } from '../input.ts';
import { isCveId } from '../../domain/cve-id.ts';
import { emptyDocument } from '../../domain/cve.ts';
import { unreadableRest, type ImportItem, type Source } from '../source.ts';

function probability(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

export const epssSource: Source = {
  name: 'epss',
  accept: (name) => /\.csv$/i.test(name),
  async *parse(file): AsyncGenerator<ImportItem> {
    const stream = await file.open();
    let row = 0;
    try {
      // The first line is a `#model_version:…,score_date:…` comment.
      const rows = chain(
        stream,
        parseCsv({ columns: true, comment: '#', bom: true, relax_column_count: true }),
      );
      for await (const record of rows as AsyncIterable<Record<string, string>>) {
        row++;
        const position = `${file.name}:row ${row}`;
        const cveId = record.cve;
        const score = probability(record.epss);
        const percentile = probability(record.percentile);
        if (!isCveId(cveId)) {
          yield { kind: 'skip', position, reason: `invalid CVE id ${JSON.stringify(cveId)}` };
        } else if (score === undefined) {
          yield { kind: 'skip', position, id: cveId, reason: `invalid score ${JSON.stringify(record.epss)}` };
        } else {
          const doc = emptyDocument();
          doc.metrics.epss = percentile === undefined ? { score } : { score, percentile };
          yield {
            kind: 'cve',
            cveId,
            position,
            records: [{ cveId, provider: 'first', doc }],
            replaces: ['first'],
          };
        }
      }
    } catch (err) {
      yield unreadableRest(`${file.name}:row ${row + 1}`, err);
    }
  },
};
