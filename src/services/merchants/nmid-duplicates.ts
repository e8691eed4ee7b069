import { seenBy, type Viewer } from '../../domain/viewer.js';
import { merchantsWithNmids } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';

/** The merchants already saved with an NMID: how many, and those the viewer may see (by name). */
export interface NmidDuplicates {
  count: number;
  visible: Array<{ id: string; name: string }>;
}

/**
 * Who else has this NMID, as far as the viewer may know: the add-merchant preview warns with it before
 * Save. Another merchant's name is never shown to a merchant user who is not its member; that one only
 * learns that the code is taken. A code without an NMID has no duplicates.
 */
export async function nmidDuplicates(deps: Deps, viewer: Viewer | null, nmid: string | null): Promise<NmidDuplicates> {
  if (nmid === null) return { count: 0, visible: [] };
  const rows = await merchantsWithNmids(deps.db, [nmid]);
  return { count: rows.length, visible: seenBy(viewer, rows) };
}
