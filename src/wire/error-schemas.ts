// The error envelope's schema, for every route that documents its errors: the API's and the payment
// sources' inbound routes alike (src/http/schemas.ts re-exports it beside the API's own schemas).
import { Type } from '@sinclair/typebox';
import { ERROR_CODES } from '../domain/errors.js';

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({
    code: Type.String({ enum: [...ERROR_CODES] }),
    message: Type.String(),
    param: Type.Optional(Type.String()),
    request_id: Type.String(),
  }),
});

export const errorResponses = {
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
};
