import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../../storage/queries/health.js';
import { Type } from '@sinclair/typebox';
import { AppError, isAppError } from '../../domain/errors.js';
import { UNAVAILABLE_RETRY_AFTER } from '../../storage/unavailable.js';
import type { Deps } from '../../services/deps.js';
import { errorResponses, ok } from '../schemas.js';

export async function systemRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  app.get('/healthz', {
    schema: {
      operationId: 'checkLiveness',
      tags: ['operations'],
      summary: 'The process is up',
      security: [],
      // Errors all the same: a URL past MAX_URL_LENGTH (414) or with a NUL in it (400), a 503 while the server closes.
      response: { 200: ok(Type.Object({ status: Type.String() })), ...errorResponses },
    },
    handler: async () => ({ success: true as const, data: { status: 'ok' } }),
  });

  app.get('/readyz', {
    schema: {
      operationId: 'checkReadiness',
      tags: ['operations'],
      summary: 'The process can serve requests (its database answers)',
      security: [],
      response: { 200: ok(Type.Object({ status: Type.String(), database: Type.String() })), ...errorResponses },
    },
    handler: async (request) => {
      try {
        await pingDatabase(deps.db);
      } catch (err) {
        request.log.warn({ err }, 'readiness check: database unavailable');
        // Already database_unavailable when the driver's failure was recognised (storage/unavailable.ts).
        throw isAppError(err)
          ? err
          : new AppError('database_unavailable', 'the database is not reachable', {
              retryAfter: UNAVAILABLE_RETRY_AFTER,
            });
      }
      return { success: true as const, data: { status: 'ready', database: deps.db.dialect } };
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
