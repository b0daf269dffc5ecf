/** `vulntrack project create`: a project of an organization, with its subscriptions. */
import { SYSTEM_ACTOR } from '../domain/actor.ts';
import { serviceCommand } from './command.ts';
import { EXIT, UsageError } from './output.ts';

/** `--product VENDOR:PRODUCT` values, grouped by vendor. */
const collectProducts = (values: string[]): Record<string, string[]> => {
  const products: Record<string, string[]> = {};
  for (const p of values) {
    const i = p.indexOf(':');
    if (i <= 0 || i === p.length - 1) throw new UsageError(`--product takes VENDOR:PRODUCT, not "${p}"`);
    (products[p.slice(0, i)] ??= []).push(p.slice(i + 1));
  }
  return products;
};

export const projectCreate = serviceCommand({
  name: 'project create',
  description: 'create a project, with its subscriptions',
  arguments: [
    { name: '<org>', description: 'the organization' },
    { name: '<name>', description: 'the project name' },
  ],
  options: [
    { flags: '--vendor <vendor>', description: 'subscribe to a vendor (repeatable)', repeatable: true },
    {
      flags: '--product <vendor:product>',
      description: 'subscribe to a product of a vendor (repeatable)',
      repeatable: true,
    },
  ],
  args: (org: string, name: string, o: { vendor: string[]; product: string[] }) => ({
    org,
    name,
    vendors: o.vendor,
    products: collectProducts(o.product),
  }),
  async run(services, args) {
    const org = await services.accounts.getOrganization(args.org);
    const { project, subscriptions } = await services.projects.create(
      org.id,
      { name: args.name },
      SYSTEM_ACTOR,
      {
        vendors: args.vendors,
        products: args.products,
      },
    );
    const n = project.subscriptions_count;
    return {
      text: `created project ${project.name} in ${org.name} with ${n} subscription${n === 1 ? '' : 's'}`,
      data: { id: project.id, name: project.name, organization: org.name, subscriptions },
      exitCode: EXIT.ok,
    };
  },
});
