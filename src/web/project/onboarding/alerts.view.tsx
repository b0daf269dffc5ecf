/** The onboarding's step 3: an alert for new critical or KEV CVEs, the weekly report, the summary. */
import { vendorKeyLabel } from '../../../domain/cpe.ts';
import type { FormErrors } from '../../kit/input.ts';
import { Csrf } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import { orgPath } from '../../kit/paths.ts';
import type { OrgAccess } from '../../kit/access.ts';
import { OnboardingPage } from './onboarding.view.tsx';
import type { ProjectDraft } from './onboarding.form.ts';
import { NO_EMAIL_SERVER } from '../../../domain/notification.ts';

/** Step 3: the alert, the weekly report and a summary of the draft, with "Create project". */
export function AlertsStep({
  ctx,
  access,
  draft,
  errors,
  emailConfigured,
}: {
  ctx: PageContext;
  access: OrgAccess;
  draft: ProjectDraft;
  errors?: FormErrors | undefined;
  /** SMTP_URL is set: without it, email is offered as unavailable, with why. */
  emailConfigured: boolean;
}) {
  const org = access.membership.name;
  const targetErrors = errors?.alert_target ?? [];
  const typeErrors = errors?.alert ?? [];
  return (
    <OnboardingPage ctx={ctx} access={access} step={2} errors={errors} fields={['alert', 'alert_target']}>
      {(errors?.name || errors?.description) && (
        <p>
          <a href={orgPath(org, 'new-project')}>Change the name or description (step 1)</a>
        </p>
      )}
      {(errors?.vendors || errors?.products || errors?.subscriptions) && (
        <p>
          <a href={orgPath(org, 'new-project/vendors')}>Change the vendors and products (step 2)</a>
        </p>
      )}
      <form method="post" action={orgPath(org, 'new-project/alerts')} class="stacked">
        <Csrf ctx={ctx} />
        <section class="card">
          <h2>Alert on new critical or KEV CVEs (optional)</h2>
          <p class="muted">
            When a CVE enters the project, is added to CISA's list of exploited vulnerabilities (KEV) or has
            its CVSS score raised, and is then critical (9 or more, 3.1 or 4.0) or in KEV, vulntrack sends it
            here. You can change it later under the project's Notifications and Automations.
          </p>
          <fieldset class={typeErrors.length ? 'has-error' : undefined}>
            <legend>Send alerts by</legend>
            <div class="checks">
              {(
                [
                  ['', 'No alert'],
                  ['email', 'Email'],
                  ['webhook', 'Webhook'],
                ] as const
              ).map(([value, label]) => (
                <label>
                  <input
                    type="radio"
                    name="alert"
                    value={value}
                    checked={draft.alertType === value}
                    disabled={value === 'email' && !emailConfigured}
                    aria-describedby={value === 'email' && !emailConfigured ? 'no-email-server' : undefined}
                  />{' '}
                  {label}
                </label>
              ))}
            </div>
            {!emailConfigured && (
              <p class="hint" id="no-email-server">
                {NO_EMAIL_SERVER}
              </p>
            )}
            {typeErrors.length > 0 && <div class="error">{typeErrors.join(' ')}</div>}
          </fieldset>
          <div class={targetErrors.length ? 'field has-error' : 'field'}>
            <label for="f-alert_target">Email address or webhook URL</label>
            <input
              id="f-alert_target"
              name="alert_target"
              type="text"
              value={draft.alertTarget}
              maxLength={2000}
              autocomplete="off"
              placeholder="security@example.com or https://hooks.example.com/vulntrack"
              aria-invalid={targetErrors.length ? 'true' : undefined}
              aria-describedby={`f-alert_target-hint${targetErrors.length ? ' f-alert_target-error' : ''}`}
            />
            <div class="hint" id="f-alert_target-hint">
              An address outside {org} gets an email to confirm it first. A webhook receives signed JSON
              (Standard Webhooks); its signing secret is on the notification's page.
            </div>
            {targetErrors.length > 0 && (
              <div class="error" id="f-alert_target-error">
                {targetErrors.join(' ')}
              </div>
            )}
          </div>
        </section>
        <section class="card">
          <h2>Weekly report</h2>
          <label class="check">
            <input type="checkbox" name="weekly_report" value="on" checked={draft.weeklyReport} /> Make a
            report of the project's new and changed CVEs every Monday at 08:00 ({ctx.dateStyle.timeZone}),
            sent with the alert when there is one
          </label>
        </section>
        <section class="card">
          <h2>Summary</h2>
          <dl class="summary-list">
            <dt>Name</dt>
            <dd>{draft.name}</dd>
            <dt>Vendors and products</dt>
            <dd>
              {draft.subscriptions.length === 0 ? (
                <span class="muted">none yet</span>
              ) : (
                draft.subscriptions.map((k) => <span class="chip">{vendorKeyLabel(k)}</span>)
              )}
            </dd>
          </dl>
          <div class="form-actions">
            <a href={orgPath(org, 'new-project/vendors')}>← Back</a>
            <button type="submit" class="btn-primary">
              Create project
            </button>
          </div>
        </section>
      </form>
    </OnboardingPage>
  );
}
