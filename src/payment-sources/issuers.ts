// Which issuer makes a merchant's codes: its newest enabled SNAP source for the mode, else its static
// QRIS. Handed to the services through Deps (runtime.ts), since services never import sources.
import type { IssuerResolver } from '../services/deps.js';
import { staticQrisIssuer } from '../services/transactions/static-qris-issuer.js';
import { snapIssuer, snapIssuerById } from './snap/issuer.js';
import { snapSourceFor } from './snap/sources.js';

export const codeIssuers: IssuerResolver = {
  async forMerchant(deps, merchantId, mode) {
    const source = await snapSourceFor(deps, merchantId, mode);
    return source ? snapIssuer(source) : staticQrisIssuer;
  },
  // An acquirer-issued code carries its source and the acquirer's reference; any other is static.
  forTransaction: async (deps, tx) => (tx.source_id !== null && tx.acquirer_reference !== null ? snapIssuerById(deps, tx.source_id) : staticQrisIssuer),
};
