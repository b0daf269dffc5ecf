// The project tracker: keyboard triage (j/k move the focused row, x selects it, s its status, a its
// assignee, Enter/o opens the CVE), saving a row's status or assignee once (a pick with the mouse at
// once; from the keyboard, arrows only move the choice: Enter, a digit or leaving saves, Escape
// undoes), select-all, the selection count of the bulk edit (whose bar shows while rows are selected),
// and htmx row swaps that keep the row's selection and focus and show a refused move's message.
'use strict';

(function () {
  const table = document.getElementById('tracker');
  if (!table) return;
  document.documentElement.classList.add('tracker-js');

  function rows() {
    return Array.prototype.slice.call(table.querySelectorAll('tbody tr[data-row]'));
  }
  function boxes() {
    return Array.prototype.slice.call(table.querySelectorAll('input[data-select]'));
  }
  function current() {
    return table.querySelector('tbody tr.current');
  }
  function focusRow(row) {
    const before = current();
    if (before) before.classList.remove('current');
    if (!row) return;
    row.classList.add('current');
    row.setAttribute('tabindex', '-1');
    row.focus({ preventScroll: true });
    row.scrollIntoView({ block: 'nearest' });
  }

  const count = document.querySelector('[data-selected-count]');
  const all = table.querySelector('input[data-select-all]');
  // The bulk edit bar (bulk.view.tsx): hidden while nothing is selected, unless the server showed it
  // (a selection or a refusal to show); it opens when the first row is selected.
  const bar = document.getElementById('bulk-bar');
  const idle = bar && bar.hasAttribute('data-idle');
  function updateCount() {
    const list = boxes();
    const n = list.filter(function (b) {
      return b.checked;
    }).length;
    if (count) count.textContent = String(n);
    if (idle && n > 0 === bar.hasAttribute('data-idle')) {
      bar.toggleAttribute('data-idle', n === 0);
      bar.open = n > 0;
    }
    if (all) {
      all.checked = n > 0 && n === list.length;
      all.indeterminate = n > 0 && n < list.length;
    }
  }
  if (all) {
    all.hidden = false;
    all.addEventListener('change', function () {
      boxes().forEach(function (b) {
        b.checked = all.checked;
      });
      updateCount();
    });
  }
  table.addEventListener('change', function (event) {
    if (event.target instanceof HTMLInputElement && event.target.matches('[data-select]')) updateCount();
  });
  updateCount();

  function typing(event) {
    const t = event.target;
    return (
      t instanceof HTMLElement &&
      (t.isContentEditable || t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')
    );
  }

  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Escape from a row's control back to its row.
    if (event.key === 'Escape' && event.target instanceof HTMLElement) {
      const inRow = event.target.closest('tr[data-row]');
      if (inRow && event.target !== inRow) focusRow(inRow);
      return;
    }
    if (typing(event)) return;
    const list = rows();
    if (!list.length) return;
    const row = current();
    const at = row ? list.indexOf(row) : -1;
    switch (event.key) {
      case 'j':
        focusRow(list[Math.min(at + 1, list.length - 1)]);
        break;
      case 'k':
        focusRow(list[Math.max(at - 1, 0)]);
        break;
      case 'x': {
        if (!row) return;
        const box = row.querySelector('input[data-select]');
        if (box) {
          box.checked = !box.checked;
          updateCount();
        }
        break;
      }
      case 's':
      case 'a': {
        if (!row) return;
        const control = row.querySelector(
          '[data-triage="' + (event.key === 's' ? 'status' : 'assignee') + '"]',
        );
        if (control) control.focus();
        break;
      }
      case 'o':
      case 'Enter': {
        if (!row || (event.key === 'Enter' && event.target !== row)) return;
        const link = row.querySelector('a[data-open]');
        if (link) window.location.href = link.href;
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  });

  table.addEventListener('click', function (event) {
    const t = event.target;
    if (!(t instanceof Element) || t.closest('a, input, select, button, label')) return;
    const row = t.closest('tr[data-row]');
    if (row) focusRow(row);
  });

  // A row's status and assignee selects save through the `triage-save` event (row.view.tsx). Browsers
  // fire `change` for every arrow press on a closed select: those only mark the choice as pending.
  function triageSelect(target) {
    return target instanceof HTMLSelectElement && target.matches('[data-triage]') ? target : null;
  }
  function save(select) {
    delete select.dataset.pending;
    window.htmx.trigger(select, 'triage-save');
  }
  function undo(select) {
    delete select.dataset.pending;
    const saved = Array.prototype.findIndex.call(select.options, function (o) {
      return o.defaultSelected;
    });
    select.selectedIndex = saved < 0 ? 0 : saved;
  }
  const MOVES = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown'];
  let keyed = null;
  table.addEventListener('keydown', function (event) {
    const select = triageSelect(event.target);
    if (!select || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Enter') {
      event.preventDefault();
      if (select.dataset.pending) save(select);
    } else if (event.key === 'Escape') {
      if (select.dataset.pending) undo(select);
    } else if (/^[0-9]$/.test(event.key)) {
      // 0 is "No status" / "Nobody", 1 the first choice, and so on.
      event.preventDefault();
      const index = Number(event.key);
      if (index < select.options.length && index !== select.selectedIndex) {
        select.selectedIndex = index;
        save(select);
      } else if (index === select.selectedIndex && select.dataset.pending) save(select);
    } else if (MOVES.indexOf(event.key) >= 0 || event.key.length === 1) {
      keyed = select;
    }
  });
  table.addEventListener('change', function (event) {
    const select = triageSelect(event.target);
    if (!select) return;
    if (keyed === select) {
      keyed = null;
      select.dataset.pending = '1';
    } else save(select);
  });
  table.addEventListener('focusout', function (event) {
    const select = triageSelect(event.target);
    if (select && select.dataset.pending) save(select);
  });

  // A row swapped by htmx keeps its selection and, when a control of it had the focus, the focus.
  let kept = null;
  document.body.addEventListener('htmx:beforeSwap', function (event) {
    const target = event.detail.target;
    if (!(target instanceof HTMLElement) || !target.matches('tr[data-row]')) return;
    // A refused move answers 400 with the row and its message: show it.
    if (event.detail.xhr.status === 400) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
    const box = target.querySelector('input[data-select]');
    const active = document.activeElement;
    kept = {
      id: target.id,
      checked: box ? box.checked : false,
      current: target.classList.contains('current'),
      focus:
        active instanceof HTMLElement && target.contains(active) ? active.getAttribute('data-triage') : null,
    };
  });
  function restore() {
    if (!kept) return;
    const row = document.getElementById(kept.id);
    if (row) {
      const box = row.querySelector('input[data-select]');
      if (box) box.checked = kept.checked;
      if (kept.current) row.classList.add('current');
      if (kept.focus) {
        const control = row.querySelector('[data-triage="' + kept.focus + '"]');
        if (control) control.focus();
      } else if (kept.current) focusRow(row);
    }
    kept = null;
    updateCount();
  }
  document.body.addEventListener('htmx:afterSwap', restore);
  document.body.addEventListener('htmx:afterSettle', restore);
})();
