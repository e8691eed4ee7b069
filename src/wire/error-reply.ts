// An error as the API and the payment sources' inbound routes send it: one envelope, and the status of
// its code from error-status.ts (which the web pages use too).
import type { FastifyReply } from 'fastify';
import type { AppError } from '../domain/errors.js';
import { statusFor } from './error-status.js';

export function errorBody(error: AppError, requestId: string) {
  return {
    success: false as const,
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      request_id: requestId,
    },
  };
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
  return reply
    .code(statusFor(error.code))
    .type('application/json; charset=utf-8')
    .send(errorBody(error, reply.request.id));
}
