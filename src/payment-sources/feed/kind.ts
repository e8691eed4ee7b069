import { AppError } from '../../domain/errors.js';
import { isoTimeOrNull } from '../../domain/iso-time.js';
import { startFeedPoller } from './poller.js';
import type { SourceKind } from '../kind.js';
import { maskUrl } from '../mask-url.js';
import { addFeedSource, mappingPreset, maskBody, maskHeaders, readFeedConfig, readFeedState } from './setup.js';

/** A mutation feed: the gateway polls an account's incoming-payment history. */
export const feedKind: SourceKind<'feed'> = {
  type: 'feed',
  label: { en: 'Mutation feed', id: 'Feed mutasi' },
  cliName: 'mutation feed',
  polled: true,
  inbound: false,
  details(row) {
    const feed = readFeedConfig(row);
    const state = readFeedState(row.state);
    return {
      url: maskUrl(feed.url),
      method: feed.method,
      headers: maskHeaders(feed.headers),
      body: maskBody(feed.body),
      interval_seconds: feed.intervalSeconds,
      next_poll_at: isoTimeOrNull(row.next_poll_at),
      last_success_at: isoTimeOrNull(state.lastSuccessAt),
      last_error: state.lastError,
      failures: state.failures,
    };
  },
  worker: (deps) => startFeedPoller(deps),
  console: {
    operatorOnly: true,
    fields: ['url', 'method', 'headers', 'body', 'interval', 'mapping'],
    async add(deps, input) {
      const url = input.field('url').trim();
      const interval = input.field('interval').trim();
      const mappingText = input.field('mapping').trim();
      if (url === '') return { shows: 'refused', field: 'url' };
      if (interval === '') return { shows: 'refused', field: 'interval' };
      let mapping: unknown;
      // A preset's name (qris-history), else a JSON mapping.
      if (mappingPreset(mappingText) !== null) mapping = mappingText;
      else if (mappingText !== '') {
        try {
          mapping = JSON.parse(mappingText) as unknown;
        } catch {
          return { shows: 'refused', field: 'mapping' };
        }
      }
      const created = await addFeedSource(deps, {
        merchantId: input.merchantId,
        mode: input.mode,
        url,
        method: input.field('method'),
        // One `Name: value` a line, as --header takes each.
        headers: input
          .field('headers')
          .split(/\r?\n/)
          .filter((line) => line.trim() !== ''),
        body: input.field('body'),
        intervalSeconds: interval,
        mapping,
        actor: input.actor,
        name: input.name,
      });
      return { shows: 'polled', id: created.id, url: maskUrl(created.url), intervalSeconds: created.interval_seconds };
    },
  },
  cli: {
    options: [
      ['--url <url>', 'feed: the URL to poll'],
      ['--interval <seconds>', 'feed: seconds between polls'],
      ['--method <method>', 'feed: GET (the default) or POST'],
      [
        '--header <line>',
        "feed: a header sent with each poll, 'Name: value' (its value is masked wherever it is shown)",
        'repeatable',
      ],
      ['--body <text>', 'feed: a POST body sent as is, JSON or a form (masked wherever it is shown)'],
      [
        '--mapping <file|preset>',
        'feed: JSON field mapping over the OrderKuota-style defaults, or a preset: qris-history',
      ],
    ],
    async add(deps, input) {
      const { url, interval, mapping, method, body } = input.options;
      if (!url) throw new AppError('invalid_parameter', '--url is required for a feed', { param: 'url' });
      if (!interval)
        throw new AppError('invalid_parameter', '--interval is required for a feed', { param: 'interval' });
      return {
        ...(await addFeedSource(deps, {
          merchantId: input.merchant,
          mode: input.mode,
          url,
          method,
          headers: input.repeated('header'),
          body,
          intervalSeconds: interval,
          // A preset's name wins over a file of that name.
          mapping:
            mapping === undefined
              ? undefined
              : mappingPreset(mapping) !== null
                ? mapping
                : input.readJson(mapping, 'mapping'),
          actor: input.actor,
          name: input.name,
        })),
      };
    },
    describe: (created) =>
      `created feed source ${String(created.id)}: polls ${created.method === 'POST' ? 'with a POST ' : ''}${String(created.url)} every ${String(created.interval_seconds)} s`,
  },
};
