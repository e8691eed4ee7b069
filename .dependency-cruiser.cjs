// The import rules of ARCHITECTURE.md, checked by `npm run -s deps` in .ci/run. Type-only imports count:
// a type that points the wrong way is a dependency that points the wrong way.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules must not import each other in a circle.',
      from: { path: '^src' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'The domain imports nothing of ours but the domain.',
      from: { path: '^src/domain' },
      to: { path: '^src/', pathNot: '^src/domain' },
    },
    {
      name: 'storage-below-services',
      severity: 'error',
      comment: 'Storage never imports services or anything above them.',
      from: { path: '^src/storage' },
      to: { path: '^src/(services|payment-sources|alerts|http|web|workers|cli|dev|mail)/' },
    },
    {
      name: 'storage-engine-inside-storage',
      severity: 'error',
      comment:
        'The storage engine (src/storage/engine/: group commit, log flushes, prepared and batched reads) is used by storage alone: everything above calls a query in src/storage/queries/.',
      from: { path: '^src/', pathNot: '^src/storage/' },
      to: { path: '^src/storage/engine/' },
    },
    {
      name: 'storage-engine-below-queries',
      severity: 'error',
      comment: 'The storage engine knows no table or query: queries use it, never the reverse.',
      from: { path: '^src/storage/engine/' },
      to: { path: '^src/storage/(queries|migrations)/' },
    },
    {
      name: 'services-below-adapters',
      severity: 'error',
      comment: 'Services never import http, web, payment sources, alerts, workers or the CLI: those call services.',
      from: { path: '^src/services' },
      to: { path: '^src/(payment-sources|alerts|http|web|workers|cli|dev)/' },
    },
    {
      name: 'http-below-web-and-wiring',
      severity: 'error',
      comment:
        'src/http is the API: it never imports the web pages, the workers, the CLI or the wiring. The wiring (src/app.ts) mounts the web beside the API and starts the key-use flusher; the web may use http\'s request helpers, never the reverse.',
      from: { path: '^src/http' },
      to: { path: '^src/((web|workers|cli)/|(app|runtime|server)\\.ts$)' },
    },
    {
      name: 'services-below-config-and-wiring',
      severity: 'error',
      comment:
        'Services read settings through deps.config, typed by src/settings (a leaf): never through src/config.ts, the loader, nor the wiring (app.ts, runtime.ts, server.ts) that assembles deps.',
      from: { path: '^src/services' },
      to: { path: '^src/(config|app|runtime|server)\\.ts$' },
    },
    {
      name: 'workers-below-web-and-http',
      severity: 'error',
      comment:
        'Workers run background rounds on services, mail and the payment sources; they never import the API (http), the web pages, the CLI or the wiring, which start them.',
      from: { path: '^src/workers' },
      to: { path: '^src/((http|web|cli)/|(app|runtime|server)\\.ts$)' },
    },
    {
      name: 'wiring-on-top',
      severity: 'error',
      comment:
        'The wiring (src/app.ts builds the HTTP app, src/runtime.ts opens the database and assembles deps, src/server.ts serves) is imported by the CLI and by itself only: nothing below knows how it is put together.',
      from: { path: '^src/', pathNot: '^src/(cli/|(app|runtime|server)\\.ts$)' },
      to: { path: '^src/(app|runtime|server)\\.ts$' },
    },
    {
      name: 'cli-on-top',
      severity: 'error',
      comment: 'The CLI starts things (its commands, serve): nothing else imports it.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'alerts-below-edges',
      severity: 'error',
      comment:
        'src/alerts (sending merchants\' alerts to Telegram, Discord and e-mail, and the Telegram bot\'s questions) calls services, mail and net; the worker, the console and the CLI call it, so it never imports http, web, workers, the CLI, the wiring or config.ts.',
      from: { path: '^src/alerts' },
      to: { path: '^src/((http|web|workers|cli|payment-sources)/|(app|runtime|server|config)\\.ts$)' },
    },
    {
      name: 'web-not-workers',
      severity: 'error',
      comment:
        'The web pages never import the workers: what a page and a worker both do (an alert sent now, a guarded POST) sits below both, in src/alerts and src/net.',
      from: { path: '^src/web' },
      to: { path: '^src/(workers|cli)/' },
    },
    {
      name: 'source-kinds-through-the-registry',
      severity: 'error',
      comment:
        'A payment source kind is reached through src/payment-sources/kinds.ts (its SourceKind object), never by importing its folder: adding a kind then touches its folder and one registry line. (src/dev, the SNAP test acquirer, speaks the wire format and may.)',
      from: { path: '^src/(http|web|cli|workers|services|storage|mail|domain)/' },
      to: { path: '^src/payment-sources/[^/]+/' },
    },
    {
      name: 'imaging-is-a-leaf',
      severity: 'error',
      comment: 'src/imaging (reading uploaded images) uses the domain and npm packages only: services call it, never the reverse.',
      from: { path: '^src/imaging' },
      to: { path: '^src/', pathNot: '^src/(imaging|domain)/' },
    },
    {
      name: 'hashing-is-a-leaf',
      severity: 'error',
      comment: 'src/hashing (password hashes on threads of their own) uses the domain only: services call it, never the reverse.',
      from: { path: '^src/hashing' },
      to: { path: '^src/', pathNot: '^src/(hashing|domain)/' },
    },
    {
      name: 'rounds-is-a-leaf',
      severity: 'error',
      comment:
        'src/rounds (runEvery and its outage backoff: the loop of every background round) uses the domain only: the workers and the payment sources\' pollers both run on it, so it sits below both.',
      from: { path: '^src/rounds' },
      to: { path: '^src/', pathNot: '^src/(rounds|domain)/' },
    },
    {
      name: 'wire-is-a-leaf',
      severity: 'error',
      comment:
        'src/wire (an error code\'s HTTP status, the error envelope, its schema and its sending) uses the domain and npm packages only: the API, the payment sources\' inbound routes and the web pages all answer errors with it, so it sits below them all.',
      from: { path: '^src/wire' },
      to: { path: '^src/', pathNot: '^src/(wire|domain)/' },
    },
    {
      name: 'payment-sources-below-edges',
      severity: 'error',
      comment:
        'Payment sources call services and are mounted and run by the edges and the wiring; they never import http, web, workers, the CLI, the wiring (runtime.ts, server.ts) or config.ts (their settings reach them in deps). What both need sits below: src/wire (error answers), src/rounds (the poll loop).',
      from: { path: '^src/payment-sources' },
      to: { path: '^src/((http|web|workers|cli)/|(runtime|server|config)\\.ts$)' },
    },
    {
      name: 'settings-is-a-leaf',
      severity: 'error',
      comment:
        'src/settings (every setting: the kit, the process\'s own, each area\'s, the registry) uses the domain only, so that every layer may read a setting without importing the area above that owns its use.',
      from: { path: '^src/settings' },
      to: { path: '^src/', pathNot: '^src/(settings|domain)/' },
    },
    {
      name: 'config-loader-below-areas',
      severity: 'error',
      comment:
        'src/config.ts reads the registry of src/settings from the environment: it imports src/settings, the domain and startup-error.ts only, never the web, http, payment sources, services or anything else above.',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(settings/|domain/|startup-error\\.ts$)' },
    },
    {
      name: 'net-is-a-leaf',
      severity: 'error',
      comment:
        'src/net (the SSRF guard, the guarded GET and the webhook POST that never follow a redirect) uses the domain only: workers, payment sources and the console\'s test sends all go out through it.',
      from: { path: '^src/net' },
      to: { path: '^src/', pathNot: '^src/(net|domain)/' },
    },
    {
      name: 'qr-is-a-leaf',
      severity: 'error',
      comment: 'src/qr (QR images as PNG and SVG) uses the domain only: the API, the checkout page and the e-mails all draw with it.',
      from: { path: '^src/qr' },
      to: { path: '^src/', pathNot: '^src/(qr|domain)/' },
    },
    {
      name: 'presentation-is-a-leaf',
      severity: 'error',
      comment: 'src/presentation (words, languages, formatters) uses the domain only: web pages and mails use it, never the reverse.',
      from: { path: '^src/presentation' },
      to: { path: '^src/', pathNot: '^src/(presentation|domain)/' },
    },
    {
      name: 'mail-below-edges',
      severity: 'error',
      comment: 'Mail is rendered by services and workers; it never imports the HTTP or web edges.',
      from: { path: '^src/mail' },
      to: { path: '^src/(http|web)/' },
    },
    {
      name: 'mail-below-services',
      severity: 'error',
      comment:
        'Mail renders and sends what services, alerts and workers give it; it never imports them, the payment sources, the CLI, the wiring or config.ts (its settings come in as arguments or deps).',
      from: { path: '^src/mail' },
      to: { path: '^src/((services|payment-sources|alerts|workers|cli|dev)/|(app|runtime|server|config)\\.ts$)' },
    },
    {
      name: 'outbox-knows-no-kind',
      severity: 'error',
      comment:
        'The outbox (src/services/outbox/: claim, lease, attempt, backoff, delivery log) is written once for every queue and knows none of them; a queue (webhooks, notify, email) declares itself and uses it. Only the fan-out, where an event becomes its deliveries, names them.',
      from: { path: '^src/services/outbox/', pathNot: '^src/services/outbox/fan-out\\.ts$' },
      to: { path: '^src/services/(webhooks|notify|email)/' },
    },
    {
      name: 'delivery-handlers-apart',
      severity: 'error',
      comment:
        "A channel type's sender (src/alerts/channels/) and a mail kind's composer (src/services/email/kinds/) never import one another: they share only their folder's common module, and are reached through the folder's registry (index.ts).",
      from: { path: '^src/(alerts/channels|services/email/kinds)/', pathNot: '/index\\.ts$' },
      to: { path: '^src/(alerts/channels|services/email/kinds)/', pathNot: '/(common|mail-kind|transaction-mail)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
