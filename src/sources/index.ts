/** The registry of upstream sources by name. */
import type { Source, SourceName } from './source.ts';
import { cve5Source } from './cve5/cve5.source.ts';
import { nvdSource } from './nvd/nvd.source.ts';
import { kevSource } from './kev/kev.source.ts';
import { epssSource } from './epss/epss.source.ts';
import { cweSource } from './cwe/cwe.source.ts';
import { opencveKbSource } from './opencve-kb/opencve-kb.source.ts';

export const sources: Record<SourceName, Source> = {
  cve5: cve5Source,
  nvd: nvdSource,
  kev: kevSource,
  epss: epssSource,
  cwe: cweSource,
  'opencve-kb': opencveKbSource,
};
