import type { WalkRoute } from './walk.ts';

/** The automations pages: `:automation` is a report automation, `:execution` one of its runs. */
const at = '/org/:org/projects/:project/automations';
const report = {
  trigger_type: 'report',
  frequency: 'weekly',
  schedule_weekday: 'tuesday',
  schedule_time: '09:00',
  schedule_timezone: 'UTC',
  'act.0.type': 'generate_report',
};

export const automationRoutes: WalkRoute[] = [
  { method: 'GET', url: at, allowed: 'member' },
  { method: 'GET', url: `${at}/new`, allowed: 'owner' },
  { method: 'POST', url: `${at}/new`, allowed: 'owner', form: { name: 'walk-made', ...report } },
  { method: 'GET', url: `${at}/:automation`, allowed: 'member' },
  { method: 'GET', url: `${at}/:automation/edit`, allowed: 'owner' },
  {
    method: 'POST',
    url: `${at}/:automation/edit`,
    allowed: 'owner',
    form: { name: ':automation', ...report },
  },
  { method: 'GET', url: `${at}/:automation/dry-run`, allowed: 'member' },
  { method: 'POST', url: `${at}/:automation/enabled`, allowed: 'owner', form: { enabled: 'false' } },
  { method: 'POST', url: `${at}/:automation/run`, allowed: 'owner' },
  { method: 'GET', url: `${at}/:automation/executions/:execution`, allowed: 'member' },
  { method: 'POST', url: `${at}/:automation/delete`, allowed: 'owner', last: true },
];
