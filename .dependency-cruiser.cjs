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
      to: { path: '^src/(services|payment-sources|http|web|workers|cli|dev|mail)/' },
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
      comment: 'Services never import http, web, payment sources, workers or the CLI: those call services.',
      from: { path: '^src/services' },
      to: { path: '^src/(payment-sources|http|web|workers|cli|dev)/' },
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
        "A channel type's sender (src/workers/alert-channels/) and a mail kind's composer (src/services/email/kinds/) never import one another: they share only their folder's common module, and are reached through the folder's registry (index.ts).",
      from: { path: '^src/(workers/alert-channels|services/email/kinds)/', pathNot: '/index\\.ts$' },
      to: { path: '^src/(workers/alert-channels|services/email/kinds)/', pathNot: '/(common|mail-kind|transaction-mail)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
