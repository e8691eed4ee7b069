import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { addUser } from '../../services/users/add-user.js';
import { listUsers } from '../../services/users/list-users.js';
import { setUserEnabled } from '../../services/users/set-user-enabled.js';
import { setUserPassword } from '../../services/users/set-user-password.js';
import type { UserView } from '../../services/users/user-view.js';
import { inviteUser } from '../../services/users/invite-user.js';
import { createSmtpSender } from '../../mail/smtp.js';
import type { UserRole } from '../../storage/schema.js';
import { emit, emitItems } from '../output.js';
import type { CliContext } from '../context.js';
import { readSecretLine } from '../read-secret.js';

/**
 * The password for `user add` and `user password`: ADMIN_PASSWORD when set (scripts), else the first line
 * of standard input (`printf '%s\n' "$PW" | qris-gateway user add ...`), read without echo when it is a
 * terminal. Never a command-line argument, which other users of the machine can read in the process list.
 */
async function readPassword(ctx: CliContext): Promise<string> {
  const fromEnv = ctx.env.ADMIN_PASSWORD;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const line = await readSecretLine(process.stdin, 'password (not shown; then Enter): ', ctx.io.err);
  if (line === '')
    throw new AppError('invalid_parameter', 'no password: set ADMIN_PASSWORD or write it on standard input', {
      param: 'password',
    });
  return line;
}

const line = (u: UserView): string =>
  `${u.id}  ${u.email}  ${u.role}${u.merchant_ids.length > 0 ? ` (${u.merchant_ids.join(', ')})` : ''}${u.disabled ? '  DISABLED' : ''}`;

const short = (u: UserView) => ({ id: u.id, email: u.email, role: u.role });

/** user add|list|disable|enable|password: the console's users. */
export function registerUserCommands(program: Command, ctx: CliContext): void {
  const { io, json } = ctx;
  const user = program.command('user').description('console users: add, invite, list, disable, enable, password');

  user
    .command('add')
    .description('add a console user (password from ADMIN_PASSWORD or standard input); audited')
    .requiredOption('--email <address>', 'the address the user logs in with')
    .addOption(
      new Option(
        '--role <role>',
        'operator (sees everything), merchant (sees its merchants) or cashier (sells at the point of sale of its merchants)',
      )
        .choices(['operator', 'merchant', 'cashier'])
        .makeOptionMandatory(),
    )
    .option('--merchant <id...>', 'for a merchant user or cashier: the merchant(s) it belongs to')
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; role: UserRole; merchant?: string[] }) => {
      const password = await readPassword(ctx);
      const added = await ctx.withDeps((deps) =>
        addUser(deps, { email: opts.email, password, role: opts.role, merchantIds: opts.merchant ?? [] }, ctx.actor()),
      );
      emit(io, json, short(added), () => `added ${added.role} ${added.email} (${added.id})`);
    });

  user
    .command('invite')
    .description('make an invitation link (SIGNUP=invite or open); mailed when SMTP_URL is set, printed either way')
    .requiredOption('--email <address>', 'who is invited')
    .addOption(
      new Option(
        '--role <role>',
        'merchant (an owner: sees its merchants) or cashier (sells at the point of sale of its merchants; needs --merchant)',
      )
        .choices(['merchant', 'cashier'])
        .default('merchant'),
    )
    .option('--merchant <id...>', 'the merchant(s) the new user will belong to')
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; role: 'merchant' | 'cashier'; merchant?: string[] }) => {
      const settings = ctx.config();
      const mail = settings.smtpUrl && settings.mailFrom ? createSmtpSender(settings.smtpUrl, settings.mailFrom) : null;
      try {
        const made = await ctx.withDeps((deps) =>
          inviteUser(deps, mail, { email: opts.email, merchantIds: opts.merchant ?? [], role: opts.role }, ctx.actor()),
        );
        emit(
          io,
          json,
          made,
          () =>
            `invitation for ${made.role === 'cashier' ? 'cashier ' : ''}${made.email}${made.mailed ? ' (mailed)' : ''}: ${made.link}`,
        );
      } finally {
        mail?.close();
      }
    });

  user
    .command('list')
    .description('list console users, their role and merchants')
    .addOption(new Option('--role <role>', 'only this role').choices(['operator', 'merchant', 'cashier']))
    .option('--json', 'print JSON')
    .action(async (opts: { role?: UserRole }) => {
      const users = await ctx.withDeps((deps) => listUsers(deps, opts.role ?? null));
      emitItems(io, json, users, 'no users', line);
    });

  for (const [name, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    user
      .command(`${name} <user>`)
      .description(`${name} a user (by id or e-mail)${enabled ? '' : '; ends its sessions at once'}`)
      .option('--json', 'print JSON')
      .action(async (who: string) => {
        const changed = await ctx.withDeps((deps) => setUserEnabled(deps, who, enabled, ctx.actor()));
        emit(
          io,
          json,
          { ...short(changed), disabled: changed.disabled },
          () => `${changed.email} is ${changed.disabled ? 'disabled' : 'enabled'}`,
        );
      });
  }

  user
    .command('password <user>')
    .description("set a user's password (ADMIN_PASSWORD or standard input); ends its sessions")
    .option('--json', 'print JSON')
    .action(async (who: string) => {
      const password = await readPassword(ctx);
      const changed = await ctx.withDeps((deps) => setUserPassword(deps, who, password, ctx.actor()));
      emit(io, json, short(changed), () => `password of ${changed.email} changed`);
    });
}
