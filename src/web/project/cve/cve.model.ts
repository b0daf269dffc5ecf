/** What the project CVE page's views and handlers share: the page's data and a refused form's values. */
import type { CommentRights, CommentRow } from '../../../services/tracker-comments.service.ts';
import type { TrackedCve } from '../../../services/project-cves.service.ts';
import type { WebServices } from '../../kit/context.ts';

/** What the form had, to show again with its errors. */
export interface Forms {
  triage?: { status: string; assignee: string };
  tags?: string;
  comment?: string;
  /** The comment being edited, and its text. */
  edit?: { id: string; body: string };
}

/** The triage part of the page (a CVE in the project): its entry, members, comments, rights, tags. */
export interface Triage {
  tracked: TrackedCve;
  members: { email: string; username: string | null }[];
  comments: { count: number; items: CommentRow[] };
  rights: (comment: CommentRow) => CommentRights;
  tags: string[];
}

/** The catalog CVE the page is about. */
export type Cve = Awaited<ReturnType<WebServices['catalog']['getCve']>>;
