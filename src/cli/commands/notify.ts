import type { Command } from 'commander';
import { addNotifyChannel } from '../../services/notify/add-notify-channel.js';
import { getNotifyChannel } from '../../services/notify/get-notify-channel.js';
import { listNotifyChannels } from '../../services/notify/list-notify-channels.js';
import { queueTestAlert } from '../../services/notify/queue-test-alert.js';
import { removeNotifyChannel } from '../../services/notify/remove-notify-channel.js';
import { alertMailSender, dispatchAlertNow } from '../../alerts/dispatch.js';
import type { CliContext } from '../context.js';
import { emit, emitItems } from '../output.js';

/** notify add|list|test|remove (merchants' alert channels: Telegram, Discord, e-mail). */
export function registerNotifyCommands(program: Command, ctx: CliContext): void {
  const { io, json, actor } = ctx;
  const notify = program
    .command('notify')
    .description(
      "merchants' alert channels (Telegram, Discord, e-mail to the merchant's users): a payment received, an unmatched payment, a failing webhook",
    );

  notify
    .command('add')
    .description('add an alert channel to a merchant (its secret is shown masked from now on)')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--type <type>', 'telegram, discord or email')
    .option('--bot-token <token>', "telegram: the bot's token from @BotFather")
    .option('--chat-id <id>', 'telegram: the chat the bot writes to')
    .option('--url <url>', "discord: the channel's webhook URL")
    .option('--language <lang>', 'id (Bahasa Indonesia, the default) or en')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        merchant: string;
        type: string;
        botToken?: string;
        chatId?: string;
        url?: string;
        language?: string;
      }) => {
        const created = await ctx.withDeps((deps) =>
          addNotifyChannel(deps, {
            merchantId: opts.merchant,
            type: opts.type,
            ...(opts.botToken !== undefined ? { botToken: opts.botToken } : {}),
            ...(opts.chatId !== undefined ? { chatId: opts.chatId } : {}),
            ...(opts.url !== undefined ? { url: opts.url } : {}),
            ...(opts.language !== undefined ? { language: opts.language } : {}),
            actor: actor(),
          }),
        );
        emit(
          io,
          json,
          created,
          () =>
            `created ${created.type} channel ${created.id} for ${created.merchant_id} (${created.language}); try it with: notify test ${created.id}`,
        );
      },
    );

  notify
    .command('list')
    .description("a merchant's alert channels (secrets masked)")
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--json', 'print JSON')
    .action(async (opts: { merchant: string }) => {
      const rows = await ctx.withDeps((deps) => listNotifyChannels(deps, opts.merchant));
      emitItems(
        io,
        json,
        rows,
        'no alert channels',
        (r) => `${r.id}  ${r.type}  ${r.language}  ${r.secret_masked}${r.chat_id ? ` chat ${r.chat_id}` : ''}`,
      );
    });

  notify
    .command('test <id>')
    .description('send a test alert on a channel now and say what the service answered')
    .option('--json', 'print JSON')
    .action(async (id: string) => {
      const result = await ctx.withDeps(async (deps) => {
        const channel = await getNotifyChannel(deps, id);
        const alert = await queueTestAlert(deps, channel);
        const mail = channel.type === 'email' ? alertMailSender(deps) : null;
        try {
          const sent = await dispatchAlertNow(deps, alert, { mail });
          return {
            id: alert,
            channel: channel.id,
            state: sent?.state ?? 'pending',
            status_code: sent?.statusCode ?? null,
            error: sent?.error ?? null,
          };
        } finally {
          mail?.close();
        }
      });
      emit(io, json, result, () =>
        result.state === 'succeeded'
          ? `test alert ${result.id} delivered`
          : `test alert ${result.id} not delivered (${result.state}): ${result.error ?? 'no answer yet'}`,
      );
    });

  notify
    .command('remove <id>')
    .description('remove a channel (its alert history is kept)')
    .option('--json', 'print JSON')
    .action(async (id: string) => {
      const row = await ctx.withDeps((deps) => removeNotifyChannel(deps, id, actor()));
      emit(
        io,
        json,
        row,
        () => `removed ${row.id}; ${row.cancelled_deliveries} waiting alerts cancelled, history kept`,
      );
    });
}
