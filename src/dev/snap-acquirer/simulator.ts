// A SNAP BI QRIS MPM acquirer on node:http, for tests and for operators trying the integration
// (`qris-gateway dev acquirer`). It checks the gateway's signatures as a real acquirer would, so a
// green test against it means the wire format is right, not merely self-consistent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { randomBase62 } from '../../domain/ids.js';
import { buildQris, toDynamic } from '../../domain/qris/index.js';
import { SNAP_PATHS, newExternalId } from '../../payment-sources/snap/client.js';
import { DEFAULT_NOTIFY_PATH } from '../../payment-sources/snap/config.js';
import { parseObject } from '../../payment-sources/snap/inbound.js';
import { sendSimulatedNotification, type NotifyOptions, type NotifyResult } from './notify.js';
import { refundedSum, simulateRefund, type RefundDesk } from './refund.js';
import {
  parseSnapTimestamp,
  snapTimestamp,
  verifyAccessToken,
  verifySymmetric,
} from '../../payment-sources/snap/signature.js';
import type { SimulatedCode, SimulatedRefund, SimulatorPartner } from './types.js';

export type { SimulatedCode, SimulatedRefund, SimulatorPartner } from './types.js';

type Endpoint = 'token' | 'generate' | 'query' | 'cancel' | 'refund';
type Answer = [status: number, body: Record<string, unknown>];

const SERVICE: Record<Endpoint, string> = { token: '73', generate: '47', query: '51', cancel: '77', refund: '78' };
const WINDOW_MS = 300_000;
const STATUS_DESC: Record<string, string> = { '00': 'Success', '04': 'Refunded', '05': 'Cancelled' };

export class AcquirerSimulator implements RefundDesk {
  readonly baseUrl: string;
  /** The acquirer's own key pair: notifications are signed with it. */
  readonly privateKey: KeyObject;
  readonly publicKeyPem: string;
  readonly counts = { token: 0, generate: 0, query: 0, cancel: 0, refund: 0, notify: 0 };
  /** One-shot failure injection: the next call of that endpoint answers this HTTP status. */
  readonly failNext: Partial<Record<Endpoint, number>> = {};
  /** One-shot stall: the next call of that endpoint is answered only after this many milliseconds. */
  readonly stallNext: Partial<Record<Endpoint, number>> = {};
  readonly codes = new Map<string, SimulatedCode>();
  /** Every refund asked for, by `${clientId}:${partnerRefundNo}` (dev/snap-acquirer/refund.ts). */
  readonly refunds = new Map<string, SimulatedRefund>();
  /** One-shot: the next new refund is refused by the payer's issuer, with this reason (403 78 05). */
  refuseNextRefund: string | null = null;
  /** One-shot: the next new refund answers "in progress" to this many asks of its partnerRefundNo, then settles. */
  refundInProgressAsks = 0;
  private readonly partners = new Map<string, SimulatorPartner>();
  private readonly tokens = new Map<string, { partner: SimulatorPartner; expiresAt: number }>();
  private readonly externalIds = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly pathPrefix: string,
  ) {
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.baseUrl = `http://${host}:${address.port}`;
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  static async start(options: { port?: number; host?: string; pathPrefix?: string } = {}): Promise<AcquirerSimulator> {
    let sim: AcquirerSimulator | null = null;
    const server = createServer((req, res) => void sim!.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    sim = new AcquirerSimulator(server, options.pathPrefix ?? '');
    return sim;
  }

  /**
   * Registers a merchant (partner) with fresh credentials and returns the source config the gateway's
   * operator would pass to `source add --type snap --config FILE`.
   */
  addPartner(
    options: {
      gatewayUrl?: string;
      notifyVerification?: 'asymmetric' | 'symmetric';
      signatureEncoding?: 'base64' | 'hex';
    } = {},
  ) {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const partner: SimulatorPartner = {
      clientId: `sim-client-${randomBase62(10)}`,
      clientSecret: randomBytes(24).toString('base64url'),
      partnerId: `SIM${randomBase62(8)}`,
      channelId: '95221',
      merchantId: `M${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`,
      terminalId: 'T0001',
      publicKey: keys.publicKey,
      notifyUrl: options.gatewayUrl ? `${options.gatewayUrl.replace(/\/+$/, '')}${DEFAULT_NOTIFY_PATH}` : null,
      notifyVerification: options.notifyVerification ?? 'asymmetric',
      signatureEncoding: options.signatureEncoding ?? 'base64',
    };
    this.partners.set(partner.clientId, partner);
    return {
      baseUrl: this.baseUrl,
      ...(this.pathPrefix ? { pathPrefix: this.pathPrefix } : {}),
      partnerId: partner.partnerId,
      clientId: partner.clientId,
      clientSecret: partner.clientSecret,
      privateKeyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      acquirerPublicKeyPem: this.publicKeyPem,
      merchantId: partner.merchantId,
      terminalId: partner.terminalId,
      channelId: partner.channelId,
      notifyVerification: partner.notifyVerification,
      signatureEncoding: partner.signatureEncoding,
    };
  }

  /** A code by the acquirer's referenceNo or by the gateway's partnerReferenceNo (trxid). */
  code(reference: string): SimulatedCode | undefined {
    return this.codes.get(reference) ?? [...this.codes.values()].find((c) => c.partnerReferenceNo === reference);
  }

  /** What has been refunded of a code (refunds settled, and with inProgress: true, those under way too). */
  refunded(reference: string, options: { inProgress?: boolean } = {}): number {
    const code = this.code(reference);
    if (!code) throw new Error(`the simulator issued no code ${reference}`);
    return refundedSum(this, code, options.inProgress ? undefined : 'succeeded');
  }

  /** The payer pays: the code turns 00, and unless told otherwise the gateway is notified. */
  async pay(
    reference: string,
    options: NotifyOptions & { notify?: boolean; payerName?: string; issuer?: string } = {},
  ): Promise<NotifyResult | null> {
    const code = this.code(reference);
    if (!code) throw new Error(`the simulator issued no code ${reference}`);
    if (code.status === '05') throw new Error(`code ${reference} was cancelled; a payer's app refuses it`);
    code.status = '00';
    code.paidAt = Date.now();
    if (options.payerName) code.payerName = options.payerName;
    if (options.issuer) code.issuer = options.issuer;
    return options.notify === false ? null : this.notify(code.referenceNo, options);
  }

  /** Sends (or, with send: false, only builds) the signed notification of a code's current state. */
  async notify(reference: string, options: NotifyOptions = {}): Promise<NotifyResult> {
    const code = this.code(reference);
    if (!code) throw new Error(`the simulator issued no code ${reference}`);
    this.counts.notify += 1;
    return sendSimulatedNotification(this.privateKey, code, options);
  }

  /** Forgets every token it issued, as an acquirer restarting or rotating would. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0]!;
    let answer: Answer;
    try {
      answer = await this.route(req, path, raw);
    } catch (err) {
      answer = [500, { responseCode: '5000000', responseMessage: `General Error: ${String(err)}` }];
    }
    res.writeHead(answer[0], { 'Content-Type': 'application/json' }).end(JSON.stringify(answer[1]));
  }

  private async route(req: IncomingMessage, path: string, raw: string): Promise<Answer> {
    if (req.method === 'POST' && path === '/dev/pay') {
      const body = (parseObject(raw) ?? {}) as { reference?: string };
      if (!body.reference || !this.code(body.reference))
        return [404, { error: 'no such code; send {"reference": "<referenceNo or trxid>"}' }];
      const notified = await this.pay(body.reference);
      return [200, { paid: body.reference, notification: notified }];
    }
    const endpoint = (Object.keys(SNAP_PATHS) as Array<keyof typeof SNAP_PATHS>).find(
      (k) => k !== 'notify' && `${this.pathPrefix}${SNAP_PATHS[k]}` === path,
    ) as Endpoint | undefined;
    if (req.method !== 'POST' || !endpoint) return [404, { responseCode: '4040000', responseMessage: 'Not Found' }];
    this.counts[endpoint] += 1;
    const stall = this.stallNext[endpoint];
    if (stall !== undefined) {
      delete this.stallNext[endpoint];
      await new Promise((resolve) => setTimeout(resolve, stall));
    }
    const fail = (status: number, caseCode: string, message: string): Answer => [
      status,
      { responseCode: `${status}${SERVICE[endpoint]}${caseCode}`, responseMessage: message },
    ];
    const injected = this.failNext[endpoint];
    if (injected !== undefined) {
      delete this.failNext[endpoint];
      return fail(injected, '00', 'Injected failure');
    }
    const h = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : '');
    const ts = parseSnapTimestamp(h('x-timestamp'));
    if (ts === null) return fail(400, '01', 'Invalid Field Format [X-TIMESTAMP]');
    if (Math.abs(Date.now() - ts) > WINDOW_MS) return fail(401, '00', 'Unauthorized. [X-TIMESTAMP]');
    const body = parseObject(raw);
    if (body === null) return fail(400, '00', 'Bad Request');

    if (endpoint === 'token') {
      const partner = this.partners.get(h('x-client-key'));
      if (!partner || !verifyAccessToken(partner.publicKey, partner.clientId, h('x-timestamp'), h('x-signature'))) {
        return fail(401, '00', 'Unauthorized. [Signature]');
      }
      if (body.grantType !== 'client_credentials') return fail(400, '01', 'Invalid Field Format [grantType]');
      const token = randomBytes(24).toString('base64url');
      this.tokens.set(token, { partner, expiresAt: Date.now() + 900_000 });
      return [
        200,
        {
          responseCode: '2007300',
          responseMessage: 'Successful',
          accessToken: token,
          tokenType: 'Bearer',
          expiresIn: '900',
        },
      ];
    }

    const bearer = /^Bearer (\S+)$/.exec(h('authorization'))?.[1] ?? '';
    const session = this.tokens.get(bearer);
    if (!session || session.expiresAt < Date.now()) return fail(401, '01', 'Invalid Token (B2B)');
    const { partner } = session;
    if (h('x-partner-id') !== partner.partnerId) return fail(401, '00', 'Unauthorized. [X-PARTNER-ID]');
    if (!h('channel-id')) return fail(400, '02', 'Invalid Mandatory Field [CHANNEL-ID]');
    const externalId = h('x-external-id');
    if (!externalId || externalId.length > 36) return fail(400, '01', 'Invalid Field Format [X-EXTERNAL-ID]');
    const signed = { method: 'POST', path, accessToken: bearer, body: raw, timestamp: h('x-timestamp') };
    if (!verifySymmetric(partner.clientSecret, signed, h('x-signature')))
      return fail(401, '00', 'Unauthorized. [Signature]');
    if (this.externalIds.has(`${partner.clientId}:${externalId}`)) return fail(409, '00', 'Conflict');
    this.externalIds.add(`${partner.clientId}:${externalId}`);
    if (endpoint === 'generate') return this.generate(partner, body, fail);
    if (endpoint === 'refund') return simulateRefund(this, partner, body, fail);
    return endpoint === 'cancel' ? this.cancel(partner, body, fail) : this.query(partner, body, fail);
  }

  private generate(
    partner: SimulatorPartner,
    body: Record<string, unknown>,
    fail: (s: number, c: string, m: string) => Answer,
  ): Answer {
    const ref = body.partnerReferenceNo;
    const amount = body.amount as { value?: unknown; currency?: unknown } | undefined;
    if (typeof ref !== 'string' || ref === '' || ref.length > 64)
      return fail(400, '02', 'Invalid Mandatory Field [partnerReferenceNo]');
    if (typeof amount?.value !== 'string' || !/^[1-9][0-9]*\.00$/.test(amount.value) || amount.currency !== 'IDR') {
      return fail(400, '01', 'Invalid Field Format [amount]');
    }
    if (body.merchantId !== partner.merchantId) return fail(404, '08', 'Invalid Merchant');
    if (body.terminalId !== partner.terminalId) return fail(400, '01', 'Invalid Field Format [terminalId]');
    if (body.validityPeriod !== undefined && parseSnapTimestamp(String(body.validityPeriod)) === null) {
      return fail(400, '01', 'Invalid Field Format [validityPeriod]');
    }
    if (this.code(ref)) return fail(409, '01', 'Duplicate partnerReferenceNo');
    const referenceNo = `A${snapTimestamp(Date.now()).slice(0, 10).replace(/-/g, '')}${randomBase62(12)}`;
    // A static code of the simulated merchant carrying the reference in 62/05, made dynamic the
    // gateway's own way: what a payer's app would scan.
    const base = buildQris([
      { tag: '00', value: '01' },
      { tag: '01', value: '11' },
      {
        tag: '26',
        value: '',
        children: [
          { tag: '00', value: 'ID.CO.SNAPSIM.WWW' },
          { tag: '01', value: '936000000000000001' },
          { tag: '02', value: partner.merchantId },
          { tag: '03', value: 'UMI' },
        ],
      },
      {
        tag: '51',
        value: '',
        children: [
          { tag: '00', value: 'ID.CO.QRIS.WWW' },
          { tag: '02', value: 'ID1024000000001' },
          { tag: '03', value: 'UMI' },
        ],
      },
      { tag: '52', value: '5812' },
      { tag: '53', value: '360' },
      { tag: '58', value: 'ID' },
      { tag: '59', value: 'SNAP SIMULATOR' },
      { tag: '60', value: 'JAKARTA' },
      { tag: '61', value: '10110' },
      {
        tag: '62',
        value: '',
        children: [
          { tag: '05', value: referenceNo },
          { tag: '07', value: partner.terminalId },
        ],
      },
    ]);
    const code: SimulatedCode = {
      referenceNo,
      partnerReferenceNo: ref,
      amount: Number(amount.value.slice(0, -3)),
      qrContent: toDynamic(base, Number(amount.value.slice(0, -3))),
      partner,
      status: '03',
      paidAt: null,
      payerName: 'Budi Santoso',
      issuer: 'SIMULATED WALLET',
      rrn: newExternalId().slice(-12),
    };
    this.codes.set(referenceNo, code);
    return [
      200,
      {
        responseCode: '2004700',
        responseMessage: 'Successful',
        referenceNo,
        partnerReferenceNo: ref,
        qrContent: code.qrContent,
      },
    ];
  }

  /** Voids an unpaid code; a paid (or refunded) one is refused as SNAP's "Transaction Not Permitted". Repeating a cancel succeeds. */
  private cancel(
    partner: SimulatorPartner,
    body: Record<string, unknown>,
    fail: (s: number, c: string, m: string) => Answer,
  ): Answer {
    const code = this.code(String(body.originalReferenceNo ?? body.originalPartnerReferenceNo ?? ''));
    if (!code || code.partner !== partner) return fail(404, '01', 'Transaction Not Found');
    if (body.merchantId !== partner.merchantId) return fail(404, '08', 'Invalid Merchant');
    if (code.status === '00' || code.status === '04')
      return fail(403, '15', 'Transaction Not Permitted. [Already Paid]');
    code.status = '05';
    return [
      200,
      {
        responseCode: '2007700',
        responseMessage: 'Successful',
        originalReferenceNo: code.referenceNo,
        originalPartnerReferenceNo: code.partnerReferenceNo,
        cancelTime: snapTimestamp(Date.now()),
      },
    ];
  }

  private query(
    partner: SimulatorPartner,
    body: Record<string, unknown>,
    fail: (s: number, c: string, m: string) => Answer,
  ): Answer {
    const code = this.code(String(body.originalReferenceNo ?? body.originalPartnerReferenceNo ?? ''));
    if (!code || code.partner !== partner) return fail(404, '01', 'Transaction Not Found');
    if (body.serviceCode !== '47') return fail(400, '01', 'Invalid Field Format [serviceCode]');
    return [
      200,
      {
        responseCode: '2005100',
        responseMessage: 'Successful',
        originalReferenceNo: code.referenceNo,
        originalPartnerReferenceNo: code.partnerReferenceNo,
        serviceCode: '47',
        latestTransactionStatus: code.status,
        transactionStatusDesc: STATUS_DESC[code.status] ?? 'Pending',
        ...(code.paidAt === null ? {} : { paidTime: snapTimestamp(code.paidAt) }),
        amount: { value: `${code.amount}.00`, currency: 'IDR' },
        additionalInfo:
          code.paidAt === null ? {} : { issuerName: code.issuer, payerName: code.payerName, rrn: code.rrn },
      },
    ];
  }
}
