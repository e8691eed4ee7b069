import { liveKeysRefused } from '../../domain/live-approval.js';
import { posSaleMode, type SaleMode } from '../../domain/pos-sale-mode.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { demoStaticQris } from '../../domain/demo-qris.js';
import { merchantsWithoutLiveSource } from '../sources/live-source.js';

/**
 * The mode each of these merchants' counters sells in now, with why when it is the sandbox (the domain's
 * `posSaleMode`): whether it is the demo merchant (known by its built-in QRIS), whether its live payments
 * are open, and whether it has an enabled payment source of mode live. One read of sources for all of
 * them, and none when no merchant could sell live anyway.
 */
export async function saleModesOf(
  deps: Deps,
  merchants: ReadonlyArray<Pick<MerchantsTable, 'id' | 'qris_static' | 'live_approved_at' | 'live_rejected_at'>>,
): Promise<Map<string, SaleMode>> {
  const facts = merchants.map((m) => ({
    id: m.id,
    demo: m.qris_static === demoStaticQris(),
    liveRefused: liveKeysRefused(m, deps.config.liveKeys),
  }));
  const unsourced = await merchantsWithoutLiveSource(
    deps,
    facts.filter((f) => !f.demo && !f.liveRefused).map((f) => f.id),
  );
  return new Map(
    facts.map((f) => [
      f.id,
      posSaleMode({
        demo: f.demo,
        liveRefused: f.liveRefused,
        liveSource: !f.demo && !f.liveRefused && !unsourced.has(f.id),
      }),
    ]),
  );
}
