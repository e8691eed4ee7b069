import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger } from '../../src/http/request-logger.js';

function collector(): { logger: FastifyBaseLogger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', base: null, timestamp: false },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

describe('lazy request logger', () => {
  it('writes exactly the lines a pino child with the same bindings writes', () => {
    const eager = collector();
    const lazy = collector();
    const child = eager.logger.child({ reqId: 'req-1' });
    const stand = lazyChildLogger(lazy.logger, { reqId: 'req-1' }, {});
    for (const log of [child, stand]) {
      log.info({ a: 1 }, 'with %s', 'args');
      log.warn('plain');
      log.error(new Error('boom'));
      log.debug('below the level');
      log.child({ sub: true }).info('nested');
    }
    const strip = (lines: string[]) => lines.map((l) => l.replace(/"stack":"[^"]*"/, '"stack":"…"'));
    expect(strip(lazy.lines)).toEqual(strip(eager.lines));
    expect(lazy.lines).toHaveLength(4);
    expect(JSON.parse(lazy.lines[0]!)).toMatchObject({ reqId: 'req-1', a: 1, msg: 'with args' });
  });

  it('builds no child until something is logged, and reads the parent level meanwhile', () => {
    const { logger } = collector();
    let children = 0;
    const parent = Object.create(logger, {
      child: {
        value: (...args: Parameters<FastifyBaseLogger['child']>) => {
          children++;
          return logger.child(...args);
        },
      },
    }) as FastifyBaseLogger;
    const stand = lazyChildLogger(parent, { reqId: 'req-2' }, {});
    expect(stand.level).toBe('info');
    expect(children).toBe(0);
    stand.info('now');
    stand.info('again');
    expect(children).toBe(1);
  });

  it('makes the child at once for a route with its own level', () => {
    const { logger, lines } = collector();
    const stand = lazyChildLogger(logger, { reqId: 'req-3' }, { level: 'debug' });
    expect(stand.level).toBe('debug');
    stand.debug('shown');
    expect(lines).toHaveLength(1);
  });
});
