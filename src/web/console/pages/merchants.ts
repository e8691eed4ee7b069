import { liveKeysState, type LiveApprovalFields } from '../../../domain/live-approval.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import type { Deps } from '../../../services/deps.js';
import { renameMerchant } from '../../../services/merchants/rename-merchant.js';
import { setMerchantEnabled } from '../../../services/merchants/set-merchant-enabled.js';
import { MERCHANT_NAME_MAX } from '../../../domain/merchant-name.js';
import { createMerchant } from '../../../services/merchants/create-merchant.js';
import { merchantNameProblem, type MerchantNameProblem } from '../../../domain/merchant-name.js';
import { previewMerchantQris, type MerchantQrisPreview } from '../../../services/merchants/preview-merchant-qris.js';
import { getVisibleMerchant } from '../../../services/merchants/get-visible-merchant.js';
import { nmidDuplicates, type NmidDuplicates } from '../../../services/merchants/nmid-duplicates.js';
import { listVisibleMerchantRows } from '../../../services/merchants/list-visible-merchant-rows.js';
import { resumeSession } from '../../../services/users/resume-session.js';
import { isOperator, type Viewer } from '../../../domain/viewer.js';
import { statusFor } from '../../../wire/error-status.js';
import { qrPngDataUrl } from '../../../qr/qr-png.js';
import { Form, Params, Segment, Text, Upload, pageSchema } from '../../forms.js';
import { consolePage, SESSION_COOKIE, UPLOAD_LIMIT_BYTES, type ConsolePage } from '../context.js';
import { translator, type Lang, type Translate } from '../../../presentation/messages.js';
import { words } from './merchants.words.js';
import { dailyReportSection, registerDailyReportSwitch } from './merchant-daily-report.js';
import { registerUniqueCodeChoice, uniqueCodeSection } from './merchant-unique-code.js';
import { formatTime } from '../../../presentation/format.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';

type T = Translate<keyof typeof words.en>;
const UPLOAD_SIZE = `${Math.round(UPLOAD_LIMIT_BYTES / 1024 / 1024)} MB`;
const notFound = (id: string) => new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });

/** What the add-merchant form had, to show it again with an error. */
interface FormState {
  name: string;
  payload: string;
}

/**
 * /dashboard/merchants: the list (a merchant user sees its own), and for operators adding a merchant from
 * a QRIS image or payload (preview first, then save), renaming, and disabling or enabling.
 */
export async function merchantRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  // Operators add merchants; so do self-service users (SIGNUP=invite or open), each becoming its member.
  const canAdd = (viewer: Viewer) => isOperator(viewer) || deps.config.signup !== 'closed';
  // A self-service user with MERCHANTS_PER_USER merchants is told so before filling in the form (the save
  // itself counts again, in its own database transaction).
  const atLimit = (viewer: Viewer) => !isOperator(viewer) && viewer.merchantIds.length >= deps.config.merchantsPerUser;

  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const merchantId = Params({ id: Segment() });

  app.get('/merchants', { schema: pageSchema({}) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const merchants = await listVisibleMerchantRows(deps, page.viewer);
    const notice = takeNotice(request, reply);
    const body = html`<div class="heading"><h1>${t('title')}</h1>${canAdd(page.viewer) ? html`<a class="button" href="/dashboard/merchants/new">${t('add')}</a>` : ''}</div>
${renderNotice(notice)}
${
  merchants.length === 0
    ? html`<p class="card muted">${t('none')}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('name')}</th><th class="hide-narrow">${t('city')}</th><th class="hide-narrow">${t('nmid')}</th><th class="hide-narrow">${t('acquirer')}</th><th class="hide-narrow">${t('created')}</th><th>${t('state')}</th></tr></thead>
<tbody>${merchants.map(
        (
          m,
        ) => html`<tr><td data-label="${t('name')}"><a href="/dashboard/merchants/${m.id}">${m.name}</a>${qrisNameBeside(t, m)}</td><td class="hide-narrow" data-label="${t('city')}">${m.merchant_city}</td>
<td class="mono hide-narrow" data-label="${t('nmid')}">${m.nmid ?? '–'}</td><td class="mono hide-narrow" data-label="${t('acquirer')}">${m.acquirer ?? '–'}</td><td class="hide-narrow" data-label="${t('created')}">${formatTime(m.created_at, page.lang)}</td>
<td data-label="${t('state')}">${stateBadge(t, m, deps.config.liveKeys)}</td></tr>`,
      )}</tbody></table></div>`
}`;
    return page.send(t('title'), 'merchants', body);
  });

  app.get('/merchants/new', { schema: pageSchema({}) }, async (request, reply) => {
    const page = consolePage(request, reply);
    if (!canAdd(page.viewer)) throw notFound('new');
    if (atLimit(page.viewer)) return sendLimit(page, deps.config.merchantsPerUser, 200);
    return sendForm(page, { name: '', payload: '' }, null, 200);
  });

  // The preview changes nothing; it answers with the form again (and its error) or with what was read.
  const previewForm = Form({ name: Text(), qris: Text(), image: Upload() });
  app.post(
    '/merchants/preview',
    { schema: pageSchema({ body: previewForm }), errorHandler: uploadRefused(deps) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      if (!canAdd(page.viewer)) throw notFound('new');
      const form: FormState = {
        name: (request.body.name ?? '').slice(0, 200),
        payload: (request.body.qris ?? '').slice(0, 2000),
      };
      const image = chosenFile(request.body.image);
      const t = translator(words, page.lang);
      if (atLimit(page.viewer)) return sendLimit(page, deps.config.merchantsPerUser, 403);
      // A name left empty is the one the QRIS carries (checked below, once the code is read).
      const typed = form.name.trim();
      const nameProblem = typed === '' ? null : merchantNameProblem(typed);
      if (nameProblem !== null) return sendForm(page, form, nameText(t, nameProblem), 400);
      if (!image && form.payload.trim() === '') return sendForm(page, form, t('errNeed'), 400);
      let preview: MerchantQrisPreview;
      try {
        preview = await previewMerchantQris(deps, image ? { image } : { payload: form.payload });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        // A busy or timed-out reader (503) says when to come back, as the API's 503s do.
        if (err.retryAfter !== undefined) reply.header('Retry-After', String(err.retryAfter));
        return sendForm(page, form, qrisErrorText(t, err), statusFor(err.code));
      }
      // A code Save would refuse (dynamic, bad CRC) is shown with the reason, on the form, without Save.
      if (!preview.savable)
        return sendForm(
          page,
          { ...form, payload: image ? form.payload : preview.payload },
          refusalText(t, preview),
          422,
          preview,
        );
      const name = typed || preview.merchantName.trim();
      // A QRIS name this gateway would refuse (a domain in it, say) goes back on the form to be changed.
      const readNameProblem = merchantNameProblem(name);
      if (readNameProblem !== null) {
        return sendForm(
          page,
          { name, payload: image ? form.payload : preview.payload },
          nameText(t, readNameProblem),
          400,
          preview,
        );
      }
      return sendPreview(page, name, preview, await nmidDuplicates(deps, page.viewer, preview.nmid));
    },
  );

  app.post(
    '/merchants',
    { schema: pageSchema({ body: Form({ name: Text(), qris: Text(), allowDuplicateNmid: Text() }) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      if (!canAdd(page.viewer)) throw notFound('new');
      const form: FormState = {
        name: (request.body.name ?? '').slice(0, 200),
        payload: (request.body.qris ?? '').slice(0, 2000),
      };
      try {
        // The payload came back from the preview through the browser: createMerchant checks it all again.
        const own = isOperator(page.viewer)
          ? {}
          : // A self-service merchant: its live keys wait for an operator (LIVE_KEYS=approval), it gets the
            // sign-up plan's daily quota, and its adder becomes its member.
            {
              liveApproved: deps.config.liveKeys === 'auto',
              dailyCreateQuota: deps.config.signupPlanDailyCreates,
              memberUserId: page.viewer.userId,
            };
        // "Save anyway" over a duplicate NMID is an operator's decision; a self-service user's is never taken.
        const allowDuplicateNmid = isOperator(page.viewer) && (request.body.allowDuplicateNmid ?? '') !== '';
        const row = await createMerchant(deps, {
          name: form.name,
          qris: form.payload,
          actor: page.viewer.actor,
          viewer: page.viewer,
          allowDuplicateNmid,
          ...own,
        });
        const t = translator(words, page.lang);
        return redirectWithNotice(reply, '/dashboard/merchants', {
          kind: 'success',
          text: t('addedNotice', { name: row.name }),
          link: { href: '/dashboard/keys', text: t('keysLink') },
        });
      } catch (err) {
        if (err instanceof AppError && err.code === 'merchant_limit_reached')
          return sendLimit(page, deps.config.merchantsPerUser, 403);
        // Saved meanwhile by someone else, or Save pressed without "Save anyway": the preview again, with why.
        if (err instanceof AppError && err.code === 'duplicate_nmid') {
          const preview = await previewMerchantQris(deps, { payload: form.payload });
          return sendPreview(
            page,
            form.name,
            preview,
            await nmidDuplicates(deps, page.viewer, preview.nmid),
            statusFor(err.code),
          );
        }
        if (!(err instanceof AppError) || (err.param !== 'name' && err.param !== 'qris')) throw err;
        const t = translator(words, page.lang);
        return sendForm(
          page,
          form,
          err.param === 'name' ? nameText(t, merchantNameProblem(form.name.trim())) : saveRefusalText(t, err),
          400,
        );
      }
    },
  );

  app.get('/merchants/:id', { schema: pageSchema({ params: merchantId }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const merchant = await getVisibleMerchant(deps, page.viewer, request.params.id);
    const t = translator(words, page.lang);
    const notice = takeNotice(request, reply);
    const operator = isOperator(page.viewer);
    const enabled = merchant.disabled_at == null;
    const body = html`<p><a href="/dashboard/merchants">← ${t('title')}</a></p>
<h1>${merchant.name}</h1>
<p class="muted">${merchant.name === merchant.merchant_name ? '' : html`${t('qrisNameBeside', { name: merchant.merchant_name })}. `}${t('whichName')}</p>
${renderNotice(notice)}
<section class="card"><dl class="fields">
<dt>${t('id')}</dt><dd class="mono">${merchant.id}</dd>
<dt>${t('state')}</dt><dd>${stateBadge(t, merchant, deps.config.liveKeys)}${
      enabled
        ? stateNote(t, merchant, deps.config.liveKeys)
        : html` <span class="muted">${t('disabledSince', { when: formatTime(merchant.disabled_at!, page.lang) })}</span>`
    }</dd>
<dt>${t('qrisName')}</dt><dd>${merchant.merchant_name}</dd>
<dt>${t('city')}</dt><dd>${merchant.merchant_city}</dd>
<dt>${t('nmid')}</dt><dd class="mono">${merchant.nmid ?? '–'}</dd>
<dt>${t('acquirer')}</dt><dd class="mono">${merchant.acquirer ?? '–'}</dd>
<dt>${t('created')}</dt><dd>${formatTime(merchant.created_at, page.lang)}</dd>
<dt>${t('staticQris')}</dt><dd class="mono">${merchant.qris_static}</dd>
</dl>
<p><a href="/dashboard/keys">${t('keysLink')}</a></p></section>
${uniqueCodeSection(page, merchant)}
${dailyReportSection(page, merchant)}
${
  operator
    ? html`<section class="card"><h2>${t('manage')}</h2>
<form method="post" action="/dashboard/merchants/${merchant.id}/rename" class="filters">
<input type="hidden" name="_csrf" value="${page.csrf}">
<div><label for="rename-name">${t('newName')}</label><input id="rename-name" name="name" value="${merchant.name}" required maxlength="${MERCHANT_NAME_MAX}"></div>
<div><button type="submit" class="secondary">${t('rename')}</button></div>
</form>
<form method="post" action="/dashboard/merchants/${merchant.id}/${enabled ? 'disable' : 'enable'}" data-confirm="${t(enabled ? 'confirmDisable' : 'confirmEnable', { name: merchant.name })}" class="actions">
<input type="hidden" name="_csrf" value="${page.csrf}">
<button type="submit"${enabled ? html` class="danger"` : ''}>${enabled ? t('disable') : t('enable')}</button>
</form></section>`
    : ''
}`;
    return page.send(merchant.name, 'merchants', body);
  });

  registerDailyReportSwitch(scope, deps);
  registerUniqueCodeChoice(scope, deps);

  app.post(
    '/merchants/:id/rename',
    { schema: pageSchema({ params: merchantId, body: Form({ name: Text() }) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const id = request.params.id;
      const name = request.body.name ?? '';
      let renamed: { name: string };
      try {
        renamed = await renameMerchant(deps, page.viewer, { id, name });
      } catch (err) {
        if (!(err instanceof AppError) || err.param !== 'name') throw err;
        const t = translator(words, page.lang);
        const merchant = await getVisibleMerchant(deps, page.viewer, id);
        const why = nameText(t, merchantNameProblem(name.trim()));
        return page.send(
          merchant.name,
          'merchants',
          html`<p><a href="/dashboard/merchants/${id}">← ${merchant.name}</a></p><p class="notice error" role="alert">${why}</p>`,
          400,
        );
      }
      const text = translator(words, page.lang)('renamedNotice', { name: renamed.name });
      return redirectWithNotice(reply, `/dashboard/merchants/${encodeURIComponent(id)}`, { kind: 'success', text });
    },
  );

  for (const [verb, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    app.post(
      `/merchants/:id/${verb}`,
      { schema: pageSchema({ params: merchantId, body: Form({}) }) },
      async (request, reply) => {
        const page = consolePage(request, reply);
        const row = await setMerchantEnabled(deps, page.viewer, { id: request.params.id, enabled });
        const text = translator(words, page.lang)(enabled ? 'enabledNotice' : 'disabledNotice');
        return redirectWithNotice(reply, `/dashboard/merchants/${encodeURIComponent(row.id)}`, {
          kind: 'success',
          text,
        });
      },
    );
  }
}

/** Why a name was refused, in words a person can act on. */
function nameText(t: T, problem: MerchantNameProblem | null): string {
  if (problem === 'link') return t('errNameLink');
  if (problem === 'control') return t('errNameControl');
  return t('errName');
}

/** A self-service user who has as many merchants as it may: the reason, and no form. */
function sendLimit(page: ConsolePage, max: number, status: number): FastifyReply {
  const t = translator(words, page.lang);
  const body = html`<p><a href="/dashboard/merchants">← ${t('title')}</a></p>
<h1>${t('newTitle')}</h1>
<p class="notice error" role="alert">${t('errLimit', { max: String(max) })}</p>`;
  return page.send(t('newTitle'), 'merchants', body, status);
}

/** Disabled, else waiting for an operator's approval of its live keys, or rejected by one, else active. */
function stateBadge(
  t: T,
  m: LiveApprovalFields & { disabled_at?: number | null },
  liveKeys: 'approval' | 'auto',
): SafeHtml {
  if (m.disabled_at != null) return html`<span class="badge disabled">${t('disabled')}</span>`;
  const state = liveKeysState(m, liveKeys);
  if (state === 'waiting') return html`<span class="badge pending">${t('waiting')}</span>`;
  if (state === 'rejected') return html`<span class="badge failed">${t('rejected')}</span>`;
  return html`<span class="badge ok">${t('active')}</span>`;
}

/** What an enabled merchant's page says beside its state when its live keys are refused. */
function stateNote(t: T, m: LiveApprovalFields, liveKeys: 'approval' | 'auto'): SafeHtml | '' {
  const state = liveKeysState(m, liveKeys);
  if (state === 'waiting') return html` <span class="muted">${t('waitingNote')}</span>`;
  if (state === 'rejected') return html` <span class="muted">${t('rejectedNote')}</span>`;
  return '';
}

/**
 * The uploaded file, if one was chosen: a browser sends an empty part when none was, and a plain form may
 * send the field as text, which is no file either (Upload() leaves the check of its type to here).
 */
function chosenFile(value: unknown): Uint8Array | null {
  return value instanceof Uint8Array && value.length > 0 ? value : null;
}

/** A QRIS or image refusal in words a person can act on; the technical detail stays in the message. */
function qrisErrorText(t: T, err: AppError): string {
  const detail = err.message.replace(/\.$/, '');
  switch (err.code) {
    case 'invalid_qris':
      return t('errInvalid', { detail });
    case 'image_unsupported':
      return t('errUnsupported');
    case 'image_too_large':
      return t('errImageTooLarge', { detail });
    case 'image_corrupt':
      return t('errCorrupt');
    case 'qr_not_found':
      return t('errNotFound');
    case 'image_decode_timeout':
      return t('errTimeout');
    case 'service_unavailable':
      return t('errBusy');
    default:
      return t('errImage', { detail });
  }
}

/** Why Save would refuse a code that was read (its preview's refusal, from createMerchant's own rule). */
function refusalText(t: T, preview: MerchantQrisPreview): string {
  if (!preview.isStatic) return t('errDynamic');
  if (!preview.crcValid) return t('errCrc', { detail: preview.refusal ?? 'CRC' });
  return t('errInvalid', { detail: (preview.refusal ?? '').replace(/\.$/, '') });
}

/** qrisErrorText in a language, for tests of the words. */
export const qrisErrorWords = (lang: Lang, err: AppError): string => qrisErrorText(translator(words, lang), err);

/** A payload refused on Save (it came back from the browser changed): the same words as the preview's. */
function saveRefusalText(t: T, err: AppError): string {
  if (/not a static QRIS/.test(err.message)) return t('errDynamic');
  if (/bad CRC/.test(err.message)) return t('errCrc', { detail: err.message.replace(/\.$/, '') });
  return qrisErrorText(t, err);
}

function sendForm(
  page: ConsolePage,
  form: FormState,
  error: string | null,
  status: number,
  read: MerchantQrisPreview | null = null,
): FastifyReply {
  const t = translator(words, page.lang);
  const body = html`<p><a href="/dashboard/merchants">← ${t('title')}</a></p>
<h1>${t('newTitle')}</h1>
${error ? html`<p class="notice error" role="alert">${error}</p>` : ''}
${read ? html`<section class="card"><h2>${t('readTitle')}</h2>${readFields(t, read, null)}</section>` : ''}
<form method="post" action="/dashboard/merchants/preview" enctype="multipart/form-data" class="card add-merchant">
<input type="hidden" name="_csrf" value="${page.csrf}">
<p class="muted">${t('newIntro')}</p>
<label for="merchant-name">${t('name')}</label>
<input id="merchant-name" name="name" value="${form.name}" maxlength="${MERCHANT_NAME_MAX}" aria-describedby="merchant-name-hint">
<p class="hint" id="merchant-name-hint">${t('nameHint')}</p>
<label for="merchant-image">${t('image')}</label>
<input id="merchant-image" name="image" type="file" accept="image/png,image/jpeg" aria-describedby="merchant-image-hint">
<p class="hint" id="merchant-image-hint">${t('imageHint', { size: UPLOAD_SIZE })}</p>
<p class="or">${t('or')}</p>
<label for="merchant-qris">${t('payload')}</label>
<textarea id="merchant-qris" name="qris" rows="4" spellcheck="false" autocomplete="off" aria-describedby="merchant-qris-hint">${form.payload}</textarea>
<p class="hint" id="merchant-qris-hint">${t('payloadHint')}</p>
<p class="buttons"><button type="submit">${t('preview')}</button> <a href="/dashboard/merchants">${t('cancel')}</a></p>
</form>`;
  return page.send(t('newTitle'), 'merchants', body, status);
}

/** What a preview read from the code, as a list (the merchant's name in this gateway first, when given). */
function readFields(t: T, p: MerchantQrisPreview, name: string | null): SafeHtml {
  const badge = (yes: boolean, good: string, bad: string) =>
    html`<span class="badge ${yes ? 'ok' : 'failed'}">${yes ? good : bad}</span>`;
  return html`<dl class="fields">
${name === null ? '' : html`<dt>${t('name')}</dt><dd><strong>${name}</strong></dd>`}
<dt>${t('qrisName')}</dt><dd>${p.merchantName}</dd>
<dt>${t('city')}</dt><dd>${p.city}</dd>
<dt>${t('nmid')}</dt><dd class="mono">${p.nmid ?? '–'}</dd>
<dt>${t('acquirer')}</dt><dd class="mono">${p.acquirer ?? '–'}</dd>
<dt>${t('type')}</dt><dd>${badge(p.isStatic, t('static'), t('dynamic'))}</dd>
<dt>${t('crc')}</dt><dd>${badge(p.crcValid, t('crcValid'), t('crcInvalid'))}</dd>
</dl>
<details><summary>${t('payloadShown')}</summary><p class="mono">${p.payload}</p></details>`;
}

/**
 * The code as read, and Save. A code whose NMID is already saved is warned about: an operator may tick
 * "Save anyway"; a self-service user is told to ask the operator, without Save. Another merchant is
 * named only to a viewer who may see it.
 */
function sendPreview(
  page: ConsolePage,
  name: string,
  p: MerchantQrisPreview,
  dups: NmidDuplicates,
  status = 200,
): FastifyReply {
  const t = translator(words, page.lang);
  const operator = isOperator(page.viewer);
  const duplicate = dups.count > 0;
  const named =
    dups.visible.length === 0
      ? ''
      : html` ${t('dupNamed')} ${dups.visible.map((m, i) => html`${i > 0 ? ', ' : ''}<a href="/dashboard/merchants/${m.id}">${m.name}</a>`)}.`;
  const warning = duplicate
    ? html`<p class="notice error" role="alert">${t('dupWarning', { nmid: p.nmid ?? '' })}${named} ${operator ? t('dupOperator') : t('dupMerchant')}</p>`
    : '';
  const save =
    duplicate && !operator
      ? ''
      : html`<form method="post" action="/dashboard/merchants" class="buttons">
<input type="hidden" name="_csrf" value="${page.csrf}">
<input type="hidden" name="name" value="${name}">
<input type="hidden" name="qris" value="${p.payload}">
${duplicate ? html`<p><input type="checkbox" id="allow-duplicate-nmid" name="allowDuplicateNmid" value="1"> <label for="allow-duplicate-nmid" class="inline">${t('saveAnyway')}</label></p>` : ''}
<button type="submit">${t('save')}</button> <a class="button secondary" href="/dashboard/merchants/new">${t('again')}</a>
</form>`;
  const body = html`<p><a href="/dashboard/merchants">← ${t('title')}</a></p>
<h1>${t('previewTitle')}</h1>
${warning}
<section class="card preview">
<img src="${qrPngDataUrl(p.payload)}" alt="${t('qrAlt')}" width="220" height="220">
<div>
<p class="muted">${t('previewIntro')}</p>
${readFields(t, p, name)}
${save === '' ? html`<p class="buttons"><a class="button secondary" href="/dashboard/merchants/new">${t('again')}</a></p>` : save}
</div>
</section>`;
  return page.send(t('previewTitle'), 'merchants', body, status);
}

/**
 * The preview route's error handler. An upload over the limit is refused while the form is parsed,
 * before the console has found the viewer: the viewer is found here, so the error is shown on the form
 * rather than on a bare error page. Anything else goes on to the console's own handler.
 */
function uploadRefused(deps: Deps) {
  return async function onPreviewError(
    error: FastifyError,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const tooLarge =
      error.code === 'FST_REQ_FILE_TOO_LARGE' ||
      error.code === 'FST_PARTS_LIMIT' ||
      error.code === 'FST_FILES_LIMIT' ||
      error.statusCode === 413;
    if (!tooLarge) throw error;
    request.viewer ??= await resumeSession(deps, request.cookies[SESSION_COOKIE]);
    if (!request.viewer) return reply.redirect('/dashboard?next=%2Fdashboard%2Fmerchants%2Fnew&expired=1', 303);
    if (!isOperator(request.viewer)) throw notFound('new');
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    return sendForm(page, { name: '', payload: '' }, t('errTooLarge', { size: UPLOAD_SIZE }), 413);
  };
}

/**
 * The console calls a merchant by its name in this gateway; payers see the name its QRIS carries (the
 * checkout page, their e-mails, their bank app). Where the two differ, the QRIS name is shown beside.
 */
function qrisNameBeside(t: T, m: { name: string; merchant_name: string }): SafeHtml | '' {
  // The space inside the span: a phone's table cards drop a space standing alone between two elements.
  return m.name === m.merchant_name
    ? ''
    : html`<span class="muted qris-name"> ${t('qrisNameBeside', { name: m.merchant_name })}</span>`;
}
