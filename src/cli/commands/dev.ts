import { Option, type Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { AcquirerSimulator } from '../../dev/snap-acquirer/simulator.js';
import { simulatedSourcePost } from '../../payment-sources/kinds.js';
import type { CliContext } from '../context.js';
import { emit } from '../output.js';

/** dev acquirer (local SNAP acquirer simulator). */
export function registerDevCommands(program: Command, ctx: CliContext): void {
  const dev = program.command('dev').description('development tools');
  dev
    .command('notify')
    .description(
      "post what a phone's forwarder would for a payment received in a merchant app, signed with the source's secret",
    )
    .requiredOption('--source <id>', 'the phone source (src_...)')
    .requiredOption('--app <app>', 'gopay, dana or nobu')
    .requiredOption('--amount <n>', 'the amount in rupiah')
    .option('--gateway-url <url>', "the gateway's base URL (default PUBLIC_BASE_URL)")
    .option('--json', 'print JSON')
    .action(async (opts: { source: string; app: string; amount: string; gatewayUrl?: string }) => {
      if (!/^[1-9][0-9]{0,14}$/.test(opts.amount))
        throw new AppError('invalid_parameter', '--amount must be a whole number of rupiah', { param: 'amount' });
      const gatewayUrl = (opts.gatewayUrl ?? ctx.config().publicBaseUrl).replace(/\/+$/, '');
      if (!/^https?:\/\/[^\s/]+/.test(gatewayUrl))
        throw new AppError('invalid_parameter', '--gateway-url must be an http(s) URL', { param: 'gateway-url' });
      const post = await ctx.withDeps((deps) =>
        simulatedSourcePost(deps, opts.source, { app: opts.app, amount: Number(opts.amount) }),
      );
      const res = await fetch(`${gatewayUrl}${post.path}`, { method: 'POST', headers: post.headers, body: post.body });
      const answer = (await res.json().catch(() => null)) as unknown;
      if (res.status !== 200)
        throw new AppError('invalid_parameter', `the gateway answered ${res.status}: ${JSON.stringify(answer)}`, {
          param: 'gateway-url',
        });
      emit(ctx.io, ctx.json, { sent: JSON.parse(post.body) as unknown, answer }, () =>
        [`posted ${post.body}`, `answer: ${JSON.stringify(answer)}`].join('\n'),
      );
    });
  dev
    .command('acquirer')
    .description('run a local SNAP BI acquirer simulator and print the source config to add for it')
    .option('--port <port>', 'port to listen on (0: any free port)', '7070')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--gateway-url <url>', "the gateway's base URL, where notifications are sent (default PUBLIC_BASE_URL)")
    .addOption(
      new Option('--notify <method>', 'how notifications are signed')
        .choices(['asymmetric', 'symmetric'])
        .default('asymmetric'),
    )
    .option('--path-prefix <prefix>', 'a provider path prefix such as /snap-adapter/b2b')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        port: string;
        host: string;
        gatewayUrl?: string;
        notify: 'asymmetric' | 'symmetric';
        pathPrefix?: string;
      }) => {
        if (!/^[0-9]{1,5}$/.test(opts.port) || Number(opts.port) > 65535) {
          throw new AppError('invalid_parameter', '--port must be a port number', { param: 'port' });
        }
        const gatewayUrl = (opts.gatewayUrl ?? ctx.config().publicBaseUrl).replace(/\/+$/, '');
        if (!/^https?:\/\/[^\s/]+/.test(gatewayUrl))
          throw new AppError('invalid_parameter', '--gateway-url must be an http(s) URL', { param: 'gateway-url' });
        const sim = await AcquirerSimulator.start({
          port: Number(opts.port),
          host: opts.host,
          ...(opts.pathPrefix ? { pathPrefix: opts.pathPrefix } : {}),
        });
        const config = sim.addPartner({ gatewayUrl, notifyVerification: opts.notify });
        const payUrl = `${sim.baseUrl}/dev/pay`;
        emit(ctx.io, ctx.json, { baseUrl: sim.baseUrl, payUrl, config }, () =>
          [
            `SNAP acquirer simulator listening at ${sim.baseUrl} (notifications go to ${gatewayUrl})`,
            '',
            'Save this as snap.json and add it for a merchant:',
            '',
            JSON.stringify(config, null, 2),
            '',
            '  npm run -s cli -- source add --merchant mch_... --type snap --config snap.json',
            '',
            "Then create a transaction with that merchant's key, and pay it (referenceNo or trxid):",
            `  curl -X POST ${payUrl} -H 'Content-Type: application/json' -d '{"reference":"trx_..."}'`,
            '',
            'Keys are generated fresh on every start. Ctrl-C stops the simulator.',
          ].join('\n'),
        );
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            void sim.close().then(resolve);
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
      },
    );
}
