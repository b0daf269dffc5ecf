import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ImportService } from '../../src/services/import.service.ts';
import { InputError } from '../../src/sources/input.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const FIXTURES = path.resolve('test/fixtures');

describeEachDatabase('ImportService with URLs', (use) => {
  let server: http.Server;
  let base: string;
  const requests: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      const file = path.join(FIXTURES, decodeURIComponent(req.url ?? '/'));
      if (!file.startsWith(FIXTURES) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  describe('importInputs', () => {
    it('downloads a gzipped file from a URL and imports it like a local one', async () => {
      const report = await new ImportService(use().db).importInputs(sources.cve5, [
        `${base}/cve5/history/base.jsonl.gz`,
      ]);
      expect(report.status).toBe('completed');
      expect(report.counts.imported).toBe(553);
      expect(requests).toContain('/cve5/history/base.jsonl.gz');
      const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve`.execute(use().db);
      expect(rows.rows[0]!.n).toBe(553);
    });

    it('imports a single record from a URL', async () => {
      const report = await new ImportService(use().db).importInputs(sources.nvd, [
        `${base}/nvd/CVE-2024-3094.json`,
      ]);
      expect(report.counts.imported + report.counts.updated).toBe(1);
    });

    it('throws InputError naming the URL and the HTTP status when the download fails', async () => {
      const service = new ImportService(use().db);
      await expect(service.importInputs(sources.cve5, [`${base}/nothing-here.jsonl`])).rejects.toThrow(
        new InputError(`Could not fetch ${base}/nothing-here.jsonl: HTTP 404`),
      );
      await expect(service.importInputs(sources.cve5, ['http://127.0.0.1:1/x.jsonl'])).rejects.toBeInstanceOf(
        InputError,
      );
    });
  });
});
