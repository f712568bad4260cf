/**
 * How a function is bundled, defined once: the CDK stack (NodejsFunction, through
 * `nodejsBundling`) and the benchmark (esbuild directly, through `esbuildOptions`) both
 * read `FUNCTION_BUNDLE`, so the measured bundles are the ones deployed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BuildOptions } from 'esbuild';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

/** esbuild target matching the Lambda runtime (Node.js 24). */
export const ESBUILD_TARGET = 'node24';

/** ESM bundles still meet CommonJS dependencies that call require(); give them one. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Module substitutions. Lambda always supplies credentials in environment variables, so
 * the SDK's full credential chain (and the STS/SSO clients it carries) is replaced by its
 * env provider: ~90 KB less in every bundle. See shared/aws/lambda-credentials.ts.
 */
export const BUNDLE_ALIASES: Record<string, string> = {
  '@aws-sdk/credential-provider-node': resolve(REPO_ROOT, 'shared/aws/lambda-credentials.ts'),
};

/**
 * The global a route's bundle reads its own manifest entry from (shared/http/route-core.ts),
 * replaced at build time by that entry: the bundle then carries one route, not the whole
 * manifest (~45 KB minified). Unbundled (locally, in tests) it is undefined and the factory
 * looks the route up in the manifest.
 */
export const BUNDLED_ROUTE_GLOBAL = 'globalThis.VC_BUNDLED_ROUTE';

/** The esbuild options every function bundle is built with. */
export const FUNCTION_BUNDLE = {
  format: 'esm',
  platform: 'node',
  target: ESBUILD_TARGET,
  // Packages' ESM builds first: esbuild tree-shakes ES modules, not CommonJS.
  mainFields: ['module', 'main'],
  minify: true,
  // Stack traces (NODE_OPTIONS=--enable-source-maps) need the mappings in a .map beside the
  // bundle, found through its sourceMappingURL comment, not a second copy of every source file.
  sourcemap: 'linked',
  sourcesContent: false,
  // Licence comments are kept in the packages' own files; they are no use at run time.
  legalComments: 'none',
  banner: ESM_REQUIRE_BANNER,
  alias: BUNDLE_ALIASES,
} as const;

/**
 * Native modules a function may need (manifest `passwords: true` → Argon2id). esbuild cannot
 * bundle a `.node` binary, so CDK installs these next to the bundle from package-lock.json;
 * npm picks the prebuilt binary for the Lambda platform (linux, arm64, glibc), not the host's.
 */
export const PASSWORD_MODULES: readonly string[] = ['@node-rs/argon2'];
export const NATIVE_INSTALL_ENV: Record<string, string> = { npm_config_os: 'linux', npm_config_cpu: 'arm64', npm_config_libc: 'glibc' };

/**
 * Files a function carries gzipped (base64) in a global instead of as parsed JSON: esbuild
 * would inline a JSON import as an object literal (the OpenAPI document: ~530 KB of the
 * bundle, ~50 KB gzipped). The handler reads the global and leaves its import unused.
 */
export const GZIPPED_FILES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'functions/ops/openapi': { 'globalThis.VC_OPENAPI_GZIP': 'docs/openapi.json' },
};

/** What differs between functions: native modules left outside, and a route's own manifest entry. */
export interface FunctionBundleInputs {
  /** The handler module, relative to the repository root, without extension (as the manifest names it). */
  readonly handler: string;
  readonly nodeModules?: readonly string[];
  /** The route's manifest entry (route functions only); see BUNDLED_ROUTE_GLOBAL. */
  readonly route?: object;
}

/** String literals (JSON-quoted): esbuild folds a literal's `=== undefined`, not an object's. */
function defineFor(inputs: FunctionBundleInputs): Record<string, string> {
  const gzipped = Object.entries(GZIPPED_FILES[inputs.handler] ?? {}).map(([name, file]) => [
    name,
    JSON.stringify(gzipSync(readFileSync(resolve(REPO_ROOT, file)), { level: 9 }).toString('base64')),
  ]);
  return {
    ...(inputs.route ? { [BUNDLED_ROUTE_GLOBAL]: JSON.stringify(JSON.stringify(inputs.route)) } : {}),
    ...Object.fromEntries(gzipped),
  };
}

/** esbuild's own options for one function (the benchmark builds with these). */
export function esbuildOptions(outfile: string, inputs: FunctionBundleInputs): BuildOptions {
  const { banner, mainFields, ...rest } = FUNCTION_BUNDLE;
  return {
    ...rest,
    mainFields: [...mainFields],
    entryPoints: [resolve(REPO_ROOT, `${inputs.handler}.ts`)],
    outfile,
    bundle: true,
    banner: { js: banner },
    external: [...(inputs.nodeModules ?? [])],
    define: defineFor(inputs),
    logLevel: 'error',
  };
}

/**
 * The same options in NodejsFunction's terms (its props for what it names, `esbuildArgs` for
 * the rest). Its `format`, `logLevel` and `sourceMapMode` values are plain strings too.
 */
export function nodejsBundling(inputs: FunctionBundleInputs) {
  const b = FUNCTION_BUNDLE;
  return {
    format: b.format,
    target: b.target,
    mainFields: [...b.mainFields],
    minify: b.minify,
    sourceMap: true,
    sourcesContent: b.sourcesContent,
    // Bundle the AWS SDK v3 too: a pinned, tree-shaken client instead of the runtime's.
    externalModules: [],
    ...(inputs.nodeModules?.length ? { nodeModules: [...inputs.nodeModules], environment: NATIVE_INSTALL_ENV } : {}),
    banner: b.banner,
    define: defineFor(inputs),
    esbuildArgs: {
      '--legal-comments': b.legalComments,
      ...Object.fromEntries(Object.entries(b.alias).map(([from, to]) => [`--alias:${from}`, to])),
    },
  };
}
