// The console's little script: confirmation of destructive forms, copying shown-once secrets and closing
// the phone's menu with Escape. Every page works without it; it is loaded from 'self' only (the
// Content-Security-Policy has no inline script).

/**
 * Forms with data-confirm ask before they are sent (cancel, revoke, disable). A form whose question names
 * an amount typed in (a refund) has data-confirm-amount, the field's id, and data-confirm-template, the
 * question with {amount}: it asks with the amount as typed, in rupiah (Rp5.000).
 */
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  let question = form.dataset.confirm;
  const field = form.dataset.confirmAmount ? document.getElementById(form.dataset.confirmAmount) : null;
  if (field instanceof HTMLInputElement && form.dataset.confirmTemplate && /^[0-9]+$/.test(field.value.trim())) {
    const digits = String(Number(field.value.trim())).replace(/\B(?=([0-9]{3})+(?![0-9]))/g, '.');
    question = form.dataset.confirmTemplate.replace('{amount}', `Rp${digits}`);
  }
  if (question && !window.confirm(question)) event.preventDefault();
});

/** Buttons with data-copy copy the text of the element it names. */
document.addEventListener('click', (event) => {
  const button = event.target;
  if (!(button instanceof HTMLButtonElement) || !button.dataset.copy) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) return;
  void navigator.clipboard.writeText(source.textContent ?? '').then(() => {
    button.textContent = button.dataset.copied ?? 'Copied';
  });
});

/** Selects with data-autosubmit send their form when changed (filters). */
document.addEventListener('change', (event) => {
  const select = event.target;
  if (select instanceof HTMLSelectElement && select.dataset.autosubmit !== undefined && select.form)
    select.form.requestSubmit();
});

/** Buttons with data-print open the browser's print dialog (the payment link's QR sheet). */
document.addEventListener('click', (event) => {
  const button = event.target;
  if (button instanceof HTMLButtonElement && button.dataset.print !== undefined) window.print();
});

/** The phone's Menu (a <details> in the header) closes with Escape, giving the focus back to its summary. */
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  const menu = document.querySelector('details.menu[open]');
  if (!(menu instanceof HTMLDetailsElement)) return;
  menu.open = false;
  menu.querySelector('summary')?.focus();
});

/**
 * A select with data-shows-fields (the sources page's kind) shows, in its form, only the fields for the
 * chosen value: each element with data-for-kinds lists the values it is for. A hidden field is disabled
 * too, so it is neither checked nor sent. Without this script every field shows, labelled with its kinds.
 * @param {EventTarget | null} select
 */
function showFieldsFor(select) {
  if (!(select instanceof HTMLSelectElement) || select.dataset.showsFields === undefined || !select.form) return;
  for (const field of select.form.querySelectorAll('[data-for-kinds]')) {
    if (!(field instanceof HTMLElement)) continue;
    const shown = (field.dataset.forKinds ?? '').split(' ').includes(select.value);
    field.hidden = !shown;
    for (const input of field.querySelectorAll('input, textarea, select')) {
      if (
        input instanceof HTMLInputElement ||
        input instanceof HTMLTextAreaElement ||
        input instanceof HTMLSelectElement
      )
        input.disabled = !shown;
    }
  }
}
for (const select of document.querySelectorAll('select[data-shows-fields]')) showFieldsFor(select);
document.addEventListener('change', (event) => showFieldsFor(event.target));

/**
 * The form that finds a Telegram chat (data-chat-search) sends itself every 2 s for at most 2 minutes,
 * in the background: the answer names the new channel's page once someone pressed Start on the bot's
 * link ("found", with the channel's page), "waiting" (X-Chat-Search) while nobody has, and anything else (a failure) is shown by sending the
 * form the ordinary way. Without this script the owner presses Find the chat.
 */
for (const form of document.querySelectorAll('form[data-chat-search]')) {
  if (!(form instanceof HTMLFormElement)) continue;
  const status = form.querySelector('[data-chat-search-status]');
  const say = (/** @type {string | undefined} */ text) => {
    if (status && text) status.textContent = text;
  };
  const INTERVAL_MS = 2000;
  const LIMIT_MS = 120_000;
  const started = Date.now();
  say(form.dataset.searching);
  const look = async () => {
    if (Date.now() - started > LIMIT_MS) return say(form.dataset.gaveUp);
    try {
      const body = new URLSearchParams(/** @type {any} */ (new FormData(form)));
      const res = await fetch(form.action, {
        method: 'POST',
        body,
        credentials: 'same-origin',
        headers: { 'X-Chat-Search': 'poll' },
      });
      const answer = res.headers.get('X-Chat-Search');
      if (answer === 'found') {
        const next = await res.text();
        if (next.startsWith('/dashboard/')) return window.location.assign(next);
      }
      if (answer !== 'waiting') return form.submit();
    } catch {
      // A lost answer is looked for again at the next tick.
    }
    setTimeout(look, INTERVAL_MS);
  };
  setTimeout(look, INTERVAL_MS);
}
