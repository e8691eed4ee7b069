import { enabledOperatorExists } from '../../storage/queries/users.js';
import type { Deps } from '../deps.js';

/** Whether the console has an operator who can log in; until it has, the start banner says how to make one. */
export function operatorExists(deps: Deps): Promise<boolean> {
  return enabledOperatorExists(deps.db);
}
