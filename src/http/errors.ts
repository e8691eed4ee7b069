import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError, type ErrorCode } from '../domain/errors.js';
import { sendError } from '../wire/error-reply.js';
import { redactUrl } from './redact.js';

// A schema failure on these parameters keeps the parameter's own error code.
const PARAM_CODES: Record<string, ErrorCode> = { amount: 'invalid_amount', email: 'invalid_email' };

const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_body',
  // FST_ERR_BAD_URL never gets here: Fastify hands it to frameworkErrors (app.ts).
};

/** Turns anything thrown while serving a request into the public error; internals never leak. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const fe = err as Partial<FastifyError>;
  if (fe.validation && fe.validation.length > 0) {
    const first = fe.validation[0]!;
    const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
    const param = missing ?? first.instancePath.replace(/^\//, '').split('/')[0] ?? '';
    const where = fe.validationContext === 'body' ? 'body' : 'query';
    const code = PARAM_CODES[param] ?? (param === '' && where === 'body' ? 'invalid_body' : 'invalid_parameter');
    const message = param
      ? `${param} ${first.message ?? 'is invalid'}`
      : `request ${where} ${first.message ?? 'is invalid'}`;
    return new AppError(code, message, param ? { param } : {});
  }
  const mapped = fe.code ? FRAMEWORK_CODES[fe.code] : undefined;
  if (mapped) return new AppError(mapped, publicMessage(mapped));
  if (fe.statusCode === 400 || err instanceof SyntaxError)
    return new AppError('invalid_body', 'the request body could not be read');
  if (fe.statusCode === 413) return new AppError('payload_too_large', publicMessage('payload_too_large'));
  if (fe.statusCode === 415) return new AppError('unsupported_media_type', publicMessage('unsupported_media_type'));
  // The static file sender (the API explorer's files) refuses with http-errors: a path out of its folder
  // (403), a missing file (404), a Range past the end or malformed (416).
  if ((err as { expose?: unknown }).expose === true) {
    if (fe.statusCode === 403 || fe.statusCode === 404) return new AppError('not_found', 'no such file');
    if (fe.statusCode === 416) return new AppError('invalid_parameter', 'the Range header cannot be satisfied');
  }
  return new AppError('internal_error', 'something went wrong on our side; the request id helps us find it');
}

function publicMessage(code: ErrorCode): string {
  switch (code) {
    case 'payload_too_large':
      return 'the request body is larger than this server accepts';
    case 'unsupported_media_type':
      return 'send the body as application/json or application/x-www-form-urlencoded';
    default:
      return 'the request body is not valid JSON or form data';
  }
}

export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(err);
  if (appError.code === 'internal_error') {
    request.log.error({ err, method: request.method, url: redactUrl(request.url) }, 'request failed');
  }
  return sendError(reply, appError);
}
