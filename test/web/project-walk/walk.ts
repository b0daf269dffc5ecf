/** A page or form of a tenancy walk. */
export interface WalkRoute {
  method: 'GET' | 'POST';
  /** As the app's route tree writes it, e.g. `/org/:org/projects/:project/cves`. */
  url: string;
  /**
   * Who may: `owner` (a member gets 403), `member` (any member of the organization: reads and
   * triage).
   */
  allowed: 'owner' | 'member';
  /** A form that succeeds for the owner (placeholders are replaced as in the URL). */
  form?: Record<string, string | string[]>;
  /** Files sent with the form (multipart, as a browser sends an `<input type=file>`). */
  files?: Record<string, { name: string; content: string }>;
  /**
   * Walked last by the owner, in this order (a delete, a rename): later routes still need what it
   * removes.
   */
  last?: boolean;
}

/** Ids of what the walk's fixture made, by placeholder (`:notification`, `:automation`, …). */
export type WalkIds = Record<string, string>;
