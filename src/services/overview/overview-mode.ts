import type { Mode } from '../../domain/records.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';
import { modesWithActivity } from '../../storage/queries/overview.js';
import type { Deps } from '../deps.js';
import { chartStart } from '../../domain/overview-chart.js';

export interface OverviewMode {
  mode: Mode;
  /** 'asked' when the viewer named the mode; 'default' when the data chose it. */
  chosen: 'asked' | 'default';
}

/**
 * The mode the overview shows. A mode the viewer asks for always wins. Otherwise the one with data in the
 * chart's window, so that a newcomer who has only tried the sandbox sees those payments, not "Rp 0": live
 * when live has any transaction or payment there, else test when test has, else live.
 */
export async function overviewMode(deps: Deps, viewer: Viewer, asked: string | undefined): Promise<OverviewMode> {
  if (asked === 'live' || asked === 'test') return { mode: asked, chosen: 'asked' };
  const active = await modesWithActivity(deps.db, merchantScope(viewer), chartStart(deps.now()));
  return { mode: !active.live && active.test ? 'test' : 'live', chosen: 'default' };
}
