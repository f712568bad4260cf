/** Where things are: the repo root and handler modules named in the manifests. */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root (this file lives in infra/local/). */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const extensions = ['.ts', '.mts', '.js', '.mjs'];

/**
 * Resolves a manifest handler path ("functions/ops/healthz", relative to the repo root,
 * no extension) to a file on disk, or undefined when no such module exists yet.
 */
export function resolveModuleFile(modulePath: string, root = repoRoot): string | undefined {
  const base = isAbsolute(modulePath) ? modulePath : join(root, modulePath);
  if (extensions.some((ext) => base.endsWith(ext)) && existsSync(base)) return resolve(base);
  for (const ext of extensions) {
    const file = base + ext;
    if (existsSync(file)) return resolve(file);
  }
  return undefined;
}
