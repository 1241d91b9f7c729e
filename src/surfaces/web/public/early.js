// Loaded before the page is drawn, so nothing clicked while the chat's script
// is still on its way is lost: clicks on the chat's buttons, a search and a
// change of workspace are kept here, and the chat replays them once it has
// started (app.ts, replayEarlyActions). Links work by themselves: they only
// change the address, which the chat reads when it starts.
(() => {
  var queue = [];
  window.switchboardEarly = queue;
  var root = document.documentElement;
  var waiting = () => root.dataset.chat !== 'ready';
  var keep = (e, action) => {
    e.preventDefault();
    e.stopImmediatePropagation();
    queue.push(action);
    root.dataset.chat = 'queued';
  };
  document.addEventListener(
    'click',
    (e) => {
      if (!waiting() || !(e.target instanceof Element)) return;
      var button = e.target.closest('button[id]');
      if (button && !button.closest('form, dialog')) keep(e, { type: 'click', id: button.id });
    },
    true,
  );
  document.addEventListener(
    'submit',
    (e) => {
      if (waiting() && e.target instanceof HTMLFormElement && e.target.id === 'search-form')
        keep(e, { type: 'submit', id: e.target.id });
    },
    true,
  );
  document.addEventListener(
    'change',
    (e) => {
      if (waiting() && e.target instanceof HTMLSelectElement && e.target.id === 'workspace-select') {
        keep(e, { type: 'change', id: e.target.id, value: e.target.value });
      }
    },
    true,
  );
})();
