/** Names users choose: organization slugs, usernames, project names, emails. */
export const ORGANIZATION_NAME = /^[a-zA-Z0-9-]{1,100}$/;
export const USERNAME = /^[a-zA-Z0-9_.@+-]{1,150}$/;
export const PROJECT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9 _.-]{0,99}$/;
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
