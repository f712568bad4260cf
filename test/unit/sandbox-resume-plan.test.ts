import { afterEach, describe, expect, it } from 'vitest';
import { unfinishedBounds } from '../../shared/calls/unfinished-calls.js';
import { SCENARIOS } from '../../shared/sandbox/scenarios.js';
import { callTimeline, longestSandboxCallMs, RELAY_HOLD_MS, resumedPlan } from '../../shared/sandbox/timeline.js';

const plan = (dues: number[]) => dues.map((due_at, i) => ({ step: i, due_at }));

describe('a sandbox timeline picked up after a restart (resumedPlan)', () => {
  it('keeps played steps, keeps past-due steps past due, and brings a far-off step (a held final callback) to one step per remaining step from now', () => {
    const now = 1_000_000;
    const resumed = resumedPlan(plan([0, 100, now - 50, now + 120_000]), 2, now, 200);
    expect(resumed.map((s) => s.due_at)).toEqual([0, 100, now - 50, now + 400]);
  });

  it('leaves a step already due sooner than its cap alone', () => {
    const now = 5_000;
    expect(resumedPlan(plan([now + 100, now + 300]), 0, now, 500).map((s) => s.due_at)).toEqual([now + 100, now + 300]);
  });
});

describe('how long a call may stay unfinished, per carrier', () => {
  afterEach(() => {
    delete process.env.CALL_UNFINISHED_AFTER_MS;
    delete process.env.CALL_UNFINISHED_GIVE_UP_MS;
    delete process.env.SANDBOX_STEP_MS;
  });

  it('the sandbox carrier: no scenario plays longer than its longest call, which is minutes, not a day', () => {
    const stepMs = 500;
    for (const scenario of SCENARIOS) {
      const last = callTimeline(scenario, 'Enable').at(-1)!;
      expect(last.at * stepMs + RELAY_HOLD_MS, scenario.id).toBeLessThanOrEqual(longestSandboxCallMs(stepMs));
    }
    expect(longestSandboxCallMs(stepMs)).toBeLessThan(5 * 60_000);
  });

  it('Twilio: asked after its 4 h time limit plus slack and closed soon after; the sandbox: after its longest call plus slack', () => {
    process.env.SANDBOX_STEP_MS = '500';
    const twilio = unfinishedBounds('twilio');
    expect(twilio.askAfterMs).toBeGreaterThan(4 * 3_600_000);
    expect(twilio.giveUpAfterMs).toBeGreaterThan(twilio.askAfterMs);
    expect(twilio.giveUpAfterMs).toBeLessThanOrEqual(5 * 3_600_000);
    const sandbox = unfinishedBounds('mock');
    expect(sandbox.askAfterMs).toBeGreaterThan(longestSandboxCallMs(500));
    expect(sandbox.giveUpAfterMs).toBeGreaterThan(sandbox.askAfterMs);
    expect(sandbox.giveUpAfterMs).toBeLessThan(10 * 60_000);
  });

  it('the environment overrides both carriers', () => {
    process.env.CALL_UNFINISHED_AFTER_MS = '1000';
    process.env.CALL_UNFINISHED_GIVE_UP_MS = '2000';
    expect(unfinishedBounds('twilio')).toEqual({ askAfterMs: 1000, giveUpAfterMs: 2000 });
    expect(unfinishedBounds('mock')).toEqual({ askAfterMs: 1000, giveUpAfterMs: 2000 });
  });
});
