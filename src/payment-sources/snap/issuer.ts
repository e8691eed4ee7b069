// The SNAP source as a code issuer (services/deps.ts, CodeIssuer): codes come from the acquirer
// (qr-mpm-generate), are voided there (qr-mpm-cancel) and refunded there once paid (qr-mpm-refund).
import type { CodeIssuer } from '../../services/deps.js';
import { cancelAcquirerCode } from './cancel.js';
import type { SnapSource } from './config.js';
import { issueAtAcquirer } from './issue.js';
import { refundAtAcquirer } from './refund.js';
import type { KindIssuer } from '../kind.js';
import { snapSourceById, snapSourceFor } from './sources.js';

export function snapIssuer(source: SnapSource): CodeIssuer {
  return {
    issue: (deps, input) => issueAtAcquirer(deps, source, input),
    cancel: (deps, tx) => cancelAcquirerCode(deps, source, tx),
    refunds: 'acquirer',
    refund: (deps, tx, refund) => refundAtAcquirer(deps, source, tx, refund),
  };
}

/** The SNAP kind as an issuer (its `issuer` in kind.ts): the merchant's newest enabled source for the mode. */
export const snapKindIssuer: KindIssuer = {
  async forMerchant(deps, merchantId, mode) {
    const source = await snapSourceFor(deps, merchantId, mode);
    return source ? snapIssuer(source) : null;
  },
  // Only that source's credentials can ask the acquirer to void or refund the code it made.
  async forSource(deps, sourceId) {
    const source = await snapSourceById(deps, sourceId);
    return source ? snapIssuer(source) : null;
  },
};
