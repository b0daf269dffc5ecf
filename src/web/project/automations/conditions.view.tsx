/**
 * The builder's rows: a condition, a group of conditions (nested as deep as the form allows) and an
 * action, with their messages. Their field names carry the tree (builder.form.ts reads them back);
 * their `data-*` attributes are what the builder island (assets/automation-builder.js) works on.
 */
import { ACTION_TYPES, CONDITION_TYPES, CVSS_VERSIONS } from '../../../domain/automation.ts';
import type { ActionForm, GroupForm, LeafForm } from './builder.form.ts';
import { ACTION_LABELS, CONDITION_LABELS } from './labels.ts';

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
      <div class="field ab-value">
        <label for={`${id}-value`}>Value</label>
        <input
          id={`${id}-value`}
          type="text"
          name={`${key}.value`}
          value={leaf.value}
          data-field="value"
          list={leaf.type === 'cve_status' ? 'ab-statuses' : undefined}
          aria-invalid={messages ? 'true' : undefined}
          aria-describedby={messages ? `${id}-error` : undefined}
        />
      </div>
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
  spare,
}: {
  action: ActionForm;
  index: number;
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
      <div class="field ab-value">
        <label for={`${id}-value`}>Value</label>
        <input
          id={`${id}-value`}
          type="text"
          name={`act.${index}.value`}
          value={action.value}
          data-field="value"
          list="ab-action-values"
          aria-invalid={messages ? 'true' : undefined}
          aria-describedby={messages ? `${id}-error` : undefined}
        />
      </div>
      <button type="button" class="btn-small ab-remove" data-remove hidden>
        Remove
      </button>
      <ErrorText id={`${id}-error`} messages={messages} />
    </div>
  );
}
