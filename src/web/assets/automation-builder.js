// The automation builder's island: adds and removes conditions, groups and actions, numbers the
// field names again (cond.1.0.type, act.0.type; project/automations/builder.form.ts reads them) and shows each row's
// fields for its type. Without it the plain form still edits a flat list.
'use strict';

(function () {
  const form = document.querySelector('form.ab-form');
  if (!form) return;
  // Both views: the schedule is shown for a report, the triggers for an alert.
  const kind = form.querySelector('[name="trigger_type"]');
  function showKind() {
    form.querySelectorAll('[data-for]').forEach(function (n) {
      n.hidden = n.dataset.for !== kind.value;
    });
  }
  kind.addEventListener('change', showKind);
  showKind();
  const root = form.querySelector('.ab-root');
  const actions = form.querySelector('.ab-actions > [data-children]');
  if (!root || !actions) return;

  const PLACEHOLDERS = {
    cvss_gte: '0 to 10',
    epss_gte: '0 to 1',
    vendor_equals: 'e.g. Apache',
    product_equals: 'e.g. Microsoft / Exchange Server',
    cve_newer_than: 'days',
  };
  // The types whose value is picked from a list or not asked for (labels.ts: LEAF_VALUE_KINDS,
  // ACTION_VALUE_KINDS); any other type is typed.
  const LEAF_KINDS = { kev_present: 'kev', cve_status: 'status', cve_unassigned: 'none', '': 'none' };
  const ACTION_KINDS = {
    send_notification: 'notification',
    assign_user: 'member',
    change_status: 'status',
    generate_report: 'none',
    '': 'none',
  };

  function clone(id) {
    const template = document.getElementById(id);
    const node = template.content.firstElementChild.cloneNode(true);
    reveal(node);
    return node;
  }

  function reveal(scope) {
    scope.querySelectorAll('.ab-tools, [data-remove]').forEach(function (n) {
      n.hidden = false;
    });
    if (scope.matches && scope.matches('[data-remove]')) scope.hidden = false;
  }

  // A row has one value control per kind (conditions.view.tsx): the one of its type is shown and
  // enabled, the others hidden and disabled, so the row posts one value.
  function showValue(row, kind) {
    row.querySelectorAll('.ab-value').forEach(function (field) {
      const on = field.dataset.kind === kind;
      field.hidden = !on;
      field.querySelector('[data-field="value"]').disabled = !on;
    });
  }

  function fieldId(input, base) {
    const kind = input.dataset.kind;
    return base + (kind && kind !== 'text' ? '-' + kind : '');
  }

  function setField(input, name, id) {
    input.name = name;
    input.id = id;
    input.closest('.field').querySelector('label').htmlFor = id;
  }

  function childrenOf(group) {
    return Array.from(group.querySelector(':scope > [data-children]').children);
  }

  function numberGroup(group, path) {
    const op = group.querySelector(':scope > .ab-op [data-field="op"]');
    if (op) setField(op, 'cond' + path + '.op', 'g' + path.replace(/\./g, '-') + '-op');
    childrenOf(group).forEach(function (child, i) {
      const p = path + '.' + i;
      if (child.matches('[data-group]')) numberGroup(child, p);
      else
        child.querySelectorAll('[data-field]').forEach(function (input) {
          const f = input.dataset.field;
          setField(input, 'cond' + p + '.' + f, fieldId(input, 'c' + p.replace(/\./g, '-') + '-' + f));
        });
    });
  }

  function renumber() {
    numberGroup(root, '');
    Array.from(actions.children).forEach(function (row, i) {
      row.querySelectorAll('[data-field]').forEach(function (input) {
        const f = input.dataset.field;
        setField(input, 'act.' + i + '.' + f, fieldId(input, 'a-' + i + '-' + f));
      });
    });
    const empty = root.querySelector(':scope > .ab-empty');
    if (empty) empty.hidden = childrenOf(root).length > 0;
  }

  function showLeaf(leaf) {
    const type = leaf.querySelector('[data-field="type"]').value;
    leaf.querySelector('.ab-version').hidden = type !== 'cvss_gte';
    showValue(leaf, LEAF_KINDS[type] || 'text');
    leaf.querySelector('.ab-value[data-kind="text"] input').placeholder = PLACEHOLDERS[type] || '';
  }

  function showAction(row) {
    const type = row.querySelector('[data-field="type"]').value;
    showValue(row, ACTION_KINDS[type] || 'text');
  }

  form.querySelectorAll('[data-spare]').forEach(function (n) {
    n.remove();
  });
  reveal(form);
  form.querySelectorAll('[data-leaf]').forEach(showLeaf);
  form.querySelectorAll('[data-action]').forEach(showAction);
  renumber();

  form.addEventListener('click', function (event) {
    const button = event.target.closest('button[data-add], button[data-remove]');
    if (!button || !form.contains(button)) return;
    event.preventDefault();
    const add = button.dataset.add;
    let focus;
    if (add === 'action') {
      focus = clone('ab-action-template');
      actions.append(focus);
      showAction(focus);
    } else if (add) {
      const group = button.closest('[data-group]');
      focus = clone(add === 'group' ? 'ab-group-template' : 'ab-leaf-template');
      group.querySelector(':scope > [data-children]').append(focus);
      focus.querySelectorAll('[data-leaf]').forEach(showLeaf);
      if (focus.matches('[data-leaf]')) showLeaf(focus);
    } else {
      const row = button.closest('[data-leaf], [data-action], [data-group]');
      const parent = row.parentElement.closest('[data-group], .ab-actions');
      row.remove();
      focus = parent && parent.querySelector('button[data-add]');
    }
    renumber();
    if (focus) (focus.matches('button') ? focus : focus.querySelector('select')).focus();
  });

  form.addEventListener('change', function (event) {
    const input = event.target;
    if (input.dataset && input.dataset.field === 'type') {
      const leaf = input.closest('[data-leaf]');
      if (leaf) showLeaf(leaf);
      const row = input.closest('[data-action]');
      if (row) showAction(row);
    }
  });
})();
