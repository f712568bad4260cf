/**
 * National DNC load: a 100,000-number area-code file through the operator action (read,
 * check every line, write the generation, flip, remove the old one), first load and a
 * reload, then dncFacts latency and DynamoDB calls per lookup.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDncAction } from '../../shared/admin/dnc.js';
import { db } from '../../shared/db/client.js';
import { dncFacts } from '../../shared/repositories/dnc-facts.js';
import { fmt, percentile } from './stats.js';

export interface DncFigures {
  numbers: number;
  exchanges: number;
  firstLoadSeconds: number;
  reloadSeconds: number;
  factsP50: number;
  factsP99: number;
  dynamoCallsPerLookup: number;
}

/** `count` distinct random numbers of area code 415 spread over its 800 possible exchanges (200-999). */
function numbersFile(dir: string, count: number, name: string): string {
  const seen = new Set<string>();
  while (seen.size < count) {
    const exchange = 200 + Math.floor(Math.random() * 800);
    const line = Math.floor(Math.random() * 10_000);
    seen.add(`415${exchange}${String(line).padStart(4, '0')}`);
  }
  const file = join(dir, `${name}.txt`);
  writeFileSync(file, `${[...seen].join('\n')}\n`);
  return file;
}

export async function measureDncLoad(count = 100_000): Promise<DncFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dnc-'));
  try {
    const first = numbersFile(dir, count, 'first');
    const second = numbersFile(dir, count, 'second');
    let started = performance.now();
    const loaded = await loadDncAction({ areaCode: '415', asOf: '2026-11-01', file: first });
    const firstLoadSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await loadDncAction({ areaCode: '415', asOf: '2026-11-02', file: second });
    const reloadSeconds = (performance.now() - started) / 1000;

    let calls = 0;
    db().middlewareStack.add(
      (next) => async (args) => {
        calls++;
        return next(args);
      },
      { step: 'initialize', name: 'benchDncCallCounter' },
    );
    const times: number[] = [];
    const lookups = 500;
    for (let i = 0; i < lookups; i++) {
      const s = performance.now();
      await dncFacts('415', `+1415${200 + (i % 800)}${String((i * 37) % 10_000).padStart(4, '0')}`);
      times.push(performance.now() - s);
    }
    db().middlewareStack.remove('benchDncCallCounter');
    return {
      numbers: loaded.numbers,
      exchanges: 800,
      firstLoadSeconds,
      reloadSeconds,
      factsP50: percentile(times, 50),
      factsP99: percentile(times, 99),
      dynamoCallsPerLookup: calls / lookups,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printDncLoad(f: DncFigures): void {
  console.log(`\nNational DNC snapshot (${f.numbers.toLocaleString('en-US')} numbers, ${f.exchanges} exchanges)`);
  console.log(`  first load  ${fmt(f.firstLoadSeconds, 2)} s   (read + check every line + write + flip)`);
  console.log(`  reload      ${fmt(f.reloadSeconds, 2)} s   (the same, plus removing the replaced generation)`);
  console.log(`  dncFacts    p50 ${fmt(f.factsP50, 2)} ms  p99 ${fmt(f.factsP99, 2)} ms  ${fmt(f.dynamoCallsPerLookup, 2)} DynamoDB calls/lookup`);
}
