import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';

/**
 * Validates a SNAP BI source configuration (the JSON file of `source add --type snap --config FILE`)
 * and stores it as a payment source of the merchant.
 */
export async function addSnapSource(_deps: Deps, _merchantId: string, _config: unknown): Promise<{ id: string }> {
  throw new AppError('invalid_parameter', 'SNAP sources are being added in this change');
}
