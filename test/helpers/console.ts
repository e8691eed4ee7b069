// Console tests through Fastify's inject: a user, a login, the cookies and a page's CSRF token.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { addUser } from '../../src/services/users/add-user.js';
import type { Deps } from '../../src/services/deps.js';
import type { Actor } from '../../src/domain/actor.js';

export const PASSWORD = 'correct horse battery';
/** Who the tests' own setup steps are audited as (stored as `test`, as the CLI stores an operator's name). */
export const TEST_ACTOR: Actor = { kind: 'cli', operator: 'test' };

export async function addOperator(deps: Deps, email = 'ops@example.test', password = PASSWORD) {
  return addUser(deps, { email, password, role: 'operator' }, TEST_ACTOR);
}

export async function addMerchantUser(
  deps: Deps,
  merchantIds: string[],
  email = 'shop@example.test',
  password = PASSWORD,
) {
  return addUser(deps, { email, password, role: 'merchant', merchantIds }, TEST_ACTOR);
}

/** A browser's cookie jar, just enough of one: name=value pairs kept from Set-Cookie. */
export class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: LightMyRequestResponse): void {
    for (const c of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const gone = c.value === '' || c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() < Date.now());
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

/** The first CSRF token in a page. */
export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!m) throw new Error('no CSRF token in the page');
  return m[1]!;
}

/** A console session as a browser would hold it. */
export class ConsoleClient {
  readonly jar = new Jar();
  constructor(private readonly app: FastifyInstance) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({ method: 'GET', url, headers: { cookie: this.jar.header(), ...headers } });
    this.jar.take(res);
    return res;
  }

  /** HEAD: runs a GET route's handler, checks and all, and ends with the headers (a stream never ends by itself). */
  async head(url: string): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({ method: 'HEAD', url, headers: { cookie: this.jar.header() } });
    this.jar.take(res);
    return res;
  }

  /**
   * Posts a form; `_csrf` is taken from `from` (a page's URL) unless the fields carry one. A list is a
   * repeated field (checkboxes).
   */
  async post(
    url: string,
    fields: Record<string, string | string[]>,
    from = '/dashboard',
  ): Promise<LightMyRequestResponse> {
    const given = fields._csrf;
    const token = typeof given === 'string' ? given : csrfOf((await this.get(from)).body);
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...fields, _csrf: token })) {
      for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
    }
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    this.jar.take(res);
    return res;
  }

  async logIn(email: string, password = PASSWORD): Promise<LightMyRequestResponse> {
    return this.post('/dashboard/login', { email, password, next: '/dashboard' });
  }
}

/** The text of a page's success or error notice, unescaped; null when it has none. */
export function noticeOf(page: string): string | null {
  const text = /<p class="notice (?:success|error)" role="(?:status|alert)">([^<]*)<\/p>/.exec(page)?.[1];
  if (text === undefined) return null;
  return text
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
