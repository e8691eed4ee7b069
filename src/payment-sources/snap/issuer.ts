// The SNAP source as a code issuer (services/deps.ts, CodeIssuer): codes come from the acquirer
// (qr-mpm-generate) and are voided there (qr-mpm-cancel).
import { AppError } from '../../domain/errors.js';
import type { CodeIssuer, Deps } from '../../services/deps.js';
import { cancelAcquirerCode } from './cancel.js';
import type { SnapSource } from './config.js';
import { issueAtAcquirer } from './issue.js';
import { snapSourceById } from './sources.js';

export function snapIssuer(source: SnapSource): CodeIssuer {
  return {
    issue: (deps, input) => issueAtAcquirer(deps, source, input),
    cancel: (deps, tx) => cancelAcquirerCode(deps, source, tx),
    refunds: 'acquirer',
    // TODO(issue 28): qr-mpm-refund (service 78); until it lands an acquirer refund answers unavailable.
    refund: async () => {
      throw new AppError('acquirer_unavailable', 'refunds at the acquirer are not built yet');
    },
  };
}

/** The issuer of a code this source made, which must still be an enabled SNAP source to void it. */
export async function snapIssuerById(deps: Deps, sourceId: string): Promise<CodeIssuer> {
  const source = await snapSourceById(deps, sourceId);
  if (!source) {
    throw new AppError('acquirer_error', 'the payment source that issued this code is gone or disabled, so its code cannot be voided');
  }
  return snapIssuer(source);
}
