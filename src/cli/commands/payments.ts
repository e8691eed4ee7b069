import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** payments list|assign|confirm (reported payments). */
export function registerPaymentCommands(_program: Command, _ctx: CliContext): void {
  // Commands are added here.
}
