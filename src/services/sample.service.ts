/**
 * On the first start with an empty catalog, loads the real sample that ships with the project
 * (6,258 CVE 5 records, the KEV catalog and the CWE list), so a new user has a useful catalog at once.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sources } from '../sources/index.ts';
import type { Source, SourceName } from '../sources/source.ts';
import type { ImportReport } from '../domain/import-report.ts';

export const SAMPLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/sample');

export const SAMPLE_FILES: readonly [SourceName, string][] = [
  ['cwe', 'cwe-1000.csv.gz'],
  ['cve5', 'cve5-sample.jsonl.gz'],
  ['kev', 'kev.json'],
];

/** What loading needs of `ImportService` (named by shape: the alias service, which imports use, reads `SAMPLE_DIR`). */
interface SampleImporter {
  importInputs(
    source: Source,
    targets: string[],
    options: { atomic: { beforeCommit(): Promise<void> }; signal?: AbortSignal },
  ): Promise<ImportReport>;
}

/** The sample's load, when `signal` stopped it (`serve` stopping): what loaded stays, the file being read is undone. */
export class SampleCancelled extends Error {
  constructor() {
    super('loading the sample catalog was cancelled');
  }
}

/**
 * Imports the sample files in order, each in one transaction (`atomic`): stopped by `signal`, the file
 * being read leaves nothing, so a catalog with no CVE yet loads the sample again at the next start.
 */
export async function loadSample(
  imports: SampleImporter,
  log: (message: string) => void,
  signal?: AbortSignal,
): Promise<ImportReport[]> {
  const reports: ImportReport[] = [];
  for (const [source, file] of SAMPLE_FILES) {
    if (signal?.aborted) throw new SampleCancelled();
    log(`loading the sample catalog: ${source} (${file})`);
    try {
      reports.push(
        await imports.importInputs(sources[source], [path.join(SAMPLE_DIR, file)], {
          atomic: { beforeCommit: async () => {} },
          ...(signal ? { signal } : {}),
        }),
      );
    } catch (err) {
      throw signal?.aborted ? new SampleCancelled() : err;
    }
  }
  return reports;
}
