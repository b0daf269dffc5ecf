/** Path parameters shared by the organization and project routes of API v2. */
import { Type } from '@fastify/type-provider-typebox';

// Loose on purpose: a name no organization or project can have is a 404, not a 400.
export const OrgParam = Type.Object({ org: Type.String({ minLength: 1, maxLength: 100 }) });

export const ProjectParams = Type.Object({
  org: Type.String({ minLength: 1, maxLength: 100 }),
  project: Type.String({ minLength: 1, maxLength: 200, description: 'The project name.' }),
});
