/** The server's users for a server administrator: who is an administrator, two-factor, disabled; Disable and Enable. */
import type { UserSummary } from '../../domain/user.ts';
import { FormProblems, Notice, Time } from '../kit/fields.tsx';
import type { FormErrors } from '../kit/input.ts';
import { Csrf, Layout } from '../kit/layout.tsx';
import type { PageContext } from '../kit/context.ts';

/** Where a user's Disable or Enable form posts. */
export const userActionPath = (username: string, action: 'disable' | 'enable') =>
  `/admin/users/${encodeURIComponent(username)}/${action}`;

function UserRowView({ ctx, user }: { ctx: PageContext; user: UserSummary }) {
  const self = user.username === ctx.user?.username;
  return (
    <tr class={user.disabled ? 'muted' : undefined}>
      <td>
        {user.username}
        {self && <span class="muted small"> (you)</span>}
        <div class="muted small">{user.email}</div>
      </td>
      <td>{user.isAdmin ? 'Administrator' : 'User'}</td>
      <td>{user.twoFactor ? 'On' : 'Off'}</td>
      <td>{user.disabled ? 'Disabled' : 'Active'}</td>
      <td>
        <Time date={user.createdAt} style={ctx.dateStyle} withTime={false} />
      </td>
      <td>
        {self ? (
          <span class="muted small">–</span>
        ) : (
          <form
            method="post"
            action={userActionPath(user.username, user.disabled ? 'enable' : 'disable')}
            class="inline-form"
          >
            <Csrf ctx={ctx} />
            {user.disabled ? (
              <button type="submit" class="btn-small">
                Enable
              </button>
            ) : (
              <button type="submit" class="btn-small btn-danger" aria-label={`Disable ${user.username}`}>
                Disable
              </button>
            )}
          </form>
        )}
      </td>
    </tr>
  );
}

/** The users page, with a fixed notice after a change or the refusal of one. */
export function UsersPage({
  ctx,
  users,
  notice,
  errors,
}: {
  ctx: PageContext;
  users: UserSummary[];
  notice?: string | undefined;
  errors?: FormErrors | undefined;
}) {
  return (
    <Layout ctx={ctx} title="Users">
      <div class="page-head">
        <h1>Users</h1>
      </div>
      {notice && <Notice>{notice}</Notice>}
      <FormProblems errors={errors} />
      <p>
        A disabled user cannot sign in (web and API v1), every session of theirs ends at once, and the API
        tokens they created in their organizations are revoked, each recorded in that organization's audit
        log. They stay members of their organizations. Enabling the account lets them sign in again; revoked
        tokens stay revoked.
      </p>
      <div class="table-wrap">
        <table class="data">
          <caption class="skip-link">The users of this server</caption>
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">Two-factor</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <UserRowView ctx={ctx} user={user} />
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}
