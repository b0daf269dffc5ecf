import { readFileSync } from 'node:fs';
import { fixture } from '../../helpers/catalog.ts';
import type { WalkRoute } from './walk.ts';

const i = '/org/:org/projects/:project/inventories';
const sbom = readFileSync(fixture('sbom', 'cyclonedx-1.6-vulnerable.json'), 'utf8');

/** Inventories: `:name` is an inventory of the project, `:position` one of its components. */
export const inventoryRoutes: WalkRoute[] = [
  { method: 'GET', url: i, allowed: 'member' },
  {
    method: 'POST',
    url: i,
    allowed: 'owner',
    form: { name: 'walk-upload' },
    files: { sbom: { name: 'bom.json', content: sbom } },
  },
  { method: 'GET', url: `${i}/:name`, allowed: 'member' },
  { method: 'GET', url: `${i}/:name/components/:position`, allowed: 'member' },
  { method: 'GET', url: `${i}/:name/vex`, allowed: 'member' },
  { method: 'POST', url: `${i}/:name/delete`, allowed: 'owner', last: true },
];
