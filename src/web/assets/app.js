// vulntrack web UI: keyboard shortcuts, copy buttons, theme and confirmation prompts. No inline
// script anywhere (the Content-Security-Policy forbids it): behaviour hangs on data-* attributes.
'use strict';

(function () {
  /** True while the user types into a field (shortcuts must not fire then). */
  function typing(event) {
    const t = event.target;
    return (
      t instanceof HTMLElement &&
      (t.isContentEditable || t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')
    );
  }

  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event)) return;
    if (event.key === '/') {
      // The header's search box, or the page's own query box where it stands in for it (/cves).
      const search = document.getElementById('global-search') || document.getElementById('f-q');
      if (search instanceof HTMLInputElement) {
        event.preventDefault();
        search.focus();
        search.select();
      }
    } else if (event.key === '?') {
      const help = document.getElementById('shortcuts');
      if (help instanceof HTMLDialogElement) {
        event.preventDefault();
        if (help.open) help.close();
        else help.showModal();
      }
    } else if (event.key === 'g') {
      // g then a letter: go to a section.
      const next = function (second) {
        const target = document.querySelector('[data-goto="' + second.key + '"]');
        if (target instanceof HTMLAnchorElement) window.location.href = target.href;
      };
      document.addEventListener('keydown', next, { once: true });
    }
  });

  document.addEventListener('click', function (event) {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const copy = target.closest('[data-copy]');
    if (copy) {
      const source = document.getElementById(copy.getAttribute('data-copy') || '');
      const text =
        source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement
          ? source.value
          : source
            ? source.textContent || ''
            : '';
      navigator.clipboard.writeText(text).then(
        function () {
          copy.textContent = 'Copied';
        },
        function () {
          if (source instanceof HTMLInputElement) source.select();
        },
      );
    }
    const closer = target.closest('[data-close-dialog]');
    if (closer) {
      const dialog = closer.closest('dialog');
      if (dialog) dialog.close();
    }
  });

  // A form with data-confirm asks before it is submitted.
  document.addEventListener('submit', function (event) {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });

  // An island's script loads when its <details data-island="<script URL>"> is first opened, so a
  // page does not carry it for the many who never open it. Without JavaScript the details stay hidden.
  document.querySelectorAll('details[data-island]').forEach(function (details) {
    details.hidden = false;
    details.addEventListener('toggle', function load() {
      if (!details.open) return;
      details.removeEventListener('toggle', load);
      const script = document.createElement('script');
      script.src = details.dataset.island || '';
      document.head.append(script);
    });
  });

  // A select with data-autosubmit submits its form when changed (the form still has a button without JS).
  document.addEventListener('change', function (event) {
    const t = event.target;
    if (t instanceof HTMLSelectElement && t.dataset.autosubmit !== undefined && t.form)
      t.form.requestSubmit();
  });
})();
