/**
 * The forms of a project's CVE page read into service input: the triage (a status from the list or
 * none, an assignee's email or nobody) and the user's own tags (typed as one line).
 */
import { TRIAGE_STATUSES, type TriageStatus } from '../../../domain/triage.ts';
import type { TrackerPatch } from '../../../services/tracker.service.ts';
import { field, type FormErrors } from '../../kit/input.ts';

/** The triage form read: the values as typed, and the move, or why it is refused. */
export interface TriageForm {
  values: { status: string; assignee: string };
  patch: TrackerPatch;
  errors: FormErrors | undefined;
}

/**
 * The triage form of a body: an empty status or assignee clears it (the form always sends both); a
 * status not in the list is refused under `status`. Whether the assignee is a member is the
 * service's to say.
 */
export function readTriageForm(body: unknown): TriageForm {
  const status = field(body, 'status');
  const assignee = field(body, 'assignee').trim();
  const known = status === '' || (TRIAGE_STATUSES as readonly string[]).includes(status);
  return {
    values: { status, assignee },
    patch: {
      status: status === '' || !known ? null : (status as TriageStatus),
      assignee: assignee === '' ? null : assignee,
    },
    errors: known ? undefined : { status: ['Choose a status from the list.'] },
  };
}

/** Tags as typed: separated by blanks or commas. */
export const tagsOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);
