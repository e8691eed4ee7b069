import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** webhooks add|list|remove|resend (merchant webhook endpoints). */
export function registerWebhookCommands(_program: Command, _ctx: CliContext): void {
  // Commands are added here.
}
