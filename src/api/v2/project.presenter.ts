/** Response shapes of projects and their subscription sets (docs/api-v2.md). */
import { Type } from '@fastify/type-provider-typebox';
import type { ProjectRow } from '../../domain/project.ts';
import type { SubscriptionSet } from '../../domain/subscriptions.ts';
import { toMicrosZ } from '../../domain/timestamps.ts';
import { Timestamp, Uuid } from './schemas.ts';

const Names = Type.Array(Type.String());

export const Subscriptions = Type.Object({
  vendors: Type.Array(Type.String(), { description: 'Whole-vendor subscriptions, by name.' }),
  products: Type.Record(Type.String(), Names, {
    description: 'Product subscriptions: vendor name → product names.',
  }),
});

export const ProjectItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  name: Type.String(),
  description: Type.String(),
  active: Type.Boolean(),
  subscriptions_count: Type.Integer({ description: 'Subscribed vendors plus subscribed products.' }),
});

export const ProjectDetail = Type.Object({ ...ProjectItem.properties, subscriptions: Subscriptions });

export function projectItem(row: ProjectRow) {
  return {
    id: row.id,
    created_at: toMicrosZ(row.created_at),
    updated_at: toMicrosZ(row.updated_at),
    name: row.name,
    description: row.description,
    active: row.active,
    subscriptions_count: row.subscriptions_count,
  };
}

export function projectDetail({
  project,
  subscriptions,
}: {
  project: ProjectRow;
  subscriptions: SubscriptionSet;
}) {
  return { ...projectItem(project), subscriptions };
}
