/**
 * Every function bundle, built exactly as the stack builds it (infra/bundling.ts): its
 * size, and its cold init time = median wall time for a fresh Node process to import it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_ALIASES, ESBUILD_TARGET, ESM_REQUIRE_BANNER, PASSWORD_MODULES, REPO_ROOT } from '../../infra/bundling.js';
import { fallbackRoute, routes } from '../../shared/routes.js';
import { workers } from '../../infra/workers.js';
import { fmt, median } from './stats.js';

export const BUNDLE_BUDGET_BYTES = 500 * 1000;
export const INIT_BUDGET_MS = 150;

export interface BundleFigure {
  name: string;
  bytes: number;
  initMedianMs: number;
}

const INIT_PROBE = `const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));`;

export async function measureBundles(runs = 7): Promise<BundleFigure[]> {
  const out = mkdtempSync(join(tmpdir(), 'vc-bundles-'));
  const entries = [...routes, fallbackRoute, ...workers].map((e) => ({ name: e.id, handler: e.handler, native: 'passwords' in e && e.passwords === true }));
  // Bundles with a native module (Argon2id) leave it external, as the stack does (it ships as
  // node_modules beside the bundle); they are written inside the repository so the probe finds it.
  const nativeOut = mkdtempSync(join(REPO_ROOT, 'node_modules', '.vc-bundles-'));
  const figures: BundleFigure[] = [];
  for (const e of entries) {
    const outfile = join(e.native ? nativeOut : out, e.name, 'index.mjs');
    await build({
      entryPoints: [resolve(REPO_ROOT, `${e.handler}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: ESBUILD_TARGET,
      mainFields: ['module', 'main'],
      minify: true,
      sourcemap: 'external',
      sourcesContent: false,
      banner: { js: ESM_REQUIRE_BANNER },
      alias: BUNDLE_ALIASES,
      external: e.native ? [...PASSWORD_MODULES] : [],
      logLevel: 'error',
    });
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const res = spawnSync(process.execPath, ['--input-type=module', '-e', INIT_PROBE, outfile], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' },
      });
      if (res.status !== 0) throw new Error(`importing ${e.name} failed: ${res.stderr}`);
      times.push(Number(res.stdout));
    }
    figures.push({ name: e.name, bytes: statSync(outfile).size, initMedianMs: median(times) });
  }
  rmSync(nativeOut, { recursive: true, force: true });
  return figures;
}

export function printBundles(figures: BundleFigure[]): void {
  console.log(`\nFunction bundles (budget ≤ ${BUNDLE_BUDGET_BYTES / 1000} KB, init ≤ ${INIT_BUDGET_MS} ms median of fresh processes)`);
  console.log(`${'function'.padEnd(34)} ${'size KB'.padStart(9)} ${'init ms'.padStart(9)}`);
  for (const f of figures) {
    const flag = f.bytes > BUNDLE_BUDGET_BYTES || f.initMedianMs > INIT_BUDGET_MS ? '  OVER BUDGET' : '';
    console.log(`${f.name.padEnd(34)} ${fmt(f.bytes / 1000).padStart(9)} ${fmt(f.initMedianMs).padStart(9)}${flag}`);
  }
  const worst = (k: keyof BundleFigure) => figures.reduce((a, b) => ((b[k] as number) > (a[k] as number) ? b : a));
  console.log(`largest: ${worst('bytes').name} ${fmt(worst('bytes').bytes / 1000)} KB; slowest init: ${worst('initMedianMs').name} ${fmt(worst('initMedianMs').initMedianMs)} ms`);
}
