/** Names users choose: organization slugs, usernames, project names, emails. */
export const ORGANIZATION_NAME = /^[a-zA-Z0-9-]{1,100}$/;
export const USERNAME = /^[a-zA-Z0-9_.@+-]{1,150}$/;
export const PROJECT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9 _.-]{0,99}$/;
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * Names no organization, project, notification or automation may take, in any case: they are path
 * segments of pages (`…/projects/add`, `…/settings`). OpenCVE reserves `add`; the others are the
 * segments the web UI's routes use beside a name.
 */
export const RESERVED_NAMES: readonly string[] = [
  'add',
  'new',
  'settings',
  'members',
  'tokens',
  'audit',
  'invitations',
  'projects',
  'views',
  'edit',
  'delete',
];

const reserved = new Set(RESERVED_NAMES);

/** Whether `name` is reserved (compared in lower case). */
export const isReservedName = (name: string) => reserved.has(name.toLowerCase());

/**
 * The `details` sentences of name problems, as OpenCVE 3.1 words them (docs/api-v2.md, "OpenCVE
 * 3.1 compatibility"). Notifications and automations share theirs.
 */
export const NAME_MESSAGES = {
  organization: {
    reserved: 'This organization is reserved.',
    taken: 'This organization name is not available.',
  },
  project: { reserved: 'This project is reserved.', taken: 'This project already exists.' },
  notification: { reserved: 'This name is reserved.', taken: 'This name already exists.' },
  automation: { reserved: 'This name is reserved.', taken: 'This name already exists.' },
} as const;
