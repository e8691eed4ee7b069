// The soundbox page's script (issue 27, section 2): follows the merchant's payment stream, says each new
// payment aloud with a chime, lists the day's payments with the total, keeps the screen on, shows when it
// is offline and reconnects by itself after the last event it saw. Every text it shows or says comes
// from the page (data-texts) or the stream, in the page's language.

/**
 * @typedef {{ trxid: string, amount: string, time: string, ref: string | null, issuer: string | null, test: boolean, late: boolean }} Shown
 * @typedef {{ today: string, count: string, test: string }} Totals
 */

(() => {
  const root = /** @type {HTMLElement | null} */ (document.querySelector('[data-soundbox]'));
  if (!root) return;
  const eventsUrl = root.dataset.events ?? '';
  /** The server's readiness (503 database_unavailable while it cannot reach its database). */
  const readyUrl = root.dataset.ready ?? '/readyz';
  const speechLang = root.dataset.speechLang ?? 'id-ID';
  /** No event for this long (three heartbeats) means the stream died without an error. */
  const quietMs = Number(root.dataset.quietMs ?? '60000');
  /** @type {Record<string, string>} */
  const texts = JSON.parse(root.dataset.texts ?? '{}');
  const text = (/** @type {string} */ key) => texts[key] ?? '';
  /** @type {<T extends Element>(selector: string) => T} */
  const part = (selector) => {
    const found = root.querySelector(selector);
    if (!found) throw new Error(`soundbox: no ${selector}`);
    return /** @type {any} */ (found);
  };
  const state = /** @type {HTMLElement} */ (part('[role=status]'));
  const startButton = /** @type {HTMLButtonElement} */ (part('[data-start]'));
  const startHint = /** @type {HTMLElement} */ (part('[data-start-hint]'));
  const totalEl = /** @type {HTMLElement} */ (part('[data-total]'));
  const countEl = /** @type {HTMLElement} */ (part('[data-count]'));
  const testEl = /** @type {HTMLElement} */ (part('[data-test-total]'));
  const list = /** @type {HTMLOListElement} */ (part('[data-list]'));
  const none = /** @type {HTMLElement} */ (part('[data-none]'));

  /** Transactions already announced or listed: a payment is said once, whatever the stream sends again. */
  const heard = new Set();
  /** The id of the last event seen: where a reconnect resumes. */
  let cursor = '';
  /** @type {EventSource | null} */
  let source = null;
  /** @type {number | null} */
  let retry = null;
  let retryMs = 1000;
  let lastMessageAt = Date.now();
  let soundOn = false;
  /** @type {AudioContext | null} */
  let audio = null;
  /** @type {any} */
  let wakeLock = null;

  /** What the status line says: `kind` is its state; `words` its text when another than the state's own. */
  const show = (/** @type {string} */ kind, words = kind) => {
    state.dataset.state = kind;
    state.textContent = text(words);
  };
  /** Whether the page was cut off (offline, reconnecting or the server's database down) since it was last live. */
  const wasCut = () => state.dataset.state !== 'live' && state.dataset.state !== 'connecting';

  const showTotals = (/** @type {Totals} */ totals) => {
    totalEl.textContent = totals.today;
    countEl.textContent = totals.count;
    testEl.textContent = totals.test;
  };

  /** One payment at the top of the list (newest first). */
  const addRow = (/** @type {Shown} */ p) => {
    const item = document.createElement('li');
    item.dataset.trxid = p.trxid;
    const amount = document.createElement('strong');
    amount.className = 'sb-amount';
    amount.textContent = p.amount;
    const time = document.createElement('span');
    time.className = 'muted';
    time.textContent = p.time;
    item.append(amount, ' ', time);
    const facts = [
      p.test ? text('test') : '',
      p.late ? text('late') : '',
      p.issuer ?? '',
      p.ref ? `${text('reference')} ${p.ref}` : '',
    ].filter(Boolean);
    if (facts.length > 0) {
      const more = document.createElement('div');
      more.className = 'muted';
      more.textContent = facts.join(' · ');
      item.append(more);
    }
    list.prepend(item);
    none.hidden = true;
  };

  const clearList = () => {
    list.replaceChildren();
    none.hidden = false;
  };

  /** A short two-note chime through Web Audio (allowed once the page was tapped). */
  const chime = () => {
    if (!audio) return;
    const start = audio.currentTime;
    for (const [offset, frequency] of [
      [0, 880],
      [0.18, 1320],
    ]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = /** @type {number} */ (frequency);
      gain.gain.setValueAtTime(0.25, start + /** @type {number} */ (offset));
      gain.gain.exponentialRampToValueAtTime(0.001, start + /** @type {number} */ (offset) + 0.35);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + /** @type {number} */ (offset));
      tone.stop(start + /** @type {number} */ (offset) + 0.4);
    }
  };

  /** Whether the device has a voice for the page's language (an empty list: not known yet, so try). */
  const hasVoice = () => {
    if (!('speechSynthesis' in window)) return false;
    const voices = window.speechSynthesis.getVoices();
    const base = speechLang.slice(0, 2).toLowerCase();
    return voices.length === 0 || voices.some((v) => v.lang.replace('_', '-').toLowerCase().startsWith(base));
  };

  const announce = (/** @type {string} */ sentence) => {
    if (!soundOn) return;
    chime();
    if (!hasVoice()) return;
    const utterance = new SpeechSynthesisUtterance(sentence);
    utterance.lang = speechLang;
    window.speechSynthesis.speak(utterance);
  };

  const keepScreenOn = async () => {
    const nav = /** @type {any} */ (navigator);
    if (!nav.wakeLock || document.visibilityState !== 'visible' || wakeLock) return;
    try {
      wakeLock = await nav.wakeLock.request('screen');
      wakeLock.addEventListener('release', () => {
        wakeLock = null;
      });
    } catch {
      // Refused (battery saver, no permission): the page works on, with the screen's own timeout.
    }
  };

  startButton.addEventListener('click', () => {
    soundOn = true;
    const Context = window.AudioContext ?? /** @type {any} */ (window).webkitAudioContext;
    if (Context && !audio) audio = new Context();
    void audio?.resume();
    startButton.textContent = text('soundOn');
    startButton.disabled = true;
    startHint.textContent = hasVoice() ? '' : text('noVoice');
    void keepScreenOn();
  });
  // The lock is released whenever the page is hidden; it is asked again when it shows.
  document.addEventListener('visibilitychange', () => {
    if (soundOn) void keepScreenOn();
  });

  const drop = () => {
    source?.close();
    source = null;
  };

  /**
   * A stream that could not be opened says nothing of why (EventSource gives no status). When the server
   * answers but cannot reach its database, its readiness says so, and the page says so too rather than
   * "reconnecting": a reconnect refused while the database is down must not look like a network fault.
   */
  const askWhy = () => {
    fetch(readyUrl, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(async (response) => {
        if (response.ok || source !== null || state.dataset.state !== 'reconnecting') return;
        const body = await response.json().catch(() => null);
        const code = body?.error?.code;
        if (code === 'database_unavailable' || code === 'storage_unavailable') show('trouble');
      })
      .catch(() => {
        // Not even the readiness answers: a network fault, which "reconnecting" already says.
      });
  };

  const schedule = () => {
    if (retry !== null) return;
    retry = window.setTimeout(() => {
      retry = null;
      connect();
    }, retryMs);
    retryMs = Math.min(retryMs * 2, 15_000);
  };

  /** Notes the last event's id (Last-Event-ID) as the place to resume from. */
  const seen = (/** @type {MessageEvent} */ event) => {
    lastMessageAt = Date.now();
    if (event.lastEventId) cursor = event.lastEventId;
  };

  const connect = () => {
    drop();
    if (!navigator.onLine) return show('offline');
    const url = cursor ? `${eventsUrl}&after=${encodeURIComponent(cursor)}` : eventsUrl;
    const stream = new EventSource(url);
    source = stream;
    lastMessageAt = Date.now();
    stream.addEventListener('hello', (event) => {
      seen(event);
      const data = JSON.parse(event.data);
      clearList();
      for (const p of /** @type {Shown[]} */ (data.recent)) {
        heard.add(p.trxid);
        addRow(p);
      }
      showTotals(data.totals);
      retryMs = 1000;
      show('live', wasCut() ? 'back' : 'live');
    });
    stream.addEventListener('payment', (event) => {
      seen(event);
      const data = JSON.parse(event.data);
      if (data.newDay) clearList();
      showTotals(data.totals);
      if (heard.has(data.payment.trxid)) return;
      heard.add(data.payment.trxid);
      if (data.today) addRow(data.payment);
      announce(data.say);
    });
    stream.addEventListener('day', (event) => {
      seen(event);
      clearList();
      showTotals(JSON.parse(event.data).totals);
    });
    stream.addEventListener('ping', seen);
    // The server is up but cannot reach its database (issue 37, section 5): no payment can be recorded,
    // so the page must not go on saying it is connected. It reconnects, which re-reads the day once the
    // database is back.
    stream.addEventListener('trouble', () => {
      if (source !== stream) return;
      drop();
      show('trouble');
      schedule();
    });
    stream.addEventListener('error', () => {
      // EventSource retries by itself only after a dropped connection, not after a refusal; this page
      // reconnects itself either way, after the last event it saw. A refused reconnect while the
      // database is down keeps saying so.
      if (source !== stream) return;
      drop();
      if (!navigator.onLine) show('offline');
      else if (state.dataset.state !== 'trouble') {
        show('reconnecting');
        askWhy();
      }
      schedule();
    });
  };

  window.addEventListener('offline', () => {
    drop();
    show('offline');
  });
  window.addEventListener('online', () => {
    if (retry !== null) window.clearTimeout(retry);
    retry = null;
    retryMs = 1000;
    connect();
  });
  // A stream that went quiet is dead although no error said so. While the server's database is down the
  // page keeps saying so (a reconnect that hangs on a loaded server is no news about the database).
  window.setInterval(() => {
    if (source && Date.now() - lastMessageAt > quietMs) {
      drop();
      if (state.dataset.state !== 'trouble') {
        show('reconnecting');
        askWhy();
      }
      schedule();
    }
  }, 5000);

  connect();
})();
