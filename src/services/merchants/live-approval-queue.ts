import type { Viewer } from '../../domain/viewer.js';
import { merchantsAwaitingLive, merchantsRejectedLive, merchantsWithNmids } from '../../storage/queries/merchants.js';
import { firstMembersOf } from '../../storage/queries/users.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** One merchant in the approval queue, with what an operator decides by. */
export interface ApprovalEntry {
  merchant: MerchantsTable;
  /** Who added it (its first member) and when that account was made; null when it has no member left. */
  signedUp: { email: string; at: number; deleted: boolean } | null;
  /** Other merchants saved with the same NMID (the same sticker saved twice), oldest first. */
  sameNmid: Array<{ id: string; name: string }>;
}

export interface ApprovalQueue {
  /** Self-service merchants whose live keys wait (LIVE_KEYS=approval), oldest first. */
  waiting: ApprovalEntry[];
  /** Those an operator rejected, latest first, to be asked about again or approved after all. */
  rejected: ApprovalEntry[];
}

/** The queue an operator works through (the console's Approvals page); empty for anyone else. */
export async function liveApprovalQueue(deps: Deps, viewer: Viewer): Promise<ApprovalQueue> {
  if (viewer.role !== 'operator') return { waiting: [], rejected: [] };
  const [waiting, rejected] = await Promise.all([merchantsAwaitingLive(deps.db), merchantsRejectedLive(deps.db)]);
  const all = [...waiting, ...rejected];
  const nmids = [...new Set(all.flatMap((m) => (m.nmid === null ? [] : [m.nmid])))];
  const [members, holders] = await Promise.all([
    firstMembersOf(
      deps.db,
      all.map((m) => m.id),
    ),
    merchantsWithNmids(deps.db, nmids),
  ]);
  const entry = (m: MerchantsTable): ApprovalEntry => {
    const member = members.get(m.id);
    return {
      merchant: m,
      signedUp: member ? { email: member.email, at: member.signedUpAt, deleted: member.deleted } : null,
      sameNmid:
        m.nmid === null
          ? []
          : holders.filter((h) => h.nmid === m.nmid && h.id !== m.id).map((h) => ({ id: h.id, name: h.name })),
    };
  };
  return { waiting: waiting.map(entry), rejected: rejected.map(entry) };
}
