// The outside services of merchants' alerts, on loopback (node:http): a Telegram Bot API server that
// speaks sendMessage, getMe and getUpdates as https://core.telegram.org/bots/api documents them, and a Discord server that speaks
// execute-webhook (POST /api/webhooks/{id}/{token}, 204 No Content). They are the only stand-ins of the
// alert tests: what they receive is what Telegram and Discord would receive.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ChatRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, unknown> | null;
}

/** A failure to answer instead of the service's normal answer: the status and body as the service would send them. */
export interface Failure {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

abstract class LoopbackService {
  readonly requests: ChatRequest[] = [];
  /** Answered, in order, before the normal answers resume. */
  readonly failures: Failure[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  protected constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> | null = null;
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          json = null;
        }
        const request = { path: req.url ?? '', headers: req.headers, body, json };
        this.requests.push(request);
        const failure = this.failures.shift();
        if (failure)
          return void res
            .writeHead(failure.status, { 'Content-Type': 'application/json', ...failure.headers })
            .end(failure.body ?? '');
        this.answer(req, request, res);
      });
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  protected abstract answer(req: IncomingMessage, request: ChatRequest, res: ServerResponse): void;

  protected async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
};

/** Telegram's Bot API: POST /bot{token}/sendMessage with a JSON {chat_id, text}; bots it knows by token. */
export class TelegramServer extends LoopbackService {
  /** Tokens of the bots this server knows; any other gets Telegram's 401. */
  readonly tokens = new Set<string>();
  /** Messages delivered, as Telegram would show them in the chat. */
  readonly delivered: Array<{ token: string; chatId: string; text: string }> = [];
  private nextMessageId = 1;

  static async start(): Promise<TelegramServer> {
    const server = new TelegramServer();
    await server.listen();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Each bot's username, for getMe ("gateway_test_bot" unless set). */
  readonly usernames = new Map<string, string>();
  /** Bots with a webhook set: their getUpdates is Telegram's 409. */
  readonly webhooks = new Set<string>();
  private readonly updates = new Map<string, unknown[]>();
  private nextUpdateId = 1;

  /** What Telegram queues for the bot when someone sends it `text` in a chat (pressing Start on a link sends "/start <parameter>"). */
  message(token: string, chatId: number, text: string, chatType = 'private'): void {
    const list = this.updates.get(token) ?? [];
    list.push({
      update_id: this.nextUpdateId++,
      message: {
        message_id: this.nextMessageId++,
        from: { id: chatId, is_bot: false, first_name: 'Owner' },
        chat: { id: chatId, type: chatType },
        date: Math.floor(Date.now() / 1000),
        text,
      },
    });
    this.updates.set(token, list);
  }

  protected answer(req: IncomingMessage, request: ChatRequest, res: ServerResponse): void {
    const m = /^\/bot([^/]+)\/(sendMessage|getMe|getUpdates)$/.exec(request.path);
    if (req.method !== 'POST' || !m)
      return void sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (!this.tokens.has(m[1]!))
      return void sendJson(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (m[2] === 'getMe') {
      const username = this.usernames.get(m[1]!) ?? 'gateway_test_bot';
      return void sendJson(res, 200, {
        ok: true,
        result: { id: Number(m[1]!.split(':')[0]), is_bot: true, first_name: 'Gateway', username },
      });
    }
    if (m[2] === 'getUpdates') {
      if (this.webhooks.has(m[1]!))
        return void sendJson(res, 409, {
          ok: false,
          error_code: 409,
          description:
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        });
      return void sendJson(res, 200, { ok: true, result: this.updates.get(m[1]!) ?? [] });
    }
    const chatId = request.json?.chat_id;
    const text = request.json?.text;
    if (
      !String(req.headers['content-type']).startsWith('application/json') ||
      (typeof chatId !== 'string' && typeof chatId !== 'number')
    ) {
      return void sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: chat_id is empty' });
    }
    if (typeof text !== 'string' || text === '')
      return void sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    this.delivered.push({ token: m[1]!, chatId: String(chatId), text });
    sendJson(res, 200, {
      ok: true,
      result: {
        message_id: this.nextMessageId++,
        chat: { id: chatId, type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text,
      },
    });
  }
}

/** Discord's execute-webhook: POST /api/webhooks/{id}/{token} with a JSON {content}; 204 without ?wait=true. */
export class DiscordServer extends LoopbackService {
  readonly delivered: Array<{ path: string; content: string }> = [];

  static async start(): Promise<DiscordServer> {
    const server = new DiscordServer();
    await server.listen();
    return server;
  }

  /** A webhook URL of this server. */
  webhookUrl(id = '112233445566778899', token = 'dIsCoRdToKeN-abcdefghijklmnopqrstuvwxyz0123456789'): string {
    return `http://127.0.0.1:${this.port}/api/webhooks/${id}/${token}`;
  }

  protected answer(req: IncomingMessage, request: ChatRequest, res: ServerResponse): void {
    if (req.method !== 'POST' || !/^\/api\/webhooks\/[0-9]+\/[A-Za-z0-9_-]+(\?wait=true)?$/.test(request.path)) {
      return void sendJson(res, 404, { message: 'Unknown Webhook', code: 10015 });
    }
    const content = request.json?.content;
    if (typeof content !== 'string' || content === '')
      return void sendJson(res, 400, { message: 'Cannot send an empty message', code: 50006 });
    if (content.length > 2000) return void sendJson(res, 400, { content: ['Must be 2000 or fewer in length.'] });
    this.delivered.push({ path: request.path, content });
    if (request.path.endsWith('?wait=true')) return void sendJson(res, 200, { id: '1', content });
    res.writeHead(204).end();
  }
}

/** A token as @BotFather makes them. */
export const BOT_TOKEN = '7012345678:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw-x';
