// Which issuer makes a merchant's codes: the first kind of payment source that issues codes (an
// acquirer: `issuer` in its SourceKind) and has a source serving the merchant's mode, else the merchant's
// static QRIS. Handed to the services through Deps (runtime.ts), since services never import sources.
import { AppError } from '../domain/errors.js';
import type { IssuerResolver } from '../services/deps.js';
import { staticQrisIssuer } from '../services/transactions/static-qris-issuer.js';
import type { KindIssuer } from './kind.js';
import { sourceKinds } from './kinds.js';

const issuing: readonly KindIssuer[] = sourceKinds.flatMap((kind) => (kind.issuer ? [kind.issuer] : []));

export const codeIssuers: IssuerResolver = {
  async forMerchant(deps, merchantId, mode) {
    for (const kind of issuing) {
      const issuer = await kind.forMerchant(deps, merchantId, mode);
      if (issuer) return issuer;
    }
    return staticQrisIssuer;
  },
  // An acquirer-issued code carries its source and the acquirer's reference; any other is static.
  async forTransaction(deps, tx) {
    if (tx.source_id === null || tx.acquirer_reference === null) return staticQrisIssuer;
    for (const kind of issuing) {
      const issuer = await kind.forSource(deps, tx.source_id);
      if (issuer) return issuer;
    }
    // Refused before anything is recorded: only the source that made the code can ask for it.
    throw new AppError(
      'acquirer_error',
      `payment source ${tx.source_id}, which issued this code, is gone or disabled, so the acquirer cannot be asked to void or refund it (enable the source again)`,
    );
  },
};
