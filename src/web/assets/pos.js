// @ts-check
// The point of sale's script (console pages/pos.ts), served as it is under a content-hashed URL and
// type-checked by `npm run typecheck` (tsconfig.browser.json). The pages work as plain forms without it;
// it adds the keypad, charges without leaving the page (so the tap on "Tagih" still counts as the user's
// gesture when the payment arrives and the page must make a sound), follows the sale's status through
// the checkout's status stream, and announces the payment: a chime (WebAudio), then the amount said
// aloud in the page's language by the browser's speech synthesis, when the device has a voice for it.
// A sale's screen reached without a tap on this page (a reload, an opened link) cannot make sound on a
// phone: it shows a button that unlocks both the chime and the speech inside the tap.
(() => {
  const POLL_MS = 2000;
  /** How often a sale's status is checked while its stream is open: a database down behind a live server shows. */
  const WATCH_MS = 5000;
  /** How long "connected again" stays on screen. */
  const BACK_SHOWN_MS = 5000;
  /** @type {AudioContext | null} */
  let audio = null;
  /**
   * Whether speech was started inside a tap on this page. Some phones (Safari) speak later only once
   * `speak` has run inside a user gesture; there is no way to ask, so the page keeps count itself.
   */
  let speechUnlocked = !('speechSynthesis' in window) || typeof SpeechSynthesisUtterance === 'undefined';

  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/dashboard/pos-sw.js', { scope: '/dashboard/pos' }).catch(() => {
      // Not installable here (a plain-http address other than localhost): the page works as it is.
    });
  }

  /** The sound card, woken inside a tap: browsers let a page make sound only after the user touched it. */
  function wakeAudio() {
    const Ctx = window.AudioContext;
    if (!Ctx) return;
    try {
      audio ??= new Ctx();
      if (audio.state === 'suspended') void audio.resume();
    } catch (_e) {
      audio = null;
    }
  }

  /**
   * Inside a tap: the sound card woken and speech started once, `text` said aloud (the button's
   * confirmation) or a silent blank (a keypad tap, which must not talk).
   */
  function unlockSound(/** @type {string} */ text = '', /** @type {string} */ lang = 'id-ID') {
    wakeAudio();
    if (!('speechSynthesis' in window) || typeof SpeechSynthesisUtterance === 'undefined') return;
    if (speechUnlocked && text === '') return;
    speechUnlocked = true;
    const utterance = new SpeechSynthesisUtterance(text || ' ');
    utterance.lang = lang;
    if (text === '') utterance.volume = 0;
    window.speechSynthesis.speak(utterance);
  }

  /** Whether the page can make sound now: the chime's context running and speech started in a tap. */
  function soundReady() {
    const audioReady = !window.AudioContext || (audio !== null && audio.state === 'running');
    return audioReady && speechUnlocked;
  }

  /**
   * The "tap to turn on sound" button of a sale's screen: shown while the page cannot make sound, hidden
   * once it can (the context starts running a moment after resume(), hence the state change listener).
   */
  function soundButton(/** @type {HTMLElement} */ root) {
    const button = document.getElementById('pos-sound');
    if (!(button instanceof HTMLButtonElement)) return;
    const update = () => {
      button.hidden = soundReady();
    };
    // A context made before any tap starts suspended where the browser wants a gesture; where it does
    // not, it runs at once and only speech needs the tap.
    if (!audio && window.AudioContext) {
      try {
        audio = new window.AudioContext();
      } catch (_e) {
        audio = null;
      }
    }
    audio?.addEventListener('statechange', update);
    button.addEventListener('click', () => {
      unlockSound(button.dataset.said ?? '', root.dataset.speechLang ?? 'id-ID');
      chime();
      update();
    });
    update();
  }

  /** Two rising tones: the money is in. */
  function chime() {
    wakeAudio();
    if (!audio) return;
    const start = audio.currentTime + 0.02;
    for (const [i, freq] of [880, 1318.5].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = 'sine';
      osc.frequency.value = freq;
      const at = start + i * 0.18;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.4, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.5);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + 0.55);
    }
  }

  /** The device's voices; some browsers list them only after a moment (voiceschanged). */
  function voices() {
    const synth = window.speechSynthesis;
    return new Promise((resolve) => {
      const now = synth.getVoices();
      if (now.length > 0) return resolve(now);
      const done = () => resolve(synth.getVoices());
      synth.addEventListener('voiceschanged', done, { once: true });
      setTimeout(done, 1500);
    });
  }

  /** Says the text in `lang` with a voice of that language; says nothing where there is none (the chime stays). */
  async function say(/** @type {string} */ text, /** @type {string} */ lang) {
    if (!('speechSynthesis' in window) || typeof SpeechSynthesisUtterance === 'undefined') return;
    const base = lang.slice(0, 2).toLowerCase();
    /** @type {SpeechSynthesisVoice[]} */
    const all = await voices();
    const voice =
      all.find((v) => v.lang.replace('_', '-').toLowerCase() === lang.toLowerCase()) ??
      all.find((v) => v.lang.toLowerCase().startsWith(base));
    if (!voice) return;
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = lang;
    try {
      utterance.voice = voice;
    } catch (_e) {
      // The lang alone picks a voice.
    }
    window.speechSynthesis.speak(utterance);
  }

  function showOffline(/** @type {boolean} */ offline) {
    for (const note of document.querySelectorAll('.pos-offline')) /** @type {HTMLElement} */ (note).hidden = !offline;
    const charge = document.getElementById('pos-charge');
    if (charge instanceof HTMLButtonElement) charge.disabled = offline;
  }
  window.addEventListener('online', () => showOffline(false));
  window.addEventListener('offline', () => showOffline(true));

  /** The keypad: digits typed by buttons, shown as Rupiah while typed, kept in the form's amount field. */
  function keypad(/** @type {HTMLFormElement} */ form) {
    const input = /** @type {HTMLInputElement} */ (form.querySelector('#pos-amount'));
    const display = /** @type {HTMLOutputElement} */ (form.querySelector('#pos-display'));
    const pad = /** @type {HTMLElement} */ (form.querySelector('.pos-keypad'));
    const label = form.querySelector('label[for="pos-amount"]');
    const charge = /** @type {HTMLButtonElement} */ (form.querySelector('#pos-charge'));
    // The typed field gives way to the keypad; the label now names the display.
    input.hidden = true;
    input.required = false;
    if (label) label.setAttribute('for', 'pos-display');
    display.hidden = false;
    pad.hidden = false;
    const show = () => {
      display.textContent = payerRupiah(input.value || '0');
      charge.disabled = input.value === '' || !navigator.onLine;
    };
    pad.addEventListener('click', (event) => {
      const button = /** @type {HTMLElement} */ (event.target).closest('button');
      const key = button?.dataset.key;
      if (!key) return;
      unlockSound();
      let value = input.value;
      if (key === 'delete') value = value.slice(0, -1);
      else if (key === 'clear') value = '';
      else if (value !== '' || !/^0+$/.test(key)) value = (value + key).slice(0, 9);
      input.value = value;
      show();
    });
    show();

    let busy = false;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      // One press is one sale: a second tap while the first is on its way does nothing, and the form's
      // one-time key makes even a resent form the same sale on the server.
      if (busy || input.value === '') return;
      busy = true;
      unlockSound();
      charge.disabled = true;
      charge.textContent = form.dataset.charging ?? charge.textContent;
      try {
        const res = await fetch(form.action, { method: 'POST', body: new FormData(form), credentials: 'same-origin' });
        const page = new DOMParser().parseFromString(await res.text(), 'text/html');
        const main = page.getElementById('content');
        if (!main) throw new Error('no page');
        if (res.redirected) history.pushState(null, '', res.url);
        document.title = page.title;
        /** @type {HTMLElement} */ (document.getElementById('content')).replaceChildren(...main.childNodes);
        start();
      } catch (_e) {
        busy = false;
        charge.disabled = false;
        showOffline(!navigator.onLine);
        if (navigator.onLine) form.submit();
      }
    });
  }

  /** A pending sale: the countdown, the status stream (or polling), and the turn to the paid screen. */
  function sale(/** @type {HTMLElement} */ root) {
    soundButton(root);
    const expires = Number(root.dataset.expires);
    const skew = Number(root.dataset.now) - Date.now();
    const countdown = document.getElementById('pos-countdown');
    const tick = () => {
      const left = payerSecondsLeft(expires, Date.now() + skew);
      if (countdown) countdown.textContent = payerCountdownText(left);
      return left;
    };
    tick();
    const timer = setInterval(() => {
      if (tick() === 0) clearInterval(timer);
    }, 1000);
    let finished = false;
    const finish = (/** @type {string} */ status) => {
      if (finished || status === 'pending') return;
      finished = true;
      clearInterval(timer);
      if (status !== 'paid') {
        location.reload();
        return;
      }
      root.dataset.status = 'paid';
      const qr = document.getElementById('pos-qr');
      const paid = document.getElementById('pos-paid');
      if (qr) qr.hidden = true;
      if (paid) {
        paid.hidden = false;
        /** @type {HTMLElement | null} */ (paid.querySelector('h1'))?.focus();
      }
      chime();
      void say(root.dataset.announce ?? '', root.dataset.speechLang ?? 'id-ID');
    };
    // The connection to the server, as the sale's status checks find it: a banner says when it is lost
    // (a check not answered, or answered 5xx: the server or its database is down) and when it is back.
    const banner = document.getElementById('pos-connection');
    let lost = false;
    /** @type {number | undefined} */
    let backTimer;
    const connection = (/** @type {boolean} */ ok) => {
      if (!banner || ok !== lost) return;
      lost = !ok;
      window.clearTimeout(backTimer);
      banner.className = ok ? 'notice pos-connection' : 'notice error pos-connection';
      banner.textContent = (ok ? banner.dataset.back : banner.dataset.lost) ?? '';
      banner.hidden = false;
      if (ok)
        backTimer = window.setTimeout(() => {
          banner.hidden = true;
        }, BACK_SHOWN_MS);
    };
    /** @type {EventSource | null} */
    let source = null;
    /** One read of the sale's status; after an outage it is the re-check, and the stream is opened again. */
    const check = async () => {
      if (finished) return;
      try {
        const res = await fetch(`/checkout/${root.dataset.trxid}/status`, { cache: 'no-store' });
        if (res.status >= 500) throw new Error(`status ${res.status}`);
        const body = await res.json();
        const wasLost = lost;
        connection(true);
        if (body.success) finish(body.data.status);
        if (wasLost && !finished && source === null) listen();
      } catch (_e) {
        connection(false);
      }
    };
    // While the stream is open a status check now and then still finds a server whose database is down
    // (the stream itself stays quiet then); without the stream, the checks are how the payment is seen.
    const loop = async () => {
      await check();
      if (!finished) setTimeout(loop, source ? WATCH_MS : POLL_MS);
    };
    const listen = () => {
      const stream = new EventSource(/** @type {string} */ (root.dataset.events));
      source = stream;
      stream.addEventListener('status', (e) => {
        connection(true);
        finish(JSON.parse(/** @type {MessageEvent} */ (e).data).status);
      });
      // The stream ends after a final status, or is refused (too many streams) or dropped: a check at
      // once says which (and whether the server is there at all), then the checks go on.
      stream.addEventListener('error', () => {
        stream.close();
        if (source === stream) source = null;
        void check();
      });
    };
    listen();
    setTimeout(loop, WATCH_MS);

    // A sandbox sale paid from this screen: the tap unlocks the sound, and the status turns the screen.
    const simulate = root.querySelector('form[data-simulate]');
    if (simulate instanceof HTMLFormElement) {
      simulate.addEventListener('submit', async (event) => {
        event.preventDefault();
        unlockSound();
        const button = simulate.querySelector('button');
        if (button) button.disabled = true;
        try {
          await fetch(simulate.action, { method: 'POST', body: new FormData(simulate), credentials: 'same-origin' });
        } catch (_e) {
          // Not sent: the check below finds the connection lost, and the button can be pressed again.
        }
        if (button) button.disabled = false;
        await check();
      });
    }
  }

  function start() {
    const root = /** @type {HTMLElement | null} */ (document.querySelector('.pos'));
    if (!root) return;
    const form = document.getElementById('pos-sale');
    if (root.dataset.page === 'keypad' && form instanceof HTMLFormElement) keypad(form);
    if (root.dataset.page === 'sale' && root.dataset.status === 'pending') sale(root);
    showOffline(!navigator.onLine);
  }

  // Back from a sale shown in place: the keypad's address again, so load it afresh (a new one-time key).
  window.addEventListener('popstate', () => location.reload());
  start();
})();
