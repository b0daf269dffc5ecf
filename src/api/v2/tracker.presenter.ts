/** Response shapes of a project's CVEs (the catalog list item plus `tracker`) and of comments. */
import { Type } from '@fastify/type-provider-typebox';
import type { TrackedCve } from '../../services/project-cves.service.ts';
import { toMicrosZ } from '../../domain/timestamps.ts';
import { TRIAGE_STATUSES } from '../../domain/triage.ts';
import { cveListItem, CveListItem } from './catalog.presenter.ts';
import { Timestamp, Uuid } from './schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const TriageStatus = Type.Union(
  TRIAGE_STATUSES.map((s) => Type.Literal(s)),
  { description: 'A triage status; any status may move to any other.' },
);

export const ProjectCveItem = Type.Object({
  ...CveListItem.properties,
  tracker: Type.Object(
    {
      status: Nullable(TriageStatus),
      assignee: Nullable(
        Type.Object(
          { email: Type.String({ description: "The assignee's email." }) },
          { description: 'The assignee, as OpenCVE 3.1 shows one.' },
        ),
      ),
      assigned_at: Nullable(Timestamp),
      updated_at: Nullable(Timestamp),
    },
    { description: 'The triage of this CVE in the project; every field null while untracked.' },
  ),
});

export const CommentItem = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  edited_at: Type.Union([Timestamp, Type.Null()], {
    description: 'When the text was last edited; null if never.',
  }),
  author: Type.Object({
    type: Type.Union([Type.Literal('user'), Type.Literal('token')]),
    name: Type.String({ description: 'The username, or the name of the API token.' }),
  }),
  body: Type.String(),
});

const micros = (d: Date | null) => (d ? toMicrosZ(d) : null);

export function projectCveItem(cve: TrackedCve) {
  return {
    ...cveListItem(cve),
    tracker: {
      status: cve.tracker.status,
      assignee: cve.tracker.assignee === null ? null : { email: cve.tracker.assignee },
      assigned_at: micros(cve.tracker.assigned_at),
      updated_at: micros(cve.tracker.updated_at),
    },
  };
}

export function commentItem(row: {
  id: string;
  created_at: Date;
  edited_at: Date | null;
  author_type: 'user' | 'token';
  author_name: string;
  body: string;
}) {
  return {
    id: row.id,
    created_at: toMicrosZ(row.created_at),
    edited_at: micros(row.edited_at),
    author: { type: row.author_type, name: row.author_name },
    body: row.body,
  };
}
