import { describe, expect, it } from 'vitest';
import { firstSyncNotice } from './first-sync.ts';

const defaults = { cve5GitDir: undefined, nvdApiKey: undefined, nvdSyncStart: undefined };

describe('firstSyncNotice', () => {
  it('says nothing when every configured source has synced before (or none is configured)', () => {
    expect(firstSyncNotice([], defaults)).toBeUndefined();
  });

  it('names the baseline, the full NVD load, their size and time, and the setting that turns sync off', () => {
    const line = firstSyncNotice(['cve5', 'nvd', 'kev', 'epss', 'cwe'], defaults)!;
    expect(line).toMatch(/^first sync of cve5, nvd, kev, epss, cwe /);
    expect(line).toContain('the whole CVE Program baseline (about 300,000 records, about 0.5 GB)');
    expect(line).toContain('every NVD record (about 150 requests of 2,000 records');
    expect(line).toContain('without NVD_API_KEY');
    expect(line).toContain('about half an hour and 2-3 GB');
    expect(line).toContain('SYNC_SOURCES=none turns sync off');
  });

  it('follows the settings: a git clone, an NVD key, an NVD start date, only the small files', () => {
    const line = firstSyncNotice(['cve5', 'nvd'], {
      cve5GitDir: '/srv/cvelistV5',
      nvdApiKey: 'key',
      nvdSyncStart: new Date('2025-01-01T00:00:00Z'),
    })!;
    expect(line).toContain('every record of the clone in CVE5_GIT_DIR');
    expect(line).toContain('modified since NVD_SYNC_START (2025-01-01)');
    expect(line).not.toContain('without NVD_API_KEY');

    const small = firstSyncNotice(['kev', 'epss'], defaults)!;
    expect(small).toContain('kev, epss download one file each');
    expect(small).not.toContain('half an hour');
    expect(small).toContain('SYNC_SOURCES=none');
  });
});
