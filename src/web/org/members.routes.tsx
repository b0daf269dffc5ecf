/**
 * `/org/<org>/members`: members and pending invitations. Owners invite (email + role), change roles,
 * remove members, resend and withdraw invitations; the last owner can be neither demoted nor removed
 * (the service says so, shown at the top). Without SMTP_URL, the owner who invites (or resends) gets
 * the invitation link on the answer to copy. It is never stored (only its hash is): the page's
 * forms hand the links it shows back (`shown`), so the next invitation's answer lists the earlier
 * links that still work beside the new one.
 */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { MemberRow } from '../../domain/member.ts';
import type { InvitationDelivery } from '../../services/member.service.ts';
import { Field, FormProblems, Notice, SelectField, Time, CopyField } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, field, fields, pageNumber } from '../kit/input.ts';
import { Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { doneNotice, OrgPage } from './org-page.tsx';
import { Pager } from '../kit/paging.tsx';
import { orgPath } from '../kit/paths.ts';
import { orgAccess, ownerAccess, type OrgAccess } from '../kit/access.ts';

const PAGE_SIZE = 50;
const ROLES = [
  { value: 'member', label: 'Member' },
  { value: 'owner', label: 'Owner' },
];

interface MembersView {
  ctx: PageContext;
  access: OrgAccess;
  members: { count: number; items: MemberRow[] };
  page: number;
  emailConfigured: boolean;
  done?: string | undefined;
  invite?: { email: string; role: string };
  errors?: FormErrors | undefined;
  /** The link of an invitation just made or resent, when it was not emailed. */
  link?: { email: string; delivery: Exclude<InvitationDelivery, { email: 'sent' }> } | undefined;
  /** Links shown earlier on this page that still work (the forms hand them back as `shown`). */
  earlier?: { email: string; link: string }[] | undefined;
}

function InvitationLink({
  link,
  earlier = [],
}: {
  link: NonNullable<MembersView['link']>;
  earlier?: MembersView['earlier'];
}) {
  const { delivery } = link;
  const others = earlier.filter((e) => e.link !== delivery.link);
  return (
    <div class="notice warn" role="status">
      <p>
        {delivery.email === 'failed'
          ? `The invitation email to ${link.email} could not be sent (${delivery.error}).`
          : `Email is not configured on this server (SMTP_URL), so no email was sent to ${link.email}.`}{' '}
        Send them this link yourself. It is shown only on this page, works once and expires in 14 days.
      </p>
      <CopyField id="invitation-link" label="Invitation link" value={delivery.link} />
      {others.length > 0 && (
        <>
          <p>Links made earlier on this page, not used yet:</p>
          {others.map((e, i) => (
            <CopyField id={`invitation-link-${i + 1}`} label={`For ${e.email}`} value={e.link} />
          ))}
        </>
      )}
    </div>
  );
}

/** The invitation links this page shows, handed back by its forms so the next answer shows them too. */
function ShownLinks({ view }: { view: MembersView }) {
  const links = [view.link?.delivery.link, ...(view.earlier ?? []).map((e) => e.link)];
  return <>{[...new Set(links)].map((link) => link && <input type="hidden" name="shown" value={link} />)}</>;
}

function MemberRowView({ view, m }: { view: MembersView; m: MemberRow }) {
  const { ctx, access } = view;
  const org = access.membership.name;
  const pending = m.date_joined === null;
  const base = orgPath(org, `members/${m.id}`);
  return (
    <tr>
      <td>
        {m.username ?? <span class="muted">–</span>}
        <div class="muted small">{m.email}</div>
      </td>
      <td>
        {access.isOwner ? (
          <form method="post" action={`${base}/role`} class="inline-form row">
            <Csrf ctx={ctx} />
            <label for={`role-${m.id}`} class="skip-link">
              Role of {m.email}
            </label>
            <select id={`role-${m.id}`} name="role" data-autosubmit>
              {ROLES.map((r) => (
                <option value={r.value} selected={r.value === m.role}>
                  {r.label}
                </option>
              ))}
            </select>
            <button type="submit" class="btn-small">
              Save
            </button>
          </form>
        ) : (
          m.role
        )}
      </td>
      <td>{pending ? <span class="badge neutral">Invited</span> : <span class="badge ok">Joined</span>}</td>
      <td class="nowrap">
        {pending ? (
          <Time date={m.date_invited} style={ctx.dateStyle} />
        ) : (
          <Time date={m.date_joined} style={ctx.dateStyle} />
        )}
      </td>
      {access.isOwner && (
        <td class="nowrap">
          {pending && (
            <form method="post" action={`${base}/resend`} class="inline-form">
              <Csrf ctx={ctx} />
              <ShownLinks view={view} />
              <button type="submit" class="btn-small">
                Resend
              </button>
            </form>
          )}{' '}
          <form
            method="post"
            action={`${base}/remove`}
            class="inline-form"
            data-confirm={
              pending
                ? `Withdraw the invitation of ${m.email}?`
                : `Remove ${m.email} from ${org}? The API tokens they created stop working.`
            }
          >
            <Csrf ctx={ctx} />
            <button type="submit" class="btn-small btn-danger">
              {pending ? 'Withdraw' : 'Remove'}
            </button>
          </form>
        </td>
      )}
    </tr>
  );
}

function MembersPage(view: MembersView) {
  const { ctx, access, members } = view;
  const org = access.membership.name;
  const invite = view.invite ?? { email: '', role: 'member' };
  return (
    <OrgPage ctx={ctx} access={access} tab="members" title="Members" done={view.done}>
      {view.link && <InvitationLink link={view.link} earlier={view.earlier} />}
      <FormProblems errors={view.errors} fields={['email', 'role']} />
      {access.isOwner && (
        <section class="card">
          <h2>Invite someone</h2>
          {!view.emailConfigured && (
            <Notice kind="warn">
              Email is not configured on this server (SMTP_URL): after inviting, copy the invitation link
              shown here and send it yourself.
            </Notice>
          )}
          <form method="post" action={orgPath(org, 'members')} class="filters">
            <Csrf ctx={ctx} />
            <ShownLinks view={view} />
            <Field
              name="email"
              label="Email"
              type="email"
              value={invite.email}
              required
              autocomplete="off"
              errors={view.errors}
            />
            <SelectField name="role" label="Role" value={invite.role} options={ROLES} errors={view.errors} />
            <button type="submit" class="btn-primary">
              Invite
            </button>
          </form>
        </section>
      )}
      <div class="table-wrap">
        <table class="data">
          <caption class="skip-link">Members and invitations of {org}</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Since</th>
              {access.isOwner && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {members.items.map((m) => (
              <MemberRowView view={view} m={m} />
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        path={orgPath(org, 'members')}
        query={{}}
        page={view.page}
        pageSize={PAGE_SIZE}
        count={members.count}
      />
    </OrgPage>
  );
}

export const memberRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const list = (access: OrgAccess, page = 1) =>
    services.members.list(access.membership.organizationId, { page, pageSize: PAGE_SIZE });

  app.get<{ Params: { org: string } }>('/org/:org/members', async (request, reply) => {
    const access = await orgAccess(services, request);
    const page = pageNumber(request.query);
    return sendPage(
      reply,
      <MembersPage
        ctx={request.page}
        access={access}
        members={await list(access, page)}
        page={page}
        emailConfigured={services.members.emailConfigured}
        done={doneNotice(request.query)}
      />,
    );
  });

  /** The members page after a refused change: the errors at the top (or beside the invite form), with `status`. */
  const refused = async (
    reply: Parameters<typeof sendPage>[0],
    ctx: PageContext,
    access: OrgAccess,
    errors: FormErrors,
    invite?: { email: string; role: string },
    status = 400,
  ) =>
    sendPage(
      reply,
      <MembersPage
        ctx={ctx}
        access={access}
        members={await list(access)}
        page={1}
        emailConfigured={services.members.emailConfigured}
        invite={invite}
        // Beside the invite form when it was the invitation; else all at the top.
        errors={invite ? errors : { _form: Object.values(errors).flat() }}
      />,
      status,
    );

  app.post<{ Params: { org: string } }>('/org/:org/members', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const invite = { email: field(request.body, 'email').trim(), role: field(request.body, 'role') };
    const role = invite.role === 'owner' || invite.role === 'member' ? invite.role : undefined;
    if (!role) return refused(reply, request.page, access, { role: ['Choose owner or member.'] }, invite);
    let invited;
    try {
      invited = await services.members.invite(
        access.membership.organizationId,
        { email: invite.email, role },
        access.actor,
      );
    } catch (err) {
      return refused(reply, request.page, access, formErrorsOf(err), invite, formStatusOf(err, reply));
    }
    const org = access.membership.name;
    if (invited.invitation.email === 'sent')
      return reply.redirect(`${orgPath(org, 'members')}?done=invited`, 303);
    const earlier = await services.members.pendingInvitationLinks(
      access.membership.organizationId,
      fields(request.body, 'shown'),
    );
    // The link is shown on this answer only (no redirect: it is never stored, not even in the session).
    return sendPage(
      reply,
      <MembersPage
        ctx={request.page}
        access={access}
        members={await list(access)}
        page={1}
        emailConfigured={services.members.emailConfigured}
        link={{ email: invited.email, delivery: invited.invitation }}
        earlier={earlier}
      />,
      201,
    );
  });

  app.post<{ Params: { org: string; id: string } }>(
    '/org/:org/members/:id/resend',
    async (request, reply) => {
      const access = await ownerAccess(services, request);
      const id = validId(request.params.id);
      let resent;
      try {
        resent = await services.members.resendInvitation(access.membership.organizationId, id, access.actor);
      } catch (err) {
        return refused(reply, request.page, access, formErrorsOf(err), undefined, formStatusOf(err, reply));
      }
      if (resent.invitation.email === 'sent')
        return reply.redirect(`${orgPath(access.membership.name, 'members')}?done=resent`, 303);
      // The resent invitation's earlier link no longer works (a resend replaces it): dropped below.
      const earlier = await services.members.pendingInvitationLinks(
        access.membership.organizationId,
        fields(request.body, 'shown'),
      );
      return sendPage(
        reply,
        <MembersPage
          ctx={request.page}
          access={access}
          members={await list(access)}
          page={1}
          emailConfigured={services.members.emailConfigured}
          link={{ email: resent.email, delivery: resent.invitation }}
          earlier={earlier}
        />,
      );
    },
  );

  app.post<{ Params: { org: string; id: string } }>('/org/:org/members/:id/role', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const id = validId(request.params.id);
    const role = field(request.body, 'role');
    if (role !== 'owner' && role !== 'member')
      return refused(reply, request.page, access, { _form: ['Choose owner or member.'] });
    try {
      await services.members.changeRole(access.membership.organizationId, id, role, access.actor);
    } catch (err) {
      return refused(reply, request.page, access, formErrorsOf(err), undefined, formStatusOf(err, reply));
    }
    // Demoting oneself: the members page is still readable, the owner tabs are gone.
    return reply.redirect(`${orgPath(access.membership.name, 'members')}?done=role`, 303);
  });

  app.post<{ Params: { org: string; id: string } }>(
    '/org/:org/members/:id/remove',
    async (request, reply) => {
      const access = await ownerAccess(services, request);
      const id = validId(request.params.id);
      let removed: MemberRow | undefined;
      try {
        removed = await services.members.remove(access.membership.organizationId, id, access.actor);
      } catch (err) {
        return refused(reply, request.page, access, formErrorsOf(err), undefined, formStatusOf(err, reply));
      }
      if (removed.user_id === access.actor.id) return reply.redirect('/', 303);
      const done = removed.date_joined === null ? 'withdrawn' : 'removed';
      return reply.redirect(`${orgPath(access.membership.name, 'members')}?done=${done}`, 303);
    },
  );
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A member id from the path: a malformed one is not found (never a database error). */
function validId(id: string): string {
  if (!UUID.test(id)) throw new AppError('not_found');
  return id;
}
