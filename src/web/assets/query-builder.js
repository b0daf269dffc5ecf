// The CVE list's query builder island: conditions picked from lists, written into the query box `q`
// as `field<op>value` terms, and read back from the box when it holds only terms the builder knows
// (joined all by AND or all by OR, no parentheses). Loaded when the page's disclosure is first
// opened (app.js, details[data-island]). Without JavaScript the box works alone.
'use strict';

(function () {
  const root = document.getElementById('query-builder');
  const box = document.getElementById('f-q');
  if (!root || !(box instanceof HTMLInputElement)) return;

  const CMP = ['>=', '>', '<=', '<', '=', '!='];
  const FIELDS = {
    vendor: ['=', '!=', ':'],
    product: ['=', '!=', ':'],
    cwe: ['=', '!=', ':'],
    cvss31: CMP,
    cvss40: CMP,
    epss: CMP,
    kev: ['='],
    created: CMP,
    updated: CMP,
    title: [':', '=', '!='],
    description: [':', '=', '!='],
    cve: ['=', ':'],
  };
  const TERM = /^([a-z0-9]+)(!=|>=|<=|:|=|>|<)("(?:[^"\\]|\\.)*"|[^\s()"]+)$/i;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const k in attrs || {}) node.setAttribute(k, attrs[k]);
    (children || []).forEach(function (c) {
      node.append(c);
    });
    return node;
  }
  function select(options, value, label) {
    const s = el('select', { 'aria-label': label });
    options.forEach(function (o) {
      const opt = el('option', { value: o }, [o]);
      if (o === value) opt.selected = true;
      s.append(opt);
    });
    return s;
  }
  const quote = function (v) {
    return /^[^\s()"]+$/.test(v) ? v : '"' + v.replace(/["\\]/g, '\\$&') + '"';
  };
  const unquote = function (v) {
    return v[0] === '"' ? v.slice(1, -1).replace(/\\(["\\])/g, '$1') : v;
  };

  /** The box's query as conditions, or null when the builder cannot show it. */
  function read(q) {
    const text = q.trim();
    if (!text) return { join: 'AND', rows: [] };
    if (/[()]/.test(text)) return null;
    const parts = text.match(/"(?:[^"\\]|\\.)*"|\S+/g) || [];
    // Re-glue terms whose quoted value was split off (field:"a b").
    const tokens = [];
    parts.forEach(function (p) {
      if (p[0] === '"' && tokens.length && /[:=<>]$/.test(tokens[tokens.length - 1]))
        tokens[tokens.length - 1] += p;
      else tokens.push(p);
    });
    let join = null;
    const rows = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (/^(and|or)$/i.test(t)) {
        const j = t.toUpperCase();
        if (join && join !== j) return null;
        join = j;
        continue;
      }
      const m = TERM.exec(t);
      if (!m) return null;
      const field = m[1].toLowerCase();
      if (!FIELDS[field] || FIELDS[field].indexOf(m[2]) < 0) return null;
      rows.push({ field: field, op: m[2], value: unquote(m[3]) });
    }
    return { join: join || 'AND', rows: rows };
  }

  let join = 'AND';
  const list = el('div', { class: 'qb-rows' });
  const note = el('p', { class: 'muted small', role: 'status' });

  function write() {
    const terms = [];
    list.querySelectorAll('.qb-row').forEach(function (row) {
      const [f, o] = row.querySelectorAll('select');
      const v = row.querySelector('input').value.trim();
      if (v) terms.push(f.value + o.value + quote(v));
    });
    box.value = terms.join(' ' + join + ' ');
  }

  function addRow(c) {
    const field = select(Object.keys(FIELDS), c.field, 'Field');
    let op = select(FIELDS[c.field], c.op, 'Operator');
    const value = el('input', { type: 'text', 'aria-label': 'Value', value: c.value });
    const remove = el('button', { type: 'button', class: 'btn-small', 'aria-label': 'Remove condition' }, [
      '×',
    ]);
    const row = el('div', { class: 'qb-row row' }, [field, op, value, remove]);
    field.addEventListener('change', function () {
      const next = select(FIELDS[field.value], FIELDS[field.value][0], 'Operator');
      op.replaceWith(next);
      op = next;
      write();
    });
    row.addEventListener('change', write);
    row.addEventListener('input', write);
    remove.addEventListener('click', function () {
      row.remove();
      write();
    });
    list.append(row);
  }

  function show() {
    const parsed = read(box.value);
    list.textContent = '';
    if (!parsed) {
      note.textContent =
        'This query is more than the builder shows (parentheses or mixed AND/OR): edit it in the box.';
      return;
    }
    note.textContent = '';
    join = parsed.join;
    joinSelect.value = join;
    parsed.rows.forEach(addRow);
  }

  const joinSelect = select(['AND', 'OR'], 'AND', 'Match');
  joinSelect.addEventListener('change', function () {
    join = joinSelect.value;
    write();
  });
  const add = el('button', { type: 'button', class: 'btn-small' }, ['Add condition']);
  add.addEventListener('click', function () {
    addRow({ field: 'vendor', op: '=', value: '' });
  });

  // The page's disclosure ("Build the query from lists") opened, which loaded this script.
  root.append(
    el('div', { class: 'row' }, [el('span', {}, ['Conditions joined by ']), joinSelect, add]),
    list,
    note,
  );
  root.hidden = false;
  box.addEventListener('change', show);
  show();
})();
