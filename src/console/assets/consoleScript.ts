/**
 * The console's script, served as /console/assets/console.js: progressive
 * enhancement only (every page works without it). It copies a secret shown
 * once, ticks and unticks the boxes of the group a "select all" checkbox names
 * (`data-select-all`; without the script, the server reads a ticked "select
 * all" as all of them), and asks before a form marked `data-confirm` does
 * something that cannot be undone (without the script, the server asks on a page of its own). It never submits a form by itself: a
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

    document.querySelectorAll('input[data-select-all]').forEach(function (all) {
      var group = document.getElementById(all.getAttribute('data-select-all'));
      if (!group) return;
      var boxes = Array.prototype.slice.call(group.querySelectorAll('input[type="checkbox"]'));
      function setAll(checked) {
        boxes.forEach(function (box) { box.checked = checked; });
      }
      function followBoxes() {
        all.checked = boxes.every(function (box) { return box.checked; });
      }
      if (all.checked) setAll(true);
      else followBoxes();
      all.addEventListener('change', function () { setAll(all.checked); });
      boxes.forEach(function (box) { box.addEventListener('change', followBoxes); });
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
