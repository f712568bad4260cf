/**
 * The README's walkthrough as data: its ```bash walkthrough blocks in order, each with the
 * ```json walkthrough-output block that follows it (if any), and the comparison of a shown
 * output with what the block printed. Shown outputs are compared by their key fields:
 * "…" stands for any value, a string ending in "…" for any string with that start, an array's
 * trailing "…" for any further elements; every other value shown must be there, equal.
 */
export interface WalkthroughStep {
  readonly script: string;
  /** The shown output (parsed), compared with the last JSON line the block printed. */
  readonly expected?: unknown;
  /** Line in the README where the block starts, for failure messages. */
  readonly line: number;
}

const FENCE = /^```(bash walkthrough|json walkthrough-output)\n([\s\S]*?)^```$/gm;

export function walkthroughSteps(readme: string): WalkthroughStep[] {
  const steps: { script: string; expected?: unknown; line: number }[] = [];
  for (const m of readme.matchAll(FENCE)) {
    const line = readme.slice(0, m.index).split('\n').length;
    if (m[1] === 'bash walkthrough') {
      steps.push({ script: m[2]!, line });
      continue;
    }
    const last = steps.at(-1);
    if (!last || last.expected !== undefined) throw new Error(`README line ${line}: a walkthrough-output block must follow a bash walkthrough block`);
    last.expected = JSON.parse(m[2]!);
  }
  return steps;
}

/** The last line of `stdout` that is JSON. */
export function lastJsonLine(stdout: string): unknown {
  const lines = stdout.trim().split('\n').reverse();
  for (const l of lines) {
    try {
      return JSON.parse(l);
    } catch {
      // not JSON: an earlier line may be
    }
  }
  return undefined;
}

/** Where `actual` departs from `expected` (empty = it matches). */
export function mismatches(expected: unknown, actual: unknown, path = '$'): string[] {
  if (expected === '…') return actual === undefined ? [`${path}: missing`] : [];
  if (typeof expected === 'string' && expected.endsWith('…')) {
    return typeof actual === 'string' && actual.startsWith(expected.slice(0, -1))
      ? []
      : [`${path}: ${JSON.stringify(actual)} does not start with ${JSON.stringify(expected.slice(0, -1))}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    const open = expected.at(-1) === '…';
    const items = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < items.length : actual.length !== items.length)
      return [`${path}: ${actual.length} items, the README shows ${items.length}${open ? ' or more' : ''}`];
    return items.flatMap((e, i) => mismatches(e, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => mismatches(v, (actual as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return Object.is(expected, actual) ? [] : [`${path}: ${JSON.stringify(actual)}, the README shows ${JSON.stringify(expected)}`];
}
