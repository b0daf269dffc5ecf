/** `vulntrack tag …`: a user's own tags on CVEs (API v1's `tag` filter). */
import { serviceCommand } from './command.ts';
import { EXIT } from './output.ts';

export const tagSet = serviceCommand({
  name: 'tag set',
  description: "set a user's tags on a CVE, replacing the ones it had (no tags: untag it)",
  arguments: [
    { name: '<cve_id>' },
    { name: '[tags...]', description: 'letters, digits, _ . - (at most 64 characters each)' },
  ],
  options: [{ flags: '--user <username>', required: true }],
  args: (cveId: string, tags: string[], o: { user: string }) => ({ user: o.user, cveId, tags }),
  async run(services, args) {
    const r = await services.tags.setForUsername(args.user, args.cveId, args.tags);
    return {
      text: `${r.cve_id}: ${r.tags.length ? r.tags.join(' ') : 'no tags'}`,
      data: r,
      exitCode: EXIT.ok,
    };
  },
});

export const tagList = serviceCommand({
  name: 'tag list',
  description: "list a user's tagged CVEs with their tags",
  arguments: [{ name: '[cve_id]', description: 'only this CVE' }],
  options: [{ flags: '--user <username>', required: true }],
  args: (cveId: string | undefined, o: { user: string }) => ({ user: o.user, cveId }),
  async run(services, args) {
    const tagged = await services.tags.listForUsername(args.user, args.cveId);
    return {
      text: tagged.length
        ? tagged.map((t) => `${t.cve_id}: ${t.tags.join(' ')}`).join('\n')
        : 'no tagged CVEs',
      data: tagged,
      exitCode: EXIT.ok,
    };
  },
});
