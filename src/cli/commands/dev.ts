import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** dev acquirer (local SNAP acquirer simulator). */
export function registerDevCommands(_program: Command, _ctx: CliContext): void {
  // Commands are added here.
}
