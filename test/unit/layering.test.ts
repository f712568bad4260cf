import { resolve } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

// The layering rules (.dependency-cruiser.cjs) run over tiny fixture trees: each broken tree
// must produce its violation, and the clean tree none, so a rule that silently stops
// matching (a path typo, a resolution change) fails here rather than letting imports through.
const FIXTURES = 'test/fixtures/layering';
// Paths are cruised relative to the repository root, whatever directory vitest runs from.
const ROOT = resolve(import.meta.dirname, '..', '..');

let options: Awaited<ReturnType<typeof extractDepcruiseOptions>>;
let tsConfig: ReturnType<typeof extractTSConfig>;

beforeAll(async () => {
  options = await extractDepcruiseOptions(resolve(ROOT, '.dependency-cruiser.cjs'));
  tsConfig = extractTSConfig(resolve(ROOT, 'tsconfig.json'));
});

async function violationsIn(fixture: string): Promise<{ rule: string; from: string; to: string }[]> {
  const { output } = await cruise(
    [`${FIXTURES}/${fixture}`],
    { ...options, baseDir: ROOT, tsConfig: { fileName: resolve(ROOT, 'tsconfig.json') }, validate: true },
    {},
    { tsConfig },
  );
  const result = output as ICruiseResult;
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('layering rules', () => {
  it('pass a tree that only imports downward', async () => {
    expect(await violationsIn('clean')).toEqual([]);
  });

  it('reject the pure policy floor importing a store', async () => {
    expect(await violationsIn('upward-import')).toEqual([
      {
        rule: 'policy-imports-nothing-with-io',
        from: `${FIXTURES}/upward-import/shared/policy/x.ts`,
        to: `${FIXTURES}/upward-import/shared/repositories/y.ts`,
      },
    ]);
  });

  it('count a type-only import as an import', async () => {
    expect(await violationsIn('type-only-upward')).toEqual([
      {
        rule: 'policy-imports-nothing-with-io',
        from: `${FIXTURES}/type-only-upward/shared/policy/x.ts`,
        to: `${FIXTURES}/type-only-upward/shared/repositories/y.ts`,
      },
    ]);
  });

  it('reject a store importing a domain service', async () => {
    expect(await violationsIn('store-imports-service')).toEqual([
      {
        rule: 'stores-import-only-the-foundation',
        from: `${FIXTURES}/store-imports-service/shared/repositories/handoffs.ts`,
        to: `${FIXTURES}/store-imports-service/shared/calendar/availability.ts`,
      },
    ]);
  });

  it('reject a cycle', async () => {
    const violations = await violationsIn('cycle');
    expect(violations.length).toBeGreaterThan(0);
    expect(new Set(violations.map((v) => v.rule))).toEqual(new Set(['no-circular']));
    expect(violations.map((v) => v.from)).toContain(`${FIXTURES}/cycle/shared/calls/a.ts`);
  });

  it('reject the call path reaching the sandbox, however indirectly', async () => {
    expect(await violationsIn('call-path')).toEqual([
      {
        rule: 'call-path-never-reaches-sandbox-or-calendar',
        from: `${FIXTURES}/call-path/functions/calls/queue-call.ts`,
        to: `${FIXTURES}/call-path/shared/sandbox/accounts.ts`,
      },
    ]);
  });
});
