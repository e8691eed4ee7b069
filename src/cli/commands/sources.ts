import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** source add|list (payment sources). */
export function registerSourceCommands(_program: Command, _ctx: CliContext): void {
  // Commands are added here.
}
