/**
 * Every function bundle, built exactly as the stack builds it (infra/bundling.ts): its
 * size, what the largest inputs are when it is over budget, and its cold init time =
 * median wall time for a fresh Node process to import it. Then the import closures the
 * layering targets name: project files reached from a handler, type-only imports included
 * (dependency-cruiser with the repository's own configuration).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, PASSWORD_MODULES, REPO_ROOT } from '../../infra/bundling.js';
import { fallbackRoute, type RouteDefinition, routes } from '../../shared/routes.js';
import { workers } from '../../shared/workers.js';
import { fmt, median } from './stats.js';

export const BUNDLE_BUDGET_BYTES = 500 * 1000;
export const INIT_BUDGET_MS = 150;
/** Project files a handler may reach (type-only imports included). */
export const CLOSURE_TARGETS: readonly { name: string; handler: string; files: number }[] = [
  { name: 'queueCall', handler: 'functions/calls/queue-call', files: 80 },
  { name: 'getHealth', handler: 'functions/ops/healthz', files: 15 },
];
const TOP_INPUTS = 8;

export interface BundleFigure {
  name: string;
  bytes: number;
  initMedianMs: number;
  /** Output bytes per input (a package, or a project file), largest first. */
  topInputs: [string, number][];
}

export interface ClosureFigure {
  name: string;
  files: number;
  target: number;
}

const INIT_PROBE = `const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));`;

/** A package's files count as the package; a project file as itself. */
const inputName = (path: string): string => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path;

function topInputs(metafile: Metafile): [string, number][] {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint !== undefined);
  const by = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) by.set(inputName(path), (by.get(inputName(path)) ?? 0) + input.bytesInOutput);
  return [...by].sort((a, b) => b[1] - a[1]);
}

/** `runs` = 0 measures sizes only. */
export async function measureBundles(runs = 7): Promise<BundleFigure[]> {
  const out = mkdtempSync(join(tmpdir(), 'vc-bundles-'));
  const entries = [...routes, fallbackRoute, ...workers].map((e) => ({
    name: e.id,
    handler: e.handler,
    native: 'passwords' in e && e.passwords === true,
    // The stack hands each route function its own manifest entry (infra/stack.ts); the fallback and workers get none.
    route: routes.includes(e as (typeof routes)[number]) ? (e as RouteDefinition) : undefined,
  }));
  // Bundles with a native module (Argon2id) leave it external, as the stack does (it ships as
  // node_modules beside the bundle); they are written inside the repository so the probe finds it.
  const nativeOut = mkdtempSync(join(REPO_ROOT, 'node_modules', '.vc-bundles-'));
  const figures: BundleFigure[] = [];
  try {
    for (const e of entries) {
      const outfile = join(e.native ? nativeOut : out, e.name, 'index.mjs');
      const result = await build({
        ...esbuildOptions(outfile, { handler: e.handler, nodeModules: e.native ? PASSWORD_MODULES : [], route: e.route }),
        metafile: true,
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
      figures.push({ name: e.name, bytes: statSync(outfile).size, initMedianMs: runs ? median(times) : NaN, topInputs: topInputs(result.metafile) });
    }
  } finally {
    rmSync(nativeOut, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
  return figures;
}

/** Project files (shared/, functions/, …; not node_modules) `handler` reaches, type-only imports included. */
export function projectClosure(handler: string): number {
  const res = spawnSync(
    process.execPath,
    [
      join(REPO_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'),
      `${handler}.ts`,
      '--config',
      '.dependency-cruiser.cjs',
      '--output-type',
      'json',
    ],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  if (res.status !== 0) throw new Error(`dependency-cruiser failed on ${handler}: ${res.stderr}`);
  const { modules } = JSON.parse(res.stdout) as { modules: { source: string; coreModule?: boolean; couldNotResolve?: boolean }[] };
  return modules.filter((m) => !m.coreModule && !m.couldNotResolve && !m.source.includes('node_modules/')).length;
}

export const measureClosures = (): ClosureFigure[] => CLOSURE_TARGETS.map((t) => ({ name: t.name, files: projectClosure(t.handler), target: t.files }));

export function printBundles(figures: BundleFigure[], closures: ClosureFigure[] = []): void {
  console.log(`\nFunction bundles (budget ≤ ${BUNDLE_BUDGET_BYTES / 1000} KB, init ≤ ${INIT_BUDGET_MS} ms median of fresh processes)`);
  console.log(`${'function'.padEnd(38)} ${'size KB'.padStart(9)} ${'init ms'.padStart(9)}`);
  for (const f of figures) {
    const over = f.bytes > BUNDLE_BUDGET_BYTES;
    const flag = over || f.initMedianMs > INIT_BUDGET_MS ? '  OVER BUDGET' : '';
    console.log(`${f.name.padEnd(38)} ${fmt(f.bytes / 1000).padStart(9)} ${fmt(f.initMedianMs).padStart(9)}${flag}`);
    if (over)
      console.log(
        `${' '.repeat(6)}top inputs: ${f.topInputs
          .slice(0, TOP_INPUTS)
          .map(([name, bytes]) => `${name} ${fmt(bytes / 1000)}`)
          .join(', ')}`,
      );
  }
  const worst = (k: 'bytes' | 'initMedianMs') => figures.reduce((a, b) => (b[k] > a[k] ? b : a));
  console.log(
    `largest: ${worst('bytes').name} ${fmt(worst('bytes').bytes / 1000)} KB; slowest init: ${worst('initMedianMs').name} ${fmt(worst('initMedianMs').initMedianMs)} ms`,
  );
  console.log(`bundles over ${BUNDLE_BUDGET_BYTES / 1000} KB: ${figures.filter((f) => f.bytes > BUNDLE_BUDGET_BYTES).length}`);
  for (const c of closures) console.log(`import closure of ${c.name}: ${c.files} project files (target ≤ ${c.target})${c.files > c.target ? '  OVER' : ''}`);
}
