import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateOpenApi } from '../helpers/openapi.ts';
import { patternRule } from '../../src/api/validation-messages.ts';

describe('OpenAPI document', () => {
  it('is generated from the route schemas and the checked-in docs/openapi.json has not drifted', async () => {
    const generated = await generateOpenApi();
    const doc = JSON.parse(generated);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/v2/cves'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['page', 'page_size', 'search', 'vendor', 'q']),
    );
    expect(doc.paths['/api/v2/cves'].get.description).toContain('`catalog:read`');
    // A CVE list is JSON or, with `format=csv`, a CSV download.
    const projectCves = '/api/v2/organizations/{org}/projects/{project}/cves';
    for (const list of ['/api/v2/cves', projectCves])
      expect(Object.keys(doc.paths[list].get.responses['200'].content)).toEqual([
        'application/json',
        'text/csv',
      ]);
    expect(fs.readFileSync('docs/openapi.json', 'utf8')).toBe(generated);
  });

  it('states a rule in words for every pattern a request is checked against', async () => {
    const patterns = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'pattern' && typeof value === 'string') patterns.add(value);
          else walk(value);
        }
      }
    };
    walk(JSON.parse(await generateOpenApi()).paths);
    expect(patterns.size).toBeGreaterThan(0);
    expect([...patterns].filter((p) => !patternRule(p))).toEqual([]);
  });
});
