// The SNAP source as a code issuer (services/deps.ts, CodeIssuer): codes come from the acquirer
// (qr-mpm-generate), are voided there (qr-mpm-cancel) and refunded there once paid (qr-mpm-refund).
import { AppError } from '../../domain/errors.js';
import type { CodeIssuer, Deps } from '../../services/deps.js';
import { cancelAcquirerCode } from './cancel.js';
import type { SnapSource } from './config.js';
import { issueAtAcquirer } from './issue.js';
import { refundAtAcquirer } from './refund.js';
import { snapSourceById } from './sources.js';

export function snapIssuer(source: SnapSource): CodeIssuer {
  return {
    issue: (deps, input) => issueAtAcquirer(deps, source, input),
    cancel: (deps, tx) => cancelAcquirerCode(deps, source, tx),
    refunds: 'acquirer',
    refund: (deps, tx, refund) => refundAtAcquirer(deps, source, tx, refund),
  };
}

/**
 * The issuer of a code this source made, which must still be an enabled SNAP source to void or refund
 * it: only that source's credentials can ask the acquirer. Refused before anything is recorded.
 */
export async function snapIssuerById(deps: Deps, sourceId: string): Promise<CodeIssuer> {
  const source = await snapSourceById(deps, sourceId);
  if (!source) {
    throw new AppError(
      'acquirer_error',
      `payment source ${sourceId}, which issued this code, is gone or disabled, so the acquirer cannot be asked to void or refund it (enable the source again)`,
    );
  }
  return snapIssuer(source);
}
