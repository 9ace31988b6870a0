/**
 * The layers of Chronicle, checked by `npm run lint` (dependency-cruiser).
 * docs/contributors/architecture.md explains each layer and the rules; `npm run graph` draws the
 * folders' imports into docs/contributors/layers.md.
 *
 *   src/shared        brands, ids, Decider type, clock, validation reporter
 *   src/domain        events, commands, deciders, errors: pure
 *   src/application   ports and use cases (command handling, projection runner, audit, replay, verify)
 *   projections/      the read side: pure projections and their queries
 *   src/webhooks      fan-out mapping, dispatcher, signing, target-URL guard
 *   src/features      the registry: each feature's aggregates, read models and API resources
 *   src/http, src/cli, src/ops   the ways in
 *   src/console       the customer console, a way in of its own: its pages and its session
 *   src/adapters      the only code that touches a driver
 *   src/startup       the composition root: the start-up's steps; src/startup/adapters.ts is the only file
 *                     that picks adapters
 */
const DRIVERS = '^node_modules/(better-sqlite3|@eventstore/db-client|mongodb|pg)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain imports only src/shared, io-ts and fp-ts (and itself).',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^src/shared/', '^node_modules/(io-ts|fp-ts)/'] },
    },
    {
      name: 'shared-is-a-leaf',
      severity: 'error',
      comment: 'src/shared is below every layer: it imports no layer of the project.',
      from: { path: '^src/shared/' },
      to: { path: '^(src|projections)/', pathNot: '^src/shared/' },
    },
    {
      name: 'application-stays-inside',
      severity: 'error',
      comment:
        'src/application never imports the ways in (http, cli, ops), adapters, the read side, webhooks or the ' +
        'composition root: what it needs is passed in through its ports.',
      from: { path: '^src/application/' },
      to: {
        path: [
          '^src/(http|cli|ops|console|adapters|webhooks|features)/',
          '^src/startup/', '^src/(config|logging)\\.ts$',
          '^projections/',
        ],
      },
    },
    {
      name: 'projections-are-the-read-side',
      severity: 'error',
      comment: 'projections/ build on the domain, shared, application ports and the webhook-event mapping; never on a way in.',
      from: { path: '^projections/' },
      to: {
        path: ['^src/(http|cli|ops|console|adapters|features)/', '^src/startup/', '^src/(config|logging)\\.ts$'],
      },
    },
    {
      name: 'webhooks-below-the-ways-in',
      severity: 'error',
      comment: 'src/webhooks never imports http, cli, ops, an adapter or the composition root.',
      from: { path: '^src/webhooks/' },
      to: { path: ['^src/(http|cli|ops|console|adapters|features)/', '^src/startup/', '^src/config\\.ts$'] },
    },
    {
      name: 'http-never-imports-an-adapter',
      severity: 'error',
      comment: 'Routes and middleware work on ports; adapters are picked in src/startup/adapters.ts.',
      from: { path: '^src/http/' },
      to: { path: ['^src/adapters/', '^src/(cli|console|features|startup)/'] },
    },
    {
      name: 'console-calls-the-application',
      severity: 'error',
      comment:
        'The customer console calls application functions and reads read models through their ports, as the API does: ' +
        'never an adapter, a driver, the CLI, the registry or the start-up (adapters are picked in src/startup/adapters.ts).',
      from: { path: '^src/console/' },
      to: { path: ['^src/adapters/', '^src/(cli|features|startup)/', '^src/(config|logging)\\.ts$'] },
    },
    {
      name: 'features-only-compose',
      severity: 'error',
      comment:
        'src/features is the registry: it lists what each feature declares (aggregates, read models, resources) and ' +
        'never reaches an adapter, a way in other than its resources, or the start-up.',
      from: { path: '^src/features/' },
      to: { path: ['^src/(adapters|cli|ops|startup)/', '^src/(config|logging)\\.ts$'] },
    },
    {
      name: 'only-startup-picks-adapters',
      severity: 'error',
      comment:
        'Only src/startup/adapters.ts (and adapters among themselves) import src/adapters; and the read-model ' +
        "thread's script, the composition root of that thread, which adapters.ts names.",
      from: {
        path: '^(src|projections)/',
        pathNot: ['^src/startup/adapters\\.ts$', '^src/startup/readModelThreadMain\\.ts$', '^src/adapters/', '^src/config\\.ts$'],
      },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'engines-apart',
      severity: 'error',
      comment:
        "No engine's adapter (sqlite, postgres, mongodb, eventstoredb, memory) imports another engine's: what two " +
        'engines share lives in an engine-neutral folder (src/adapters/readModels, src/adapters/rateLimiterFlexible).',
      from: { path: '^src/adapters/(sqlite|postgres|mongodb|eventstoredb|memory)/' },
      to: { path: '^src/adapters/(sqlite|postgres|mongodb|eventstoredb|memory)/', pathNot: '^src/adapters/$1/' },
    },
    {
      name: 'adapters-take-plain-options',
      severity: 'error',
      comment: 'An adapter is given plain options (a pool size, the limits), never the whole configuration: src/adapters never imports src/config.ts.',
      from: { path: '^src/adapters/' },
      to: { path: '^src/config\\.ts$' },
    },
    {
      name: 'config-asks-the-clients-about-their-urls',
      severity: 'error',
      comment:
        'src/config.ts imports only the connection-string checks of the adapters (each loads its client only when ' +
        'asked): a URL is judged by the client that will use it, and no adapter is picked there.',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/adapters/', pathNot: '^src/adapters/(eventstoredb/eventStoreDbUrl|mongodb/mongoDbUrl)\\.ts$' },
    },
    {
      name: 'only-adapters-import-drivers',
      severity: 'error',
      comment: 'better-sqlite3, @eventstore/db-client, mongodb and pg are imported by src/adapters only.',
      from: { path: '^(src|projections)/', pathNot: '^src/adapters/' },
      to: { path: DRIVERS },
    },
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'No import cycles between files (type-only imports count too).',
      from: { path: '^(src|projections)/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'No import cycles between folders.',
      from: { path: '^(src|projections)/' },
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'Every import resolves.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
