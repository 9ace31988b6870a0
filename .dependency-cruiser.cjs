/**
 * The layers of Chronicle, checked by `npm run lint` (dependency-cruiser).
 * docs/contributors/architecture.md explains each layer and the rules; `npm run graph` draws the
 * folders' imports into docs/contributors/layers.md.
 *
 *   src/shared        brands, ids, Decider type, clock, validation reporter
 *   src/application   the machinery of the core: ports, the command path, the projector, audit, replay, verify
 *   src/webhooks      the fan-out and the dispatcher, signing, the target-URL guard
 *   src/http, src/ops the HTTP kernel (routing, authentication, rate limits, errors, OpenAPI building blocks), probes, metrics
 *   src/console       the console's kernel: layout, sessions, CSRF, headers
 *   src/features/<name>/   one feature each: domain/ (pure), application/, readModels/, api/, admin/, console/ (the console feature: routes/),
 *                     and index.ts, its one public face; src/features/index.ts is the registry
 *   src/cli           the CLI, which reads the registry
 *   src/adapters      the only code that touches a driver
 *   src/startup       the composition root: reads the registry, picks adapters (src/startup/adapters.ts only)
 */
const DRIVERS = '^node_modules/(better-sqlite3|@eventstore/db-client|mongodb|pg)/';

/** The machinery: every folder of src/ but the features, the CLI and the start-up. */
const MACHINERY = '^src/(shared|application|webhooks|http|ops|console|adapters)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'feature-domain-is-pure',
      severity: 'error',
      comment:
        "A feature's domain/ imports only src/shared, io-ts, fp-ts, its own domain, and other features' public " +
        'faces (their index.ts).',
      from: { path: '^src/features/([^/]+)/domain/' },
      to: { pathNot: ['^src/features/$1/domain/', '^src/shared/', '^src/features/[^/]+/index\\.ts$', '(^|/)node_modules/(io-ts|fp-ts|uuid)/'] },
    },
    {
      name: 'feature-writes-below-its-ways-in',
      severity: 'error',
      comment: "A feature's application/ and readModels/ never import its ways in (api/, admin/, console/, routes/).",
      from: { path: '^src/features/([^/]+)/(application|readModels)/' },
      to: { path: '^src/features/$1/(api|admin|console|routes)/' },
    },
    {
      name: 'feature-writes-decide-on-the-log',
      severity: 'error',
      comment: "A feature's application/ never imports its read models: a write decides on the log, not on a read model.",
      from: { path: '^src/features/([^/]+)/application/' },
      to: { path: '^src/features/$1/readModels/' },
    },
    {
      name: 'console-pages-call-the-application',
      severity: 'error',
      comment:
        "A feature's console pages and routes (console/, the console feature's routes/) build a view model from its " +
        'application queries and writes, then render it: they import neither its domain/ nor its readModels/, nor an adapter.',
      from: { path: '^src/features/([^/]+)/(console|routes)/' },
      to: { path: ['^src/features/$1/(domain|readModels)/', '^src/adapters/'] },
    },
    {
      name: 'features-meet-through-their-index',
      severity: 'error',
      comment: "A feature reaches another feature only through that feature's index.ts, its one public face.",
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/[^/]+/', pathNot: ['^src/features/$1/', '^src/features/[^/]+/index\\.ts$'] },
    },
    {
      name: 'startup-and-cli-meet-features-through-their-index',
      severity: 'error',
      comment:
        "The start-up and the CLI reach a feature as other features do: through its index.ts, its one public face " +
        '(or through the registry, src/features/index.ts).',
      from: { path: '^src/(startup|cli)/' },
      to: { path: '^src/features/[^/]+/', pathNot: '^src/features/[^/]+/index\\.ts$' },
    },
    {
      name: 'machinery-never-imports-a-feature',
      severity: 'error',
      comment:
        'The machinery (the command path, the projector, the dispatcher, the HTTP and console kernels, the adapters) ' +
        'imports no feature: features plug into it through the registry, which only src/startup and src/cli read.',
      from: { path: [MACHINERY, '^src/(config|logging)\\.ts$'] },
      to: { path: '^src/features/' },
    },
    {
      name: 'only-startup-and-cli-read-the-registry',
      severity: 'error',
      comment: 'src/features/index.ts, the registry, is read by the start-up and the CLI only.',
      from: { path: '^src/', pathNot: ['^src/(startup|cli)/'] },
      to: { path: '^src/features/index\\.ts$' },
    },
    {
      name: 'features-never-start',
      severity: 'error',
      comment: 'A feature never reaches an adapter, the CLI, the start-up or the configuration: it is handed what it needs.',
      from: { path: '^src/features/' },
      to: { path: ['^src/(adapters|cli|startup)/', '^src/(config|logging)\\.ts$'] },
    },
    {
      name: 'shared-is-a-leaf',
      severity: 'error',
      comment: 'src/shared is below every layer: it imports no layer of the project.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'application-stays-inside',
      severity: 'error',
      comment:
        'src/application never imports the ways in (http, cli, ops, console), adapters, webhooks or the ' +
        'composition root: what it needs is passed in through its ports.',
      from: { path: '^src/application/' },
      to: { path: ['^src/(http|cli|ops|console|adapters|webhooks)/', '^src/startup/', '^src/(config|logging)\\.ts$'] },
    },
    {
      name: 'webhooks-below-the-ways-in',
      severity: 'error',
      comment: 'src/webhooks never imports http, cli, ops, the console, an adapter or the composition root.',
      from: { path: '^src/webhooks/' },
      to: { path: ['^src/(http|cli|ops|console|adapters)/', '^src/startup/', '^src/config\\.ts$'] },
    },
    {
      name: 'http-never-imports-an-adapter',
      severity: 'error',
      comment: 'Routes and middleware work on ports; adapters are picked in src/startup/adapters.ts.',
      from: { path: '^src/http/' },
      to: { path: ['^src/adapters/', '^src/(cli|console|startup)/'] },
    },
    {
      name: 'console-kernel-below-the-pages',
      severity: 'error',
      comment: "The console's kernel never imports an adapter, the CLI, the start-up or the configuration.",
      from: { path: '^src/console/' },
      to: { path: ['^src/adapters/', '^src/(cli|startup)/', '^src/(config|logging)\\.ts$'] },
    },
    {
      name: 'only-startup-picks-adapters',
      severity: 'error',
      comment:
        'Only src/startup/adapters.ts (and adapters among themselves) import src/adapters; and the read-model ' +
        "thread's script, the composition root of that thread, which adapters.ts names.",
      from: {
        path: '^src/',
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
      from: { path: '^src/', pathNot: '^src/adapters/' },
      to: { path: DRIVERS },
    },
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'No import cycles between files (type-only imports count too).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment: 'No import cycles between folders.',
      from: { path: '^src/' },
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
