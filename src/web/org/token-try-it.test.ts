import { describe, expect, it } from 'vitest';
import { needsProject, tryItPath } from './token-try-it.ts';

describe('tryItPath', () => {
  it('reads the organization when the token may (no scopes: everything)', () => {
    expect(tryItPath('acme', [], 'web')).toBe('/api/v2/organizations/acme');
    expect(tryItPath('acme', ['catalog:read', 'org:read'], 'web')).toBe('/api/v2/organizations/acme');
  });

  it("picks an endpoint of the token's scope, a write scope holding its read scope", () => {
    expect(tryItPath('acme', ['projects:read'], 'web')).toBe('/api/v2/organizations/acme/projects');
    expect(tryItPath('acme', ['catalog:read'], 'web')).toBe('/api/v2/cves');
    expect(tryItPath('acme', ['tracker:write'], 'my app')).toBe(
      '/api/v2/organizations/acme/projects/my%20app/cves',
    );
    expect(tryItPath('acme', ['audit_logs:read'], undefined)).toBe('/api/v2/organizations/acme/audit-logs');
  });

  it('puts a placeholder for a project the organization does not have yet', () => {
    const path = tryItPath('acme', ['reports:read'], undefined);
    expect(path).toBe('/api/v2/organizations/acme/projects/PROJECT/reports');
    expect(needsProject(path)).toBe(true);
    expect(needsProject(tryItPath('acme', ['reports:read'], 'web'))).toBe(false);
  });
});
