/**
 * `/org/<org>/tokens` (owners): the organization's API tokens. Creating one answers with the page
 * showing the secret once (no redirect: the secret is never stored, not even in the session), with a
 * copy button and a ready `curl` line; the list shows mode, scopes, who created each, when, its last
 * use and whether it was revoked; revoking asks first.
 */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { SCOPES } from '../../domain/scopes.ts';
import type { TokenRecord } from '../../services/token.service.ts';
import { Field, FormProblems, SelectField, Time, CopyField } from '../kit/fields.tsx';
import { formErrorsOf, formStatusOf, type FormErrors, field, fields } from '../kit/input.ts';
import { Csrf, sendPage } from '../kit/layout.tsx';
import type { PageContext, WebOptions } from '../kit/context.ts';
import { doneNotice, OrgPage } from './org-page.tsx';
import { orgPath } from '../kit/paths.ts';
import { ownerAccess, type OrgAccess } from '../kit/access.ts';
import { needsProject, PROJECT_PLACEHOLDER, tryItPath } from './token-try-it.ts';

interface TokenForm {
  name: string;
  description: string;
  mode: string;
  scopes: string[];
}

const EMPTY: TokenForm = { name: '', description: '', mode: 'read', scopes: [] };

function CreatedToken({ token, curl }: { token: string; curl: string }) {
  return (
    <section class="card notice ok" role="status">
      <h2>Your new token</h2>
      <p>Copy it now: it is shown only this once. Anyone who has it can use the API as this organization.</p>
      <CopyField id="new-token" label="Token" value={token} />
      <p class="small">Try it (a call its scopes allow):</p>
      <CopyField id="new-token-curl" label="curl command" value={curl} />
      {needsProject(curl) && (
        <p class="small muted">
          Put one of the organization's project names in place of <code>{PROJECT_PLACEHOLDER}</code> once it
          has one.
        </p>
      )}
    </section>
  );
}

function TokensPage({
  ctx,
  access,
  tokens,
  form = EMPTY,
  errors,
  created,
  done,
}: {
  ctx: PageContext;
  access: OrgAccess;
  tokens: TokenRecord[];
  form?: TokenForm;
  errors?: FormErrors | undefined;
  created?: { token: string; curl: string } | undefined;
  done?: string | undefined;
}) {
  const org = access.membership.name;
  const scopeErrors = errors?.scopes ?? [];
  return (
    <OrgPage ctx={ctx} access={access} tab="tokens" title="API tokens" done={done}>
      {created && <CreatedToken {...created} />}
      <section class="card">
        <h2>Create a token</h2>
        <FormProblems errors={errors} fields={['name', 'description', 'mode', 'scopes']} />
        <form method="post" action={orgPath(org, 'tokens')} class="stacked">
          <Csrf ctx={ctx} />
          <Field
            name="name"
            label="Name"
            value={form.name}
            required
            maxlength={100}
            errors={errors}
            hint="What uses it, e.g. ci-scanner."
          />
          <Field
            name="description"
            label="Description (optional)"
            value={form.description}
            maxlength={1000}
            errors={errors}
          />
          <SelectField
            name="mode"
            label="Mode"
            value={form.mode}
            options={[
              { value: 'read', label: 'Read only' },
              { value: 'write', label: 'Read and write' },
            ]}
            errors={errors}
          />
          <fieldset class={scopeErrors.length ? 'has-error' : undefined}>
            <legend>Scopes</legend>
            <p class="hint small">
              None checked: everything its mode allows. A write scope includes reading its area.
            </p>
            <div class="checks">
              {SCOPES.map((scope) => (
                <label>
                  <input type="checkbox" name="scopes" value={scope} checked={form.scopes.includes(scope)} />{' '}
                  {scope}
                </label>
              ))}
            </div>
            {scopeErrors.length > 0 && <div class="error">{scopeErrors.join(' ')}</div>}
          </fieldset>
          <button type="submit" class="btn-primary">
            Create token
          </button>
        </form>
      </section>
      <div class="table-wrap">
        <table class="data">
          <caption class="skip-link">API tokens of {org}</caption>
          <thead>
            <tr>
              <th scope="col">Token</th>
              <th scope="col">Mode</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="skip-link">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.length === 0 && (
              <tr>
                <td colSpan={8} class="muted">
                  No tokens yet.
                </td>
              </tr>
            )}
            {tokens.map((t) => (
              <tr>
                <td>
                  {t.name}
                  <div class="muted small mono">{t.tokenId}</div>
                  {t.description && <div class="small">{t.description}</div>}
                </td>
                <td>{t.mode}</td>
                <td>
                  {t.scopes.length ? (
                    t.scopes.map((s) => <span class="chip">{s}</span>)
                  ) : (
                    <span class="muted small">all of its mode</span>
                  )}
                </td>
                <td>{t.createdByName ?? <span class="muted">command line</span>}</td>
                <td class="nowrap">
                  <Time date={t.createdAt} style={ctx.dateStyle} />
                </td>
                <td class="nowrap">
                  {t.lastUsedAt ? (
                    <Time date={t.lastUsedAt} style={ctx.dateStyle} />
                  ) : (
                    <span class="muted">never</span>
                  )}
                </td>
                <td>
                  {t.revokedAt ? (
                    <span class="badge neutral" title={t.revokedAt.toISOString()}>
                      Revoked
                    </span>
                  ) : (
                    <span class="badge ok">Active</span>
                  )}
                </td>
                <td>
                  {!t.revokedAt && (
                    <form
                      method="post"
                      action={orgPath(org, `tokens/${t.tokenId}/revoke`)}
                      class="inline-form"
                      data-confirm={`Revoke the token ${t.name}? Whatever uses it stops working.`}
                    >
                      <Csrf ctx={ctx} />
                      <button type="submit" class="btn-small btn-danger">
                        Revoke
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </OrgPage>
  );
}

export const tokenRoutes: FastifyPluginAsync<WebOptions> = async (app, { services }) => {
  const baseUrl = services.config.baseUrl;

  app.get<{ Params: { org: string } }>('/org/:org/tokens', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const tokens = await services.tokens.list(access.membership.organizationId);
    return sendPage(
      reply,
      <TokensPage ctx={request.page} access={access} tokens={tokens} done={doneNotice(request.query)} />,
    );
  });

  app.post<{ Params: { org: string } }>('/org/:org/tokens', async (request, reply) => {
    const access = await ownerAccess(services, request);
    const orgId = access.membership.organizationId;
    const form: TokenForm = {
      name: field(request.body, 'name').trim(),
      description: field(request.body, 'description').trim(),
      mode: field(request.body, 'mode'),
      scopes: fields(request.body, 'scopes'),
    };
    try {
      const mode = form.mode === 'write' ? 'write' : form.mode === 'read' ? 'read' : undefined;
      if (!mode)
        throw new AppError('validation_error', undefined, { mode: ['Choose read only, or read and write.'] });
      const { token } = await services.tokens.create(orgId, { ...form, mode }, access.actor);
      const base = baseUrl ?? `${request.protocol}://${request.host}`;
      // The first project (by name) fills a project-level path, for a token scoped to projects' parts.
      const { items } = await services.projects.list(orgId, { page: 1, pageSize: 1 });
      const path = tryItPath(access.membership.name, form.scopes, items[0]?.name);
      const curl = `curl -H "Authorization: Bearer ${token}" ${base}${path}`;
      const tokens = await services.tokens.list(orgId);
      return sendPage(
        reply,
        <TokensPage ctx={request.page} access={access} tokens={tokens} created={{ token, curl }} />,
        201,
      );
    } catch (err) {
      const errors = formErrorsOf(err);
      const tokens = await services.tokens.list(orgId);
      return sendPage(
        reply,
        <TokensPage ctx={request.page} access={access} tokens={tokens} form={form} errors={errors} />,
        formStatusOf(err, reply),
      );
    }
  });

  app.post<{ Params: { org: string; tokenId: string } }>(
    '/org/:org/tokens/:tokenId/revoke',
    async (request, reply) => {
      const access = await ownerAccess(services, request);
      const { tokenId } = request.params;
      if (!/^[A-Za-z0-9]{12}$/.test(tokenId)) throw new AppError('not_found');
      await services.tokens.revoke(access.membership.organizationId, tokenId, access.actor);
      return reply.redirect(`${orgPath(access.membership.name, 'tokens')}?done=revoked`, 303);
    },
  );
};
