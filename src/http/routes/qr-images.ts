import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../domain/errors.js';
import { getTransactionById } from '../../services/transactions/get-transaction-by-id.js';
import { cachedQrPng } from '../../qr/qr-png.js';
import { cachedQrSvg } from '../../qr/qr-svg.js';
import { errorResponses } from '../schemas.js';
import type { RouteContext } from './context.js';

const FILE = /^(trx_[0-9A-Za-z]{1,64})\.(png|svg)$/;

// Public on purpose: the checkout page shows this image to the payer. The 130-bit transaction id is the
// capability, and the image reveals only the payload the payer is meant to scan.
export async function qrImageRoutes(app: FastifyInstance, ctx: RouteContext): Promise<void> {
  app.get<{ Params: { file: string } }>('/payment-gateway/qr/:file', {
    schema: {
      operationId: 'getQrImage',
      tags: ['transactions'],
      summary: 'The QR code of a transaction as PNG ({trxid}.png) or SVG ({trxid}.svg)',
      hide: ctx.hide,
      security: [],
      params: Type.Object({ file: Type.String({ maxLength: 80 }) }),
      response: {
        200: { description: 'image/png or image/svg+xml', type: 'string' },
        ...errorResponses,
      },
    },
    handler: async (request, reply) => {
      const m = FILE.exec(request.params.file);
      if (!m) throw new AppError('not_found', 'ask for {trxid}.png or {trxid}.svg');
      const tx = await getTransactionById(ctx.deps, m[1]!);
      if (m[2] === 'png') return reply.type('image/png').send(cachedQrPng(tx.qris));
      return reply.type('image/svg+xml; charset=utf-8').send(cachedQrSvg(tx.qris));
    },
  });
}
