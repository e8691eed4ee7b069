// Sends one fuzz request over real HTTP (a fresh connection each, so a connection the server drops is
// seen as such and blamed on the request that caused it).
import http from 'node:http';
import type { FuzzRequest } from './generators.js';

export interface FuzzAnswer {
  status: number | null;
  headers: http.IncomingHttpHeaders;
  /** The body as text (latin1, byte for byte); a stream is cut after its first bytes. */
  body: string;
  /** Why no answer came: the connection dropped, or the server said nothing in time. */
  error: string | null;
}

const STREAM_READ_MS = 300;
const MAX_BODY = 2 * 1024 * 1024;

export function send(port: number, req: FuzzRequest, timeoutMs = 15_000): Promise<FuzzAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: FuzzAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    let clientReq: http.ClientRequest;
    try {
      clientReq = http.request({
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.path,
        headers: req.body ? { ...req.headers, 'content-length': String(req.body.length) } : req.headers,
        agent: false,
        // Answers are read as the server wrote them; a lenient parser would hide nothing we check.
        insecureHTTPParser: false,
      });
    } catch (err) {
      // node:http refused to write it (a header it cannot send): not the server's doing.
      resolve({ status: -1, headers: {}, body: '', error: `client refused: ${(err as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      clientReq.destroy();
      finish({ status: null, headers: {}, body: '', error: `no answer in ${timeoutMs} ms` });
    }, timeoutMs);
    clientReq.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        finish({
          status: res.statusCode ?? null,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('latin1'),
          error: null,
        });
        res.destroy();
      };
      // An answer to HEAD has no body to wait for (and a server that wrote one anyway, as Node's own
      // refusals of unparseable requests do, is not hanging up on us).
      if (req.method === 'HEAD') return done();
      // Event streams never end by themselves: their start is what is judged.
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) setTimeout(done, STREAM_READ_MS);
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) chunks.push(c);
        else done();
      });
      res.on('end', done);
      res.on('error', done);
      res.on('aborted', () =>
        finish({ status: res.statusCode ?? null, headers: res.headers, body: '', error: 'the answer was cut off' }),
      );
    });
    clientReq.on('error', (err) =>
      finish({
        status: null,
        headers: {},
        body: '',
        error: `connection dropped: ${(err as NodeJS.ErrnoException).code ?? err.message}`,
      }),
    );
    if (req.body) clientReq.end(req.body);
    else clientReq.end();
  });
}
