import { describe, expect, it } from 'vitest';
import type { AutomationRow } from '../../../domain/automation.ts';
import {
  builderOfConfiguration,
  configurationOf,
  EMPTY_FORM,
  formOfAutomation,
  formOfBody,
  inputOf,
  placeConfigurationErrors,
  prettyJson,
  readBuilderPost,
} from './builder.form.ts';

/** A configuration with every kind of condition, nested groups and every action. */
const NESTED = {
  triggers: ['cve_enters_project', 'cvss_increased'],
  conditions: {
    operator: 'AND',
    children: [
      { type: 'vendor_equals', value: 'apache' },
      {
        operator: 'OR',
        children: [
          { type: 'cvss_gte', value: { version: '4.0', value: 9.5 } },
          { operator: 'AND', children: [{ type: 'kev_present' }, { type: 'epss_gte', value: 0.2 }] },
          { type: 'kev_present', value: false },
        ],
      },
      { type: 'cve_status', value: 'no_status' },
      { type: 'cve_newer_than', value: 30 },
      { type: 'cve_unassigned' },
    ],
  },
  actions: [
    { type: 'send_notification', value: 'hook' },
    { type: 'assign_user', value: 'someone@example.org' },
    { type: 'generate_report' },
  ],
};

describe('formOfBody', () => {
  it("builds the condition tree from the builder's field names, in the order of their numbers", () => {
    const form = formOfBody({
      'cond.op': 'OR',
      'cond.10.type': 'cve_unassigned',
      'cond.2.type': 'vendor_equals',
      'cond.2.value': '  redhat ',
      'cond.3.op': 'AND',
      'cond.3.0.type': 'cvss_gte',
      'cond.3.0.version': '4.0',
      'cond.3.0.value': '7',
      'cond.3.1.type': 'kev_present',
    });
    expect(form.conditions).toEqual({
      kind: 'group',
      operator: 'OR',
      children: [
        { kind: 'leaf', type: 'vendor_equals', value: 'redhat', version: '3.1' },
        {
          kind: 'group',
          operator: 'AND',
          children: [
            { kind: 'leaf', type: 'cvss_gte', value: '7', version: '4.0' },
            { kind: 'leaf', type: 'kev_present', value: '', version: '3.1' },
          ],
        },
        { kind: 'leaf', type: 'cve_unassigned', value: '', version: '3.1' },
      ],
    });
  });

  it('leaves out blank rows (the spare ones of a form without script) and names it does not know', () => {
    const form = formOfBody({
      'cond.op': 'AND',
      'cond.0.type': '',
      'cond.0.value': '  ',
      'cond.0.version': '3.1',
      'cond.1.type': 'epss_gte',
      'cond.1.value': '0.5',
      'cond.1.colour': 'red',
      'act.0.type': '',
      'act.0.value': 'ignored',
      'act.1.type': 'send_notification',
      'act.1.value': ' hook ',
      'act.x.type': 'generate_report',
    });
    expect(form.conditions.children).toEqual([
      { kind: 'leaf', type: 'epss_gte', value: '0.5', version: '3.1' },
    ]);
    expect(form.actions).toEqual([{ type: 'send_notification', value: 'hook' }]);
  });

  it('ignores condition fields nested deeper than six groups or numbered from 100', () => {
    const form = formOfBody({
      'cond.0.0.0.0.0.0.0.type': 'cve_unassigned',
      'cond.100.type': 'cve_unassigned',
      'cond.99.type': 'kev_present',
    });
    expect(form.conditions.children).toEqual([
      { kind: 'leaf', type: 'kev_present', value: '', version: '3.1' },
    ]);
  });

  it('reads the top fields trimmed, a checked box as enabled, and the triggers sent once or many times', () => {
    const form = formOfBody({
      name: ' nightly ',
      is_enabled: 'on',
      trigger_type: 'report',
      schedule_time: ' 09:30 ',
      triggers: ['kev_added', 'cvss_increased'],
    });
    expect(form).toMatchObject({
      name: 'nightly',
      is_enabled: true,
      trigger_type: 'report',
      schedule_time: '09:30',
      triggers: ['kev_added', 'cvss_increased'],
    });
    expect(formOfBody({ triggers: 'kev_added' }).triggers).toEqual(['kev_added']);
    expect(formOfBody({}).is_enabled).toBe(false);
  });
});

describe('configurationOf', () => {
  it('writes each condition as API v2 takes it: numbers as numbers, KEV yes/no, no value where none is taken', () => {
    const form = formOfBody({
      'cond.op': 'AND',
      'cond.0.type': 'cvss_gte',
      'cond.0.version': '3.1',
      'cond.0.value': '9.8',
      'cond.1.type': 'kev_present',
      'cond.1.value': 'No',
      'cond.2.type': 'kev_present',
      'cond.2.value': 'yes',
      'cond.3.type': 'cve_unassigned',
      'cond.3.value': 'whatever',
      'cond.4.type': 'cve_newer_than',
      'cond.4.value': 'soon',
      'act.0.type': 'generate_report',
      'act.0.value': 'ignored',
      triggers: 'kev_added',
      trigger_type: 'alert',
    });
    expect(configurationOf(form)).toEqual({
      triggers: ['kev_added'],
      conditions: {
        operator: 'AND',
        children: [
          { type: 'cvss_gte', value: { version: '3.1', value: 9.8 } },
          { type: 'kev_present', value: false },
          { type: 'kev_present' },
          { type: 'cve_unassigned' },
          // Not a number: left as typed, for the service to say what it needs.
          { type: 'cve_newer_than', value: 'soon' },
        ],
      },
      actions: [{ type: 'generate_report' }],
    });
  });

  it('leaves the triggers out of a report automation', () => {
    const form = { ...EMPTY_FORM, trigger_type: 'report', triggers: ['kev_added'] };
    expect(configurationOf(form)).not.toHaveProperty('triggers');
  });
});

describe('inputOf', () => {
  const configuration = { actions: [] };

  it('sends the schedule of a report automation, the weekday only when weekly', () => {
    const weekly = { ...EMPTY_FORM, trigger_type: 'report', frequency: 'weekly', schedule_weekday: 'friday' };
    expect(inputOf(weekly, configuration)).toMatchObject({
      frequency: 'weekly',
      schedule_time: '08:00',
      schedule_timezone: 'UTC',
      schedule_weekday: 'friday',
    });
    expect(inputOf({ ...weekly, frequency: 'daily' }, configuration).schedule_weekday).toBeUndefined();
  });

  it('sends no schedule for an alert automation, whatever the hidden fields hold', () => {
    const input = inputOf({ ...EMPTY_FORM, trigger_type: 'alert' }, configuration);
    expect([input.frequency, input.schedule_time, input.schedule_timezone, input.schedule_weekday]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('builderOfConfiguration', () => {
  it('reads a nested configuration back into the builder, and writing it again gives the same JSON', () => {
    const builder = builderOfConfiguration(NESTED)!;
    expect(builder.conditions.children[1]).toMatchObject({ kind: 'group', operator: 'OR' });
    expect(configurationOf({ ...EMPTY_FORM, ...builder })).toEqual(NESTED);
  });

  it('refuses a shape the builder cannot show (so the JSON view keeps it)', () => {
    expect(builderOfConfiguration([])).toBeUndefined();
    expect(builderOfConfiguration({ actions: 3 })).toBeUndefined();
    expect(
      builderOfConfiguration({ conditions: { operator: 'AND', children: [null] }, actions: [] }),
    ).toBeUndefined();
  });
});

describe('formOfAutomation', () => {
  it("shows a stored weekly report's weekday by name and its configuration in the builder", () => {
    const stored: AutomationRow = {
      id: 'a',
      project_id: 'p',
      name: 'weekly',
      is_enabled: false,
      trigger_type: 'report',
      frequency: 'weekly',
      schedule_time: '07:15',
      schedule_timezone: 'Europe/Paris',
      schedule_weekday: 5,
      configuration: {
        triggers: [],
        conditions: { operator: 'AND', children: [] },
        actions: [{ type: 'generate_report' }],
      },
      created_at: new Date(0),
      updated_at: new Date(0),
    };
    expect(formOfAutomation(stored)).toMatchObject({
      name: 'weekly',
      is_enabled: false,
      schedule_weekday: 'friday',
      schedule_time: '07:15',
      actions: [{ type: 'generate_report', value: '' }],
    });
  });
});

describe('placeConfigurationErrors', () => {
  it("places each of the service's messages on the condition, action or list it names", () => {
    const placed = placeConfigurationErrors([
      'conditions.children[1].children[0]: cvss_gte needs a value',
      'conditions: too deep',
      'actions[2]: change_status needs one of to_evaluate',
      'actions: at least one action',
      'triggers: an alert automation needs at least one trigger',
      'something else',
    ]);
    expect(Object.fromEntries(placed)).toEqual({
      'cond.1.0': ['cvss_gte needs a value'],
      cond: ['too deep'],
      'act.2': ['change_status needs one of to_evaluate'],
      act: ['at least one action'],
      triggers: ['an alert automation needs at least one trigger'],
      other: ['something else'],
    });
  });
});

describe('readBuilderPost', () => {
  const builderBody = {
    mode: 'builder',
    name: 'n',
    trigger_type: 'alert',
    triggers: 'kev_added',
    'cond.op': 'AND',
    'cond.0.type': 'kev_present',
    'act.0.type': 'generate_report',
  };

  it('saves when no button is named, and dry-runs on Dry run, with the input of the form', () => {
    const saved = readBuilderPost(builderBody);
    expect(saved).toMatchObject({ intent: 'save', input: { name: 'n', trigger_type: 'alert' } });
    expect('input' in saved && saved.input.configuration.conditions).toEqual({
      operator: 'AND',
      children: [{ type: 'kev_present' }],
    });
    expect(readBuilderPost({ ...builderBody, intent: 'dry-run' })).toMatchObject({ intent: 'dry-run' });
    expect(readBuilderPost({ ...builderBody, intent: 'launch' })).toMatchObject({ intent: 'save' });
  });

  it('switches to the JSON view with the configuration the builder holds, and back', () => {
    const json = readBuilderPost({ ...builderBody, intent: 'json' });
    expect(json).toMatchObject({ status: 200 });
    const shown = 'show' in json ? json.show : undefined;
    expect(JSON.parse(shown!.json!)).toEqual({
      triggers: ['kev_added'],
      conditions: { operator: 'AND', children: [{ type: 'kev_present' }] },
      actions: [{ type: 'generate_report' }],
    });
    const back = readBuilderPost({ mode: 'json', name: 'n', configuration: shown!.json, intent: 'builder' });
    expect(back).toMatchObject({ status: 200 });
    const form = 'show' in back ? back.show.form : EMPTY_FORM;
    expect('show' in back && back.show.json).toBeUndefined();
    expect(form.name).toBe('n');
    expect(configurationOf({ ...form, trigger_type: 'alert' })).toEqual(JSON.parse(shown!.json!));
  });

  it('answers JSON that does not parse on the JSON field, keeping the text as typed', () => {
    const post = readBuilderPost({
      mode: 'json',
      name: 'j',
      configuration: '{"triggers": [',
      intent: 'save',
    });
    expect(post).toMatchObject({ status: 400, show: { json: '{"triggers": [', form: { name: 'j' } } });
    expect('show' in post && post.show.errors?.json?.[0]).toMatch(/^This is not JSON: /);
  });

  it('keeps JSON the builder cannot show in the JSON view, saying so, but lets the service judge a save of it', () => {
    const text = '{"actions": 3}';
    const back = readBuilderPost({ mode: 'json', configuration: text, intent: 'builder' });
    expect(back).toMatchObject({ status: 400, show: { json: text } });
    expect('show' in back && back.show.errors?.json?.[0]).toMatch(/^The builder shows a configuration/);
    const saved = readBuilderPost({ mode: 'json', configuration: text, intent: 'save' });
    expect(saved).toMatchObject({
      intent: 'save',
      state: { json: text },
      input: { configuration: { actions: 3 } },
    });
  });
});

describe('prettyJson', () => {
  it('writes keys in the order people read them, whatever order they were stored in', () => {
    const stored = {
      actions: [{ value: 'x', type: 'send_notification' }],
      triggers: [],
      conditions: { children: [], operator: 'AND' },
    };
    expect(prettyJson(stored).replace(/\s+/g, ' ')).toBe(
      '{ "triggers": [], "conditions": { "operator": "AND", "children": [] }, "actions": [ { "type": "send_notification", "value": "x" } ] }',
    );
  });
});
