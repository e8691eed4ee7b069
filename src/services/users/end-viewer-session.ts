import { endSession } from '../../storage/queries/sessions.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';

/** Logout: the session ends on the server, so a copied cookie is worth nothing afterwards. */
export async function endViewerSession(deps: Deps, viewer: Viewer): Promise<void> {
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await endSession(trx, viewer.sessionKey, now);
    await writeAudit(trx, {
      actor: viewer.actor,
      action: 'user.logout',
      subjectType: 'user',
      subjectId: viewer.userId,
      now,
    });
  });
}
