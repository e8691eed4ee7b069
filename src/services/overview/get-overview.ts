import type { Mode } from '../../domain/records.js';
import {
  countEndpoints,
  countOpenPending,
  countUnmatchedPayments,
  failingEndpoints,
  paidPerDay,
} from '../../storage/queries/overview.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

import { CHART_DAYS, chartStart, DAY_MS } from '../../domain/overview-chart.js';
import { WIB_OFFSET_MS } from '../../domain/wib.js';

export interface PaidFigures {
  count: number;
  sum: number;
}

export interface Overview {
  mode: Mode;
  today: PaidFigures;
  last7Days: PaidFigures;
  last30Days: PaidFigures;
  /** One entry per WIB day, oldest first, the last being today: CHART_DAYS entries. */
  daily: Array<PaidFigures & { dayStart: number }>;
  pending: number;
  unmatched: number;
  /** Every endpoint the viewer may see, in any state: with none, "every endpoint is delivering" would be empty praise. */
  endpoints: number;
  failingEndpoints: Array<{
    id: string;
    merchantId: string;
    url: string;
    status: string;
    consecutiveFailures: number;
    since: number;
  }>;
}

/** What the console's overview shows, limited to the merchants the viewer may see. */
export async function getOverview(deps: Deps, viewer: Viewer, mode: Mode): Promise<Overview> {
  const scope = merchantScope(viewer);
  const now = deps.now();
  const first = chartStart(now);
  const [days, pending, unmatched, endpoints, failing] = await Promise.all([
    paidPerDay(deps.db, scope, mode, first, WIB_OFFSET_MS),
    countOpenPending(deps.db, scope, mode, now),
    countUnmatchedPayments(deps.db, scope, mode),
    countEndpoints(deps.db, scope),
    failingEndpoints(deps.db, scope),
  ]);
  const byDay = new Map(days.map((d) => [d.day, d]));
  const daily = Array.from({ length: CHART_DAYS }, (_, i) => {
    const dayStart = first + i * DAY_MS;
    const found = byDay.get(Math.floor((dayStart + WIB_OFFSET_MS) / DAY_MS));
    return { dayStart, count: found?.count ?? 0, sum: found?.sum ?? 0 };
  });
  const total = (n: number): PaidFigures =>
    daily.slice(-n).reduce((acc, d) => ({ count: acc.count + d.count, sum: acc.sum + d.sum }), { count: 0, sum: 0 });
  return {
    mode,
    today: total(1),
    last7Days: total(7),
    last30Days: total(30),
    daily,
    pending,
    unmatched,
    endpoints,
    failingEndpoints: failing.map((e) => ({
      id: e.id,
      merchantId: e.merchant_id,
      url: e.url,
      status: e.status,
      consecutiveFailures: e.consecutive_failures,
      since: e.updated_at,
    })),
  };
}
