// Console forms that ConsoleClient does not post itself (multipart uploads), and the API call the
// console's merchant and key tests check their effect with.
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './context.js';
import { csrfOf, type ConsoleClient } from './console.js';

/** A multipart/form-data body as a browser sends it: text fields, and at most one file. */
export function multipart(
  fields: Record<string, string>,
  file?: { name: string; filename: string; type: string; data: Buffer },
) {
  const boundary = `----qgtest${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Posts the add-merchant form (multipart), with a CSRF token of the session. */
export async function postPreview(
  t: TestApp,
  c: ConsoleClient,
  fields: Record<string, string>,
  file?: Parameters<typeof multipart>[1],
): Promise<LightMyRequestResponse> {
  const token = csrfOf((await c.get('/dashboard')).body);
  const body = multipart({ _csrf: token, ...fields }, file);
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/merchants/preview',
    headers: { cookie: c.jar.header(), 'content-type': body.contentType },
    payload: body.payload,
  });
  c.jar.take(res);
  return res;
}

/** A create (POST: 201) with the key, or another API request. */
export async function api(
  t: TestApp,
  key: string,
  path = '/api/payment-gateway/cqris',
  method: 'GET' | 'POST' = 'POST',
) {
  return method === 'POST'
    ? t.app.inject({
        method,
        url: path,
        headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'amount=10000',
      })
    : t.app.inject({ method, url: path, headers: { 'x-api-key': key } });
}
