// The house's floors, enforced. Each floor imports only the floors below it:
//
//   bin/, infra/                      (on top: may import anything)
//   functions/                        handlers (thin)
//   shared/<area>/                    domain services (calls, campaigns, messages, http, …)
//   shared/repositories/              stores: the only place DynamoDB commands are built
//   shared/db/ shared/schemas/ shared/events/ shared/pagination/ (the foundation)
//   shared/policy/ (pure; schemas import it, it imports no schemas) and the leaf modules
//
// Today's violations are recorded in .dependency-cruiser-known-violations.json and ignored
// with --ignore-known, so the check fails on any NEW violation while the renovation shrinks
// that baseline (regenerate it with `npm run lint:deps:baseline` after removing some).
//
// Paths are anchored with ROOT: the rules match the real tree and the same tree under a test
// fixture root (test/fixtures/layering/<case>/shared/…), which is how
// test/unit/layering.test.ts proves that a broken import fails.

// (An alternation rather than an optional group: dependency-cruiser rejects nested quantifiers.)
const ROOT = '(?:^|^test/fixtures/layering/[^/]+/)';
const PROJECT = `${ROOT}(?:shared|functions|infra|bin)/`;
/** Small modules every floor may use; they import nothing from the project but each other. */
const LEAF = `${ROOT}shared/(?:(?:clock|config|ids|canonical-json|secrets|observability|retry|time-zone|errors|recently-used|aws/aws-json)\\.ts$|crypto/)`;
const FOUNDATION = `${ROOT}shared/(?:db|schemas|events|pagination|policy)/`;
const STORES = `${ROOT}shared/repositories/`;
/** npm packages the pure policy floor may use (no network, no disk, no clock). */
const PURE_PACKAGES = '^node_modules/(?:zod|decimal\\.js|libphonenumber-js)/';
/** The bundles a call is queued and dialled with; they must stay small and sandbox-free. */
const CALL_PATH = `${ROOT}functions/(?:calls/(?:queue-call|preflight-call)|workers/call-dispatch)\\.ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means two modules cannot be understood (or bundled, or tested) apart. Type-only imports count too.',
      from: { path: PROJECT },
      to: { circular: true },
    },
    {
      name: 'shared-never-imports-handlers-or-infra',
      severity: 'error',
      comment: 'Services, stores and the foundation are used by handlers, infra and bin; never the other way round.',
      from: { path: `${ROOT}shared/` },
      to: { path: `${ROOT}(?:functions|infra|bin)/` },
    },
    {
      name: 'handlers-never-import-infra-or-bin',
      severity: 'error',
      comment: 'A handler is bundled into a Lambda; infra/ and bin/ are deploy- and dev-time code.',
      from: { path: `${ROOT}functions/` },
      to: { path: `${ROOT}(?:infra|bin)/` },
    },
    {
      name: 'stores-import-only-the-foundation',
      severity: 'error',
      comment: 'shared/repositories/ may import only shared/db, shared/schemas, shared/events, shared/policy, other stores and the leaf modules.',
      from: { path: STORES },
      to: { path: PROJECT, pathNot: [STORES, FOUNDATION, LEAF] },
    },
    {
      name: 'foundation-imports-only-the-foundation',
      severity: 'error',
      comment:
        'shared/db, shared/schemas, shared/events and shared/pagination sit at the bottom: they import each other, shared/policy and the leaf modules only.',
      from: { path: `${ROOT}shared/(?:db|schemas|events|pagination)/` },
      to: { path: PROJECT, pathNot: [FOUNDATION, LEAF] },
    },
    {
      name: 'policy-imports-nothing-with-io',
      severity: 'error',
      comment:
        'shared/policy/ is pure (the instant is an argument): it imports only itself, canonical-json, time-zone and a few pure packages; no node built-ins, no AWS SDK, no store, no clock, and no schemas (schemas build on policy, never the reverse).',
      from: { path: `${ROOT}shared/policy/` },
      to: {
        pathNot: [`${ROOT}shared/policy/`, `${ROOT}shared/(?:canonical-json|time-zone)\\.ts$`, PURE_PACKAGES],
      },
    },
    {
      name: 'leaf-modules-stay-leaves',
      severity: 'error',
      comment:
        'clock, config, ids, canonical-json, secrets, observability, retry, time-zone, crypto, the bounded per-instance cache (recently-used) and the signed AWS call (aws/aws-json) are imported by every floor, so they import no floor.',
      from: { path: LEAF },
      to: { path: PROJECT, pathNot: LEAF },
    },
    {
      name: 'call-path-never-reaches-sandbox-or-calendar',
      severity: 'error',
      comment: 'Queuing, preflighting and dispatching a call must not bundle the sandbox carrier or the calendar integration.',
      from: { path: CALL_PATH },
      to: { path: `${ROOT}shared/(?:sandbox|calendar)/`, reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(?:^|/)(?:cdk\\.out|\\.local)/' },
    // node_modules is a symlink to a shared install: keep the link so npm paths read node_modules/…
    preserveSymlinks: true,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    skipAnalysisNotInRules: true,
  },
};
