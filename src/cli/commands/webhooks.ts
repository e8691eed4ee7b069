import type { Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { resendEvent } from '../../services/webhooks/resend-event.js';
import { resendFailed } from '../../services/webhooks/resend-failed.js';
import { addWebhookEndpoint } from '../../services/webhooks/add-webhook-endpoint.js';
import { parseEventList } from '../../domain/webhook-events.js';
import { listWebhookEndpoints } from '../../services/webhooks/list-webhook-endpoints.js';
import { removeWebhookEndpoint } from '../../services/webhooks/remove-webhook-endpoint.js';
import type { CliContext } from '../context.js';
import { emit, emitItems } from '../output.js';

/** webhooks add|list|remove|resend (merchant webhook endpoints). */
export function registerWebhookCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const { actor } = ctx;
  const webhooks = program
    .command('webhooks')
    .description('merchant webhook endpoints; an endpoint receives events that happen after it is added');

  webhooks
    .command('add')
    .description('add a webhook endpoint to a merchant (its secret is shown only now)')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--url <url>', 'http(s) URL that receives the POSTs')
    .option('--events <types>', 'comma-separated event types (default: all)')
    .option('--json', 'print JSON')
    .action(async (opts: { merchant: string; url: string; events?: string }) => {
      const events = parseEventList(opts.events);
      const created = await ctx.withDeps((deps) =>
        addWebhookEndpoint(deps, { merchantId: opts.merchant, url: opts.url, events, actor: actor() }),
      );
      emit(io, json, { id: created.id, secret: created.secret }, () =>
        [
          `created webhook endpoint ${created.id} -> ${created.url} (${created.events.join(', ')})`,
          `signing secret, shown only now: ${created.secret}`,
          'It receives events from now on; older events are not sent to it unless resent with --endpoint.',
        ].join('\n'),
      );
    });

  webhooks
    .command('list')
    .description('list webhook endpoints (no secrets)')
    .option('--merchant <id>', 'only this merchant')
    .option('--json', 'print JSON')
    .action(async (opts: { merchant?: string }) => {
      const rows = await ctx.withDeps((deps) => listWebhookEndpoints(deps, opts.merchant));
      emitItems(
        io,
        json,
        rows,
        'no webhook endpoints',
        (r) =>
          `${r.id}  ${r.status}${r.consecutive_failures > 0 ? ` (${r.consecutive_failures} failures in a row)` : ''}  ${r.merchant_id}  ${r.url}  [${r.events.join(',')}]`,
      );
    });

  webhooks
    .command('remove <id>')
    .description('disable an endpoint (its delivery history is kept)')
    .option('--json', 'print JSON')
    .action(async (id: string) => {
      const row = await ctx.withDeps((deps) => removeWebhookEndpoint(deps, id, actor()));
      emit(
        io,
        json,
        row,
        () => `disabled ${row.id} (${row.url}); ${row.cancelled_deliveries} waiting deliveries cancelled, history kept`,
      );
    });

  webhooks
    .command('resend [eventId]')
    .description(
      'send an event again (to its endpoints, or to --endpoint), or with --failed every failed delivery of --endpoint',
    )
    .option('--endpoint <id>', 'only this endpoint (may be one added after the event)')
    .option('--failed', 'every failed delivery of --endpoint')
    .option('--json', 'print JSON')
    .action(async (eventId: string | undefined, opts: { endpoint?: string; failed?: boolean }) => {
      if (opts.failed && eventId !== undefined) {
        throw new AppError('invalid_parameter', 'give an event id or --failed, not both', { param: 'failed' });
      }
      if (opts.failed && !opts.endpoint)
        throw new AppError('invalid_parameter', '--failed needs --endpoint', { param: 'endpoint' });
      if (!opts.failed && eventId === undefined)
        throw new AppError('invalid_parameter', 'give an event id, or --endpoint ID --failed', { param: 'event' });
      const result = await ctx.withDeps((deps) =>
        opts.failed
          ? resendFailed(deps, { endpointId: opts.endpoint!, actor: actor() })
          : resendEvent(deps, {
              eventId: eventId!,
              ...(opts.endpoint ? { endpointId: opts.endpoint } : {}),
              actor: actor(),
            }),
      );
      emit(io, json, result, () =>
        result.requeued === 0
          ? 'nothing to resend (an endpoint added after an event has no delivery of it: pass --endpoint to send it there)'
          : `queued ${result.requeued} ${result.requeued === 1 ? 'delivery' : 'deliveries'} to send now`,
      );
    });
}
