// issue 24, item 7: listing and switching sources are services that learn what a kind shows through
// deps.sources (the kind registry, passed in as deps.issuers is), never by importing a source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceCatalog } from '../../../src/payment-sources/kinds.js';
import { addFeedSource } from '../../../src/payment-sources/feed/setup.js';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import type { Deps } from '../../../src/services/deps.js';
import { listSources } from '../../../src/services/sources/list-sources.js';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import type { SourceCatalog } from '../../../src/services/sources/source-view.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { TEST_ACTOR } from '../../helpers/console.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' });
});
afterAll(async () => t.close());

describe('source management services', () => {
  it('present each source through deps.sources and poll a re-enabled polled kind at once', async () => {
    const webhook = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'test' });
    t.clock.advance(1000); // listed oldest first
    const feed = await addFeedSource(t.deps, {
      merchantId: t.merchant.id,
      url: 'http://127.0.0.1:9/feed?token=abc',
      intervalSeconds: 60,
    });
    const asked: string[] = [];
    const catalog: SourceCatalog = {
      present: (row) => {
        asked.push(`present ${row.type}`);
        return sourceCatalog.present(row);
      },
      isPolled: (type) => {
        asked.push(`polled ${type}`);
        return sourceCatalog.isPolled(type);
      },
    };
    const deps: Deps = { ...t.deps, sources: catalog };

    const views = await listSources(deps, t.merchant.id);
    expect(views.map((v) => [v.id, v.type, v.mode, v.url])).toEqual([
      [webhook.id, 'webhook', 'test', `/api/payment-sources/${webhook.id}/events`],
      [feed.id, 'feed', 'live', 'http://127.0.0.1:9/feed?token=***'],
    ]);
    expect(asked).toEqual(['present webhook', 'present feed']);

    asked.length = 0;
    await setSourceEnabled(deps, { id: feed.id, enabled: false, actor: TEST_ACTOR });
    const view = await setSourceEnabled(deps, { id: feed.id, enabled: true, actor: TEST_ACTOR });
    // Disabling never asks: only a re-enabled source may be due at once.
    expect(asked).toEqual(['present feed', 'polled feed', 'present feed']);
    expect(view.next_poll_at).toBe(new Date(t.clock.now()).toISOString());
  });
});
