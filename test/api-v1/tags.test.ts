/** A user's own tags on CVEs: the service, the CLI commands (the code `vulntrack tag` runs). */
import { storeTestAliases } from '../helpers/aliases.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceCommands } from '../../src/cli/service-commands.ts';
import { AppError } from '../../src/domain/errors.ts';
import { sources } from '../../src/sources/index.ts';
import { describeEachDatabase } from '../helpers/databases.ts';
import { buildTestApi, createOrganization, type TestApi } from '../helpers/api.ts';

describeEachDatabase('User tags', (use) => {
  let api: TestApi;
  let alice: { id: string; username: string };
  let bob: { id: string; username: string };

  beforeAll(async () => {
    api = await buildTestApi(use());
    // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
    await storeTestAliases(api.services.database.db);
    await api.services.imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
    alice = (await createOrganization(api.services, 'tags-a')).user;
    bob = (await createOrganization(api.services, 'tags-b')).user;
  });
  afterAll(() => api.close());

  describe('TagService.set', () => {
    it('replaces the tags of a CVE, sorted and without duplicates, and lists them', async () => {
      const { tags } = api.services;
      expect(await tags.set(alice.id, 'CVE-2021-44228', ['urgent', 'java', 'urgent'])).toEqual({
        cve_id: 'CVE-2021-44228',
        tags: ['java', 'urgent'],
      });
      await tags.set(alice.id, 'CVE-2021-44228', ['urgent', 'log4j']);
      await tags.set(alice.id, 'CVE-2024-3094', ['backdoor']);
      expect(await tags.list(alice.id)).toEqual([
        { cve_id: 'CVE-2021-44228', tags: ['log4j', 'urgent'] },
        { cve_id: 'CVE-2024-3094', tags: ['backdoor'] },
      ]);
      expect(await tags.list(alice.id, 'CVE-2024-3094')).toEqual([
        { cve_id: 'CVE-2024-3094', tags: ['backdoor'] },
      ]);
      await tags.set(alice.id, 'CVE-2024-3094', []);
      expect(await tags.list(alice.id, 'CVE-2024-3094')).toEqual([]);
      // Tags are private to their user.
      expect(await tags.list(bob.id)).toEqual([]);
    });

    it('refuses bad tag names (400) and CVEs not in the catalog (404)', async () => {
      const { tags } = api.services;
      await expect(tags.set(alice.id, 'CVE-2021-44228', ['ok', 'not ok', ''])).rejects.toMatchObject({
        code: 'validation_error',
        details: { tags: [expect.stringContaining('""'), expect.stringContaining('"not ok"')] },
      });
      await expect(tags.set(alice.id, 'CVE-1999-0001', ['x'])).rejects.toMatchObject({ code: 'not_found' });
      await expect(tags.set(alice.id, 'nonsense', ['x'])).rejects.toBeInstanceOf(AppError);
      await expect(
        tags.set(
          alice.id,
          'CVE-2021-44228',
          Array.from({ length: 51 }, (_, i) => `t${i}`),
        ),
      ).rejects.toMatchObject({
        code: 'validation_error',
      });
    });
  });

  describe('vulntrack tag set / tag list', () => {
    const noProgress = () => undefined;

    it('sets and lists a user’s tags by username', async () => {
      const set = await serviceCommands['tag.set']!(
        api.services,
        { user: bob.username, cveId: 'CVE-2024-6387', tags: ['ssh', 'urgent'] },
        noProgress,
      );
      expect(set).toMatchObject({ text: 'CVE-2024-6387: ssh urgent', exitCode: 0 });
      const list = await serviceCommands['tag.list']!(api.services, { user: bob.username }, noProgress);
      expect(list).toMatchObject({
        text: 'CVE-2024-6387: ssh urgent',
        data: [{ cve_id: 'CVE-2024-6387', tags: ['ssh', 'urgent'] }],
      });
      const cleared = await serviceCommands['tag.set']!(
        api.services,
        { user: bob.username, cveId: 'CVE-2024-6387', tags: [] },
        noProgress,
      );
      expect(cleared.text).toBe('CVE-2024-6387: no tags');
    });

    it('names an unknown user', async () => {
      await expect(
        serviceCommands['tag.list']!(api.services, { user: 'nobody' }, noProgress),
      ).rejects.toMatchObject({ details: { user: ['no user named "nobody"'] } });
    });
  });
});
