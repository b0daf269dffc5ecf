/** The account's display settings (time zone, date format, theme) beside the user's details. */
import { DATE_FORMATS, THEMES } from '../../domain/user.ts';
import { FormProblems, SelectField, Time } from '../kit/fields.tsx';
import type { FormErrors } from '../kit/input.ts';
import { Csrf } from '../kit/layout.tsx';
import type { PageContext } from '../kit/context.ts';
import { AccountPage } from './account-page.tsx';

/** Time zones for the settings field's suggestions (UTC first: not every runtime lists it). */
const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];

const DATE_FORMAT_LABELS: Record<(typeof DATE_FORMATS)[number], string> = {
  iso: 'ISO: 2024-03-29 14:05',
  us: 'US: 03/29/2024 2:05 PM',
  eu: 'European: 29/03/2024 14:05',
};
const THEME_LABELS: Record<(typeof THEMES)[number], string> = {
  auto: 'Like my system',
  light: 'Light',
  dark: 'Dark',
};

/** An instant shown as a preview of the date settings (Log4Shell's disclosure). */
const SAMPLE_DATE = new Date('2021-12-10T10:00:00Z');

/** The settings form's values, as typed. */
export interface SettingsValues {
  time_zone: string;
  date_format: string;
  theme: string;
}

/** The settings page. */
export function SettingsPage({
  ctx,
  values,
  errors,
  notice,
}: {
  ctx: PageContext;
  values: SettingsValues;
  errors?: FormErrors;
  notice?: string | undefined;
}) {
  const tzErrors = errors?.time_zone ?? [];
  return (
    <AccountPage ctx={ctx} title="Account settings" tab="settings" notice={notice}>
      <div class="two-col">
        <section class="card">
          <h2>Display</h2>
          <FormProblems errors={errors} fields={['time_zone', 'date_format', 'theme']} />
          <form method="post" action="/account" class="stacked">
            <Csrf ctx={ctx} />
            <div class={tzErrors.length ? 'field has-error' : 'field'}>
              <label for="f-time_zone">Time zone</label>
              <input
                id="f-time_zone"
                name="time_zone"
                type="text"
                list="time-zones"
                value={values.time_zone}
                required
                maxLength={64}
                autocomplete="off"
                aria-invalid={tzErrors.length ? 'true' : undefined}
                aria-describedby={tzErrors.length ? 'f-time_zone-hint f-time_zone-error' : 'f-time_zone-hint'}
              />
              <datalist id="time-zones">
                {TIME_ZONES.map((zone) => (
                  <option value={zone} />
                ))}
              </datalist>
              <div class="hint" id="f-time_zone-hint">
                An IANA name such as Europe/Paris, America/New_York or UTC.
              </div>
              {tzErrors.length > 0 && (
                <div class="error" id="f-time_zone-error">
                  {tzErrors.join(' ')}
                </div>
              )}
            </div>
            <SelectField
              name="date_format"
              label="Date format"
              value={values.date_format}
              options={DATE_FORMATS.map((value) => ({ value, label: DATE_FORMAT_LABELS[value] }))}
              errors={errors}
            />
            <SelectField
              name="theme"
              label="Theme"
              value={values.theme}
              options={THEMES.map((value) => ({ value, label: THEME_LABELS[value] }))}
              errors={errors}
            />
            <button type="submit" class="btn-primary">
              Save
            </button>
          </form>
        </section>
        <section class="card">
          <h2>Your details</h2>
          <table class="kv">
            <tbody>
              <tr>
                <th>Username</th>
                <td>{ctx.user!.username}</td>
              </tr>
              <tr>
                <th>Email</th>
                <td>{ctx.user!.email}</td>
              </tr>
              <tr>
                <th>Dates look like</th>
                <td id="date-sample">
                  <Time date={SAMPLE_DATE} style={ctx.dateStyle} />{' '}
                  <span class="muted small">(10:00 UTC on 10 December 2021)</span>
                </td>
              </tr>
            </tbody>
          </table>
        </section>
      </div>
    </AccountPage>
  );
}
