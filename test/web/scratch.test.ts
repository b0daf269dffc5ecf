import { afterAll, beforeAll, it } from 'vitest';
import fs from 'node:fs';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { signedIn } from '../helpers/web.ts';

describeEachDatabase('scratch', (use) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await buildTestApi(use());
    await api.services.imports.importInputs(sources.cwe, ['test/fixtures/cwe/cwe_v4.14_view_1000-excerpt.csv.gz', 'test/fixtures/cwe/cwec_v4.14-excerpt.xml']);
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    await api.services.imports.importInputs(sources.nvd, fs.readdirSync('test/fixtures/nvd').filter((f) => f.startsWith('CVE')).map((f) => `test/fixtures/nvd/${f}`));
    await api.services.imports.importInputs(sources.kev, ['test/fixtures/kev/known_exploited_vulnerabilities-excerpt.json']);
    await api.services.imports.importInputs(sources['opencve-kb'], ['test/fixtures/opencve-kb']);
  }, 120_000);
  afterAll(() => api.close());
  it('dumps', async () => {
    const { user } = await createOrganization(api.services, 'acme');
    const b = await signedIn(api, user.username, 'correct horse battery staple');
    for (const id of ['CVE-2021-44228', 'CVE-2023-4863', 'CVE-2021-36593']) {
      const r = await b.get(`/cves/${id}`);
      fs.writeFileSync(`/tmp/cvd/${id}.html`, r.body);
      fs.writeFileSync(`/tmp/cvd/${id}.txt`, `${r.status}\n${r.text}`);
    }
    await api.services.statistics.compute();
    const s = await b.get('/statistics');
    fs.writeFileSync('/tmp/cvd/stats.html', s.body);
    fs.writeFileSync('/tmp/cvd/stats.txt', `${s.status}\n${s.text}`);
  }, 60_000);
});
