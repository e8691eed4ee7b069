import { userInfo } from 'node:os';
import type { Actor } from '../domain/actor.js';

/** The CLI's actor: QRIS_OPERATOR when set, else the OS account running the command. */
export function cliActor(configured: string | null): Actor {
  return { kind: 'cli', operator: operatorName(configured) };
}

function operatorName(configured: string | null): string {
  if (configured) return configured;
  try {
    return userInfo().username || 'unknown';
  } catch {
    // Containers may run under a uid with no passwd entry.
    return 'unknown';
  }
}
