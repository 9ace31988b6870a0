/**
 * The console's script, served as /console/assets/console.js: progressive
 * enhancement only (every page works without it). It copies a secret shown
 * once, and asks before a form marked `data-confirm` does something that cannot
 * be undone (without the script, the server asks on a page of its own). It never submits a form by itself: a
 * link's page waits for its button (a page of another site could otherwise sign
 * a browser in to the attacker's company). No inline handler: the CSP allows none.
 */
export const CONSOLE_JS = `'use strict';
(function () {
  function onReady(run) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run);
    else run();
  }
  onReady(function () {
    document.querySelectorAll('button[data-copy]').forEach(function (button) {
      button.hidden = false;
      button.addEventListener('click', function () {
        var source = document.getElementById(button.getAttribute('data-copy'));
        var status = document.getElementById(button.getAttribute('data-copy') + '-status');
        if (!source || !navigator.clipboard) return;
        navigator.clipboard.writeText(source.textContent.trim()).then(function () {
          if (status) status.textContent = 'Copied';
        }, function () {
          if (status) status.textContent = 'Copy failed: select the text and copy it';
        });
      });
    });

    document.querySelectorAll('form[data-confirm]').forEach(function (form) {
      form.addEventListener('submit', function (event) {
        var confirmed = form.querySelector('input[name="confirmed"]');
        if (confirmed && confirmed.value === 'yes') return;
        if (!window.confirm(form.getAttribute('data-confirm'))) {
          event.preventDefault();
          return;
        }
        if (!confirmed) {
          confirmed = document.createElement('input');
          confirmed.type = 'hidden';
          confirmed.name = 'confirmed';
          form.appendChild(confirmed);
        }
        confirmed.value = 'yes';
      });
    });
  });
})();
`;
