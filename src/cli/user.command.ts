/**
 * `vulntrack user …`: create and list users, reset a password, turn two-factor sign-in off, disable
 * an account and enable it again, let an account be linked to a single sign-on identity.
 */
import { SYSTEM_ACTOR } from '../domain/actor.ts';
import { serviceCommand } from './command.ts';
import { orNoSuchUser, passwordFromStdin } from './arguments.ts';
import { EXIT, UsageError } from './output.ts';

export const userCreate = serviceCommand({
  name: 'user create',
  description: 'create a user (the first admin, for example)',
  options: [
    { flags: '--username <username>', required: true },
    { flags: '--email <email>', required: true },
    {
      flags: '--password <password>',
      description: 'the password (visible in the process list: prefer --password-stdin)',
    },
    { flags: '--password-stdin', description: 'read the password from standard input' },
    { flags: '--admin', description: 'a site administrator' },
  ],
  args: (o: {
    username: string;
    email: string;
    password?: string;
    passwordStdin?: boolean;
    admin?: boolean;
  }) => {
    if (!o.password === !o.passwordStdin)
      throw new UsageError('give exactly one of --password and --password-stdin');
    const password = o.passwordStdin ? passwordFromStdin() : o.password!;
    return { username: o.username, email: o.email, password, admin: o.admin === true };
  },
  async run(services, args) {
    const user = await services.accounts.createUser({
      username: args.username,
      email: args.email,
      password: args.password,
      isAdmin: args.admin,
    });
    return {
      text: `created user ${user.username}${user.is_admin ? ' (admin)' : ''}`,
      data: { id: user.id, username: user.username, email: user.email, is_admin: user.is_admin },
      exitCode: EXIT.ok,
    };
  },
});

export const userList = serviceCommand({
  name: 'user list',
  description:
    'list the users: username, email, administrator, created, two-factor sign-in on or off, disabled',
  args: () => ({}),
  async run(services) {
    const users = await services.accounts.listUsers();
    const rows = users.map((u) => ({
      username: u.username,
      email: u.email,
      is_admin: u.isAdmin,
      created_at: u.createdAt.toISOString(),
      two_factor: u.twoFactor,
      disabled: u.disabled,
    }));
    const lines = rows.map(
      (r) =>
        `${r.username}  ${r.email}  ${r.is_admin ? 'admin' : 'user '}  created ${r.created_at}  ` +
        `two-factor ${r.two_factor ? 'on' : 'off'}${r.disabled ? '  disabled' : ''}`,
    );
    return { text: lines.length ? lines.join('\n') : 'no users', data: rows, exitCode: EXIT.ok };
  },
});

export const userResetPassword = serviceCommand({
  name: 'user reset-password',
  description:
    "print a one-time link (one hour) where the user sets a new password; or set it at once with --password-stdin (either way the user's sessions end when the password changes)",
  arguments: [{ name: '<username>' }],
  options: [
    { flags: '--password-stdin', description: 'read the new password from standard input and set it now' },
  ],
  args: (username: string, o: { passwordStdin?: boolean }) => ({
    username,
    password: o.passwordStdin ? passwordFromStdin() : undefined,
  }),
  async run(services, args) {
    if (args.password !== undefined) {
      await orNoSuchUser(args.username, services.security.setPassword(args.username, args.password));
      return {
        text: `set a new password for ${args.username}; their sessions have ended`,
        data: { username: args.username, password_set: true },
        exitCode: EXIT.ok,
      };
    }
    const link = await orNoSuchUser(args.username, services.security.passwordResetLink(args.username));
    // The link alone on stdout, like a token: scripts capture it.
    return {
      text: link.url,
      data: { username: args.username, url: link.url, expires_at: link.expiresAt.toISOString() },
      exitCode: EXIT.ok,
      notes: [
        `one-time link for ${args.username}, valid until ${link.expiresAt.toISOString()}; ` +
          'an earlier unused link of theirs no longer works',
      ],
    };
  },
});

export const userDisableTwoFactor = serviceCommand({
  name: 'user disable-2fa',
  description: 'turn two-factor sign-in off for a user locked out of it (lost phone and recovery codes)',
  arguments: [{ name: '<username>' }],
  args: (username: string) => ({ username }),
  async run(services, args) {
    const wasOn = await orNoSuchUser(args.username, services.security.disableTwoFactorOf(args.username));
    return {
      text: wasOn
        ? `two-factor sign-in is off for ${args.username}; their password alone signs in now`
        : `two-factor sign-in was not on for ${args.username}`,
      data: { username: args.username, two_factor: false, was_on: wasOn },
      exitCode: EXIT.ok,
    };
  },
});

export const userDisable = serviceCommand({
  name: 'user disable',
  description:
    'disable an account: the user cannot sign in, their sessions end and the API tokens they created are revoked (audited); they stay members',
  arguments: [{ name: '<username>' }],
  args: (username: string) => ({ username }),
  async run(services, args) {
    const done = await orNoSuchUser(
      args.username,
      services.accounts.disableUser(args.username, SYSTEM_ACTOR),
    );
    const tokens = `${done.tokensRevoked} API token${done.tokensRevoked === 1 ? '' : 's'} of theirs revoked`;
    return {
      text: done.changed
        ? `disabled ${done.username}: their sessions have ended, ${tokens}`
        : `${done.username} was already disabled; ${tokens}`,
      data: {
        username: done.username,
        disabled: true,
        was_disabled: !done.changed,
        tokens_revoked: done.tokensRevoked,
      },
      exitCode: EXIT.ok,
    };
  },
});

export const userEnable = serviceCommand({
  name: 'user enable',
  description: 'enable a disabled account: the user signs in again (revoked tokens stay revoked)',
  arguments: [{ name: '<username>' }],
  args: (username: string) => ({ username }),
  async run(services, args) {
    const done = await orNoSuchUser(args.username, services.accounts.enableUser(args.username));
    return {
      text: done.changed
        ? `enabled ${done.username}: they can sign in again`
        : `${done.username} was not disabled`,
      data: { username: done.username, disabled: false, was_disabled: done.changed },
      exitCode: EXIT.ok,
    };
  },
});

export const userLinkSso = serviceCommand({
  name: 'user link-sso',
  description:
    "let the user's account be linked to their single sign-on identity at their next SSO sign-in with the same email (no password sign-in needed first)",
  arguments: [{ name: '<username>' }],
  args: (username: string) => ({ username }),
  async run(services, args) {
    const user = await orNoSuchUser(args.username, services.accounts.allowSsoLink(args.username));
    return {
      text: `${user.username} can now sign in with single sign-on as ${user.email}: the first such sign-in links the account`,
      data: { username: user.username, email: user.email, sso_link_allowed: true },
      exitCode: EXIT.ok,
    };
  },
});
