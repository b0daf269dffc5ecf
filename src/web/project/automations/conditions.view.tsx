/**
 * The builder's rows: a condition, a group of conditions (nested as deep as the form allows) and an
 * action, with their messages. Their field names carry the tree (builder.form.ts reads them back);
 * their `data-*` attributes are what the builder island (assets/automation-builder.js) works on.
 */
import { ACTION_TYPES, CONDITION_TYPES, CVSS_VERSIONS } from '../../../domain/automation.ts';
import type { ActionForm, GroupForm, LeafForm } from './builder.form.ts';
import {
  ACTION_LABELS,
  ACTION_VALUE_KINDS,
  CONDITION_LABELS,
  LEAF_VALUE_KINDS,
  STATUS_CHOICES,
  type ValueKind,
} from './labels.ts';

/** What the builder offers to pick: the project's notifications, the joined members' emails. */
export interface Choices {
  notifications: string[];
  members: string[];
}

type Option = { value: string; label: string };

/**
 * A row's value controls, one per kind of value, all named `name`: the one for the row's type is
 * shown and enabled, the others hidden and disabled (a disabled control is not posted), so the form
 * posts one value whichever the type. The island (assets/automation-builder.js) switches them when
 * the type changes; without it a new row offers the text box.
 */
function ValueControls({
  id,
  name,
  value,
  kind,
  lists,
  invalid,
  errorId,
}: {
  id: string;
  name: string;
  value: string;
  kind: ValueKind;
  /** The kinds picked from a list, with their options. */
  lists: Partial<Record<ValueKind, Option[]>>;
  invalid: boolean;
  errorId: string;
}) {
  const aria = {
    'aria-invalid': invalid ? ('true' as const) : undefined,
    'aria-describedby': invalid ? errorId : undefined,
  };
  const off = (k: ValueKind) => kind !== k;
  return (
    <>
      <div class="field ab-value" data-kind="text" hidden={off('text')}>
        <label for={`${id}-value`}>Value</label>
        <input
          id={`${id}-value`}
          type="text"
          name={name}
          value={off('text') ? '' : value}
          data-field="value"
          data-kind="text"
          disabled={off('text')}
          {...aria}
        />
      </div>
      {(Object.entries(lists) as [ValueKind, Option[]][]).map(([k, options]) => {
        const known = options.some((o) => o.value === value);
        return (
          <div class="field ab-value" data-kind={k} hidden={off(k)}>
            <label for={`${id}-value-${k}`}>Value</label>
            <select
              id={`${id}-value-${k}`}
              name={name}
              data-field="value"
              data-kind={k}
              disabled={off(k)}
              {...aria}
            >
              {options.map((o) => (
                <option value={o.value} selected={!off(k) && o.value === value}>
                  {o.label}
                </option>
              ))}
              {!off(k) && value && !known && (
                <option value={value} selected>
                  {value} (not one of these)
                </option>
              )}
            </select>
          </div>
        );
      })}
    </>
  );
}

const CHOOSE: Option = { value: '', label: 'Choose…' };

/** A condition's lists: KEV yes or no, the statuses. */
const LEAF_LISTS: Partial<Record<ValueKind, Option[]>> = {
  kev: [
    { value: 'yes', label: 'Yes' },
    { value: 'no', label: 'No' },
  ],
  status: [CHOOSE, ...STATUS_CHOICES],
};

/** An action's lists: the project's notifications, the members, the statuses (without "No status"). */
const actionLists = (choices: Choices): Partial<Record<ValueKind, Option[]>> => ({
  notification: [CHOOSE, ...choices.notifications.map((n) => ({ value: n, label: n }))],
  member: [CHOOSE, ...choices.members.map((m) => ({ value: m, label: m }))],
  status: [CHOOSE, ...STATUS_CHOICES.filter((o) => o.value !== 'no_status')],
});

/** Messages placed on a builder part (nothing when there are none). */
export function ErrorText({ id, messages }: { id?: string; messages: string[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <div class="error" id={id}>
      {messages.join(' ')}
    </div>
  );
}

/** One condition: its type, CVSS version and value, at `path` of the tree (`.1.0`). */
export function LeafRow({
  leaf,
  path,
  errors,
  spare,
}: {
  leaf: LeafForm;
  path: string;
  errors: Map<string, string[]>;
  spare?: boolean;
}) {
  const key = `cond${path}`;
  const id = `c${path.replace(/\./g, '-')}`;
  const messages = errors.get(key);
  return (
    <div
      class={messages ? 'ab-leaf has-error' : 'ab-leaf'}
      data-leaf
      data-spare={spare ? '' : undefined}
      data-type={leaf.type}
    >
      <div class="field">
        <label for={`${id}-type`}>Condition</label>
        <select id={`${id}-type`} name={`${key}.type`} data-field="type">
          <option value="">(none)</option>
          {CONDITION_TYPES.map((t) => (
            <option value={t} selected={t === leaf.type}>
              {CONDITION_LABELS[t]}
            </option>
          ))}
          {leaf.type && !(CONDITION_TYPES as readonly string[]).includes(leaf.type) && (
            <option value={leaf.type} selected>
              {leaf.type}
            </option>
          )}
        </select>
      </div>
      <div class="field ab-version">
        <label for={`${id}-version`}>CVSS version</label>
        <select id={`${id}-version`} name={`${key}.version`} data-field="version">
          {Object.keys(CVSS_VERSIONS).map((v) => (
            <option value={v} selected={v === leaf.version}>
              {v}
            </option>
          ))}
        </select>
      </div>
      <ValueControls
        id={id}
        name={`${key}.value`}
        value={leaf.value}
        kind={leaf.type ? (LEAF_VALUE_KINDS[leaf.type] ?? 'text') : 'text'}
        lists={LEAF_LISTS}
        invalid={messages !== undefined}
        errorId={`${id}-error`}
      />
      <button type="button" class="btn-small ab-remove" data-remove hidden>
        Remove
      </button>
      <ErrorText id={`${id}-error`} messages={messages} />
    </div>
  );
}

/** A group of conditions (the root one with two spare rows for a form without script). */
export function GroupBox({
  group,
  path,
  errors,
  root,
}: {
  group: GroupForm;
  path: string;
  errors: Map<string, string[]>;
  root?: boolean;
}) {
  const key = `cond${path}`;
  const id = `g${path.replace(/\./g, '-')}`;
  return (
    <fieldset class={root ? 'ab-group ab-root' : 'ab-group'} data-group>
      <legend>{root ? 'Conditions' : 'Group'}</legend>
      <div class="field ab-op">
        <label for={`${id}-op`}>Match</label>
        <select id={`${id}-op`} name={`${key}.op`} data-field="op">
          <option value="AND" selected={group.operator === 'AND'}>
            all of these (AND)
          </option>
          <option value="OR" selected={group.operator === 'OR'}>
            any of these (OR)
          </option>
          {group.operator !== 'AND' && group.operator !== 'OR' && (
            <option value={group.operator} selected>
              {group.operator}
            </option>
          )}
        </select>
      </div>
      <ErrorText messages={errors.get(key)} />
      <div class="ab-children" data-children>
        {group.children.map((child, i) =>
          child.kind === 'group' ? (
            <GroupBox group={child} path={`${path}.${i}`} errors={errors} />
          ) : (
            <LeafRow leaf={child} path={`${path}.${i}`} errors={errors} />
          ),
        )}
        {root &&
          [0, 1].map((n) => (
            <LeafRow
              leaf={{ kind: 'leaf', type: '', value: '', version: '3.1' }}
              path={`.${group.children.length + n}`}
              errors={errors}
              spare
            />
          ))}
      </div>
      {root && group.children.length === 0 && (
        <p class="hint small muted ab-empty">No condition: every CVE its triggers fire for.</p>
      )}
      <div class="ab-tools" hidden>
        <button type="button" class="btn-small" data-add="leaf">
          Add condition
        </button>
        <button type="button" class="btn-small" data-add="group">
          Add group
        </button>
        {!root && (
          <button type="button" class="btn-small btn-danger" data-remove>
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}

/** One action: its type and value, at `index` of the list. */
export function ActionRow({
  action,
  index,
  errors,
  choices,
  spare,
}: {
  action: ActionForm;
  index: number;
  choices: Choices;
  errors: Map<string, string[]>;
  spare?: boolean;
}) {
  const id = `a-${index}`;
  const messages = errors.get(`act.${index}`);
  return (
    <div
      class={messages ? 'ab-action has-error' : 'ab-action'}
      data-action
      data-spare={spare ? '' : undefined}
    >
      <div class="field">
        <label for={`${id}-type`}>Action</label>
        <select id={`${id}-type`} name={`act.${index}.type`} data-field="type">
          <option value="">(none)</option>
          {ACTION_TYPES.map((t) => (
            <option value={t} selected={t === action.type}>
              {ACTION_LABELS[t]}
            </option>
          ))}
        </select>
      </div>
      <ValueControls
        id={id}
        name={`act.${index}.value`}
        value={action.value}
        kind={action.type ? (ACTION_VALUE_KINDS[action.type] ?? 'text') : 'text'}
        lists={actionLists(choices)}
        invalid={messages !== undefined}
        errorId={`${id}-error`}
      />
      <button type="button" class="btn-small ab-remove" data-remove hidden>
        Remove
      </button>
      <ErrorText id={`${id}-error`} messages={messages} />
    </div>
  );
}
