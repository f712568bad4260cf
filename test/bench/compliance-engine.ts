/**
 * The compliance engine alone (pure, no I/O): evaluations per second for an allowed call,
 * a deferred one (which also searches next_permitted_at) and a blocked one.
 */
import { evaluate } from '../../shared/policy/compliance/evaluate.js';
import type { ComplianceInputs } from '../../shared/policy/compliance/types.js';
import { inputs, marketing, SUBJECT } from '../support/compliance-fixtures.js';
import { fmt } from './stats.js';

export interface EngineFigures {
  scenario: string;
  evaluations: number;
  perSecond: number;
  microsEach: number;
}

const SCENARIOS: Array<{ scenario: string; inputs: ComplianceInputs; at: Date }> = [
  { scenario: 'allow (NY marketing)', inputs: inputs(), at: new Date('2026-11-23T15:00:00Z') },
  {
    scenario: 'defer (AL+FL, 2 zones, window, cap)',
    inputs: inputs({
      phone: '+12055550123',
      timezone: 'America/New_York',
      jurisdictions: ['US-FL'],
      profile: { ...marketing, calling_window: { start: '10:00', end: '17:00' } },
      attempts: ['2026-11-22T16:30:00Z', '2026-11-22T23:00:00Z', '2026-11-23T01:00:00Z'].map((placed_at) => ({ placed_at, subject: SUBJECT })),
    }),
    at: new Date('2026-11-23T02:30:00Z'),
  },
  { scenario: 'block (suppressed, no consent)', inputs: inputs({ suppressed: true, consents: [] }), at: new Date('2026-11-23T15:00:00Z') },
];

export function measureEngine(seconds = 1): EngineFigures[] {
  return SCENARIOS.map(({ scenario, inputs: facts, at }) => {
    for (let i = 0; i < 200; i++) evaluate(facts, at); // warm-up: JIT and zone formatters
    let evaluations = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    while (performance.now() < deadline) {
      for (let i = 0; i < 50; i++) evaluate(facts, at);
      evaluations += 50;
    }
    const elapsed = (performance.now() - started) / 1000;
    return { scenario, evaluations, perSecond: evaluations / elapsed, microsEach: (elapsed * 1e6) / evaluations };
  });
}

export function printEngine(figures: EngineFigures[]): void {
  console.log('\nCompliance engine (pure evaluate, one core)');
  for (const f of figures) console.log(`  ${f.scenario.padEnd(38)} ${fmt(f.perSecond, 0).padStart(9)} evaluations/s  (${fmt(f.microsEach, 1)} µs each)`);
}
