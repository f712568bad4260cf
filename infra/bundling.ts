/**
 * How a function is bundled, defined once: the CDK stack (NodejsFunction) and the
 * benchmark (esbuild directly) both read these, so the measured bundles are the ones
 * deployed.
 */
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

/** esbuild target matching the Lambda runtime (Node.js 24). */
export const ESBUILD_TARGET = 'node24';

/** ESM bundles still meet CommonJS dependencies that call require(); give them one. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Module substitutions. Lambda always supplies credentials in environment variables, so
 * the SDK's full credential chain (and the STS/SSO clients it carries) is replaced by its
 * env provider: ~90 KB less in every bundle. See shared/aws/lambda-credentials.ts.
 */
export const BUNDLE_ALIASES: Record<string, string> = {
  '@aws-sdk/credential-provider-node': resolve(REPO_ROOT, 'shared/aws/lambda-credentials.ts'),
};

export const esbuildArgs = (): Record<string, string> =>
  Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to]));

/**
 * Native modules a function may need (manifest `passwords: true` → Argon2id). esbuild cannot
 * bundle a `.node` binary, so CDK installs these next to the bundle from package-lock.json;
 * npm picks the prebuilt binary for the Lambda platform (linux, arm64, glibc), not the host's.
 */
export const PASSWORD_MODULES: readonly string[] = ['@node-rs/argon2'];
export const NATIVE_INSTALL_ENV: Record<string, string> = { npm_config_os: 'linux', npm_config_cpu: 'arm64', npm_config_libc: 'glibc' };
