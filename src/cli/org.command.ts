/** `vulntrack org create`: an organization with its first owner. */
import { serviceCommand } from './command.ts';
import { EXIT } from './output.ts';

export const orgCreate = serviceCommand({
  name: 'org create',
  description: 'create an organization with its first owner',
  arguments: [{ name: '<name>', description: 'letters, digits and -' }],
  options: [{ flags: '--owner <username>', required: true }],
  args: (name: string, o: { owner: string }) => ({ name, owner: o.owner }),
  async run(services, args) {
    const org = await services.accounts.createOrganization(args.name, args.owner);
    return {
      text: `created organization ${org.name}`,
      data: { id: org.id, name: org.name },
      exitCode: EXIT.ok,
    };
  },
});
