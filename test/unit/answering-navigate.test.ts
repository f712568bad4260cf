import { describe, expect, it } from 'vitest';
import type { PolicyDocument, PolicyStep } from '../../shared/policy/answering/model.js';
import { navigate, pressKey, simulate } from '../../shared/policy/answering/navigate.js';
import { decodeStepPath, encodeStepPath, nextStepPath, resolveStep } from '../../shared/policy/answering/step-path.js';

const hangup: PolicyStep = { type: 'hangup' };
const ring = (...rep_ids: string[]): PolicyStep => ({ type: 'ring_humans', rep_ids, timeout_seconds: 20 });
const ai = (n: number): PolicyStep => ({ type: 'ai', agent_id: `agt_${n}`, agent_version_id: `agv_${n}`, agent_version: n });
const voicemail: PolicyStep = { type: 'voicemail', greeting: 'Leave a message' };
const menu = (branches: Record<string, PolicyStep[]>, timeout_branch: PolicyStep[], max_invalid_attempts = 2): PolicyStep => ({
  type: 'menu',
  prompt: 'Choose',
  branches,
  timeout_seconds: 5,
  max_invalid_attempts,
  timeout_branch,
});

// open_steps.0: main menu — 1: sales ring then voicemail; 2: a sub-menu; *: ai; timeout: ai 9.
const policy: PolicyDocument<PolicyStep> = {
  timezone: 'America/New_York',
  business_hours: { monday: [{ start: '09:00', end: '17:00' }] },
  holiday_dates: [],
  open_steps: [
    menu(
      {
        '1': [ring('rep_a', 'rep_b'), voicemail],
        '2': [menu({ '#': [ai(2)], '0': [ring('rep_c')] }, [hangup], 3)],
        '*': [ai(1)],
      },
      [ai(9)],
    ),
    voicemail,
  ],
  closed_steps: [voicemail],
};

describe('step paths', () => {
  const cases: [string, (string | number)[]][] = [
    ['open.0', ['open_steps', 0]],
    ['closed.12', ['closed_steps', 12]],
    ['open.0.b1.0', ['open_steps', 0, 'branches', '1', 0]],
    ['open.0.b2.0.bhash.0', ['open_steps', 0, 'branches', '2', 0, 'branches', '#', 0]],
    ['open.0.bstar.3.t.11', ['open_steps', 0, 'branches', '*', 3, 'timeout_branch', 11]],
  ];
  it.each(cases)('%s ↔ %j', (encoded, path) => {
    expect(encodeStepPath(path)).toBe(encoded);
    expect(decodeStepPath(encoded)).toEqual(path);
    expect(encodeURIComponent(encoded)).toBe(encoded);
  });

  it('refuses strings that are not step paths', () => {
    for (const s of [
      '',
      'open',
      'open.x',
      'open.01',
      'middle.0',
      'open.0.b',
      'open.0.bx.0',
      'open.0.b12.0',
      'open.0.t',
      'open.0.q.1',
      'open.1000',
      `open.0${'.t.0'.repeat(60)}`,
    ]) {
      expect(decodeStepPath(s)).toBeNull();
    }
    expect(() => encodeStepPath(['open_steps', 0, 'branches', 'x', 0])).toThrow();
    expect(() => encodeStepPath(['body', 0])).toThrow();
  });

  it('resolves a path to its step, or to nothing', () => {
    expect(resolveStep(policy, ['open_steps', 0, 'branches', '2', 0, 'branches', '#', 0])).toEqual(ai(2));
    expect(resolveStep(policy, ['open_steps', 0, 'timeout_branch', 0])).toEqual(ai(9));
    expect(resolveStep(policy, ['closed_steps', 0])).toEqual(voicemail);
    expect(resolveStep(policy, ['open_steps', 0, 'branches', '9', 0])).toBeUndefined();
    expect(resolveStep(policy, ['open_steps', 1, 'branches', '1', 0])).toBeUndefined(); // voicemail has no branches
    expect(resolveStep(policy, ['open_steps', 5])).toBeUndefined();
    expect(resolveStep({ ...policy, closed_steps: undefined }, ['closed_steps', 0])).toBeUndefined();
  });

  it('continues after a step: its sibling, else after the enclosing menu, else nowhere', () => {
    expect(nextStepPath(policy, ['open_steps', 0, 'branches', '1', 0])).toEqual(['open_steps', 0, 'branches', '1', 1]);
    expect(nextStepPath(policy, ['open_steps', 0, 'branches', '1', 1])).toEqual(['open_steps', 1]);
    expect(nextStepPath(policy, ['open_steps', 0, 'branches', '2', 0, 'branches', '0', 0])).toEqual(['open_steps', 1]);
    expect(nextStepPath(policy, ['open_steps', 0, 'timeout_branch', 0])).toEqual(['open_steps', 1]);
    expect(nextStepPath(policy, ['open_steps', 1])).toBeNull();
    expect(nextStepPath(policy, ['closed_steps', 0])).toBeNull();
  });
});

describe('a key press at a menu', () => {
  const m = policy.open_steps[0] as Extract<PolicyStep, { type: 'menu' }>;
  const at = ['open_steps', 0];
  it('takes a branch, counts invalid presses up to the budget, and times out', () => {
    expect(pressKey(m, at, '1', 0)).toEqual({ outcome: 'branch', key: '1', next: ['open_steps', 0, 'branches', '1', 0] });
    expect(pressKey(m, at, '*', 1)).toMatchObject({ outcome: 'branch', key: '*' });
    expect(pressKey(m, at, '7', 0)).toEqual({ outcome: 'invalid', invalid_attempts: 1, next: at });
    expect(pressKey(m, at, '7', 1)).toEqual({ outcome: 'invalid_exhausted', invalid_attempts: 2, next: ['open_steps', 0, 'timeout_branch', 0] });
    expect(pressKey(m, at, '12', 0)).toMatchObject({ outcome: 'invalid' });
    expect(pressKey(m, at, null, 1)).toEqual({ outcome: 'timeout', next: ['open_steps', 0, 'timeout_branch', 0] });
    expect(pressKey(m, at, '', 0)).toMatchObject({ outcome: 'timeout' });
  });
});

describe('navigating a step list', () => {
  it('follows a branch to a ring, reporting where an unanswered ring continues', () => {
    const r = navigate(policy, 'open', ['1']);
    expect(r.trace).toEqual([
      { step_path: 'open.0', path: ['open_steps', 0], type: 'menu', digit: '1', outcome: 'branch', invalid_attempts: 0 },
      {
        step_path: 'open.0.b1.0',
        path: ['open_steps', 0, 'branches', '1', 0],
        type: 'ring_humans',
        rep_ids: ['rep_a', 'rep_b'],
        timeout_seconds: 20,
        outcome: 'answered',
      },
    ]);
    expect(r.terminal).toEqual({ type: 'ring_humans', step_path: 'open.0.b1.0', step: ring('rep_a', 'rep_b'), on_no_answer: 'open.0.b1.1' });
    expect(r.unused_digits).toEqual([]);
  });

  it('follows the no-answer path when rings go unanswered', () => {
    const r = navigate(policy, 'open', ['1'], { ringsAnswered: false });
    expect(r.trace.map((t) => [t.step_path, t.type])).toEqual([
      ['open.0', 'menu'],
      ['open.0.b1.0', 'ring_humans'],
      ['open.0.b1.1', 'voicemail'],
    ]);
    expect(r.terminal).toMatchObject({ type: 'voicemail', step_path: 'open.0.b1.1' });
    const sub = navigate(policy, 'open', ['2', '0'], { ringsAnswered: false });
    expect(sub.terminal).toMatchObject({ type: 'voicemail', step_path: 'open.1' });
  });

  it('goes through nested menus to a pinned ai step', () => {
    const r = navigate(policy, 'open', ['2', '#', '5']);
    expect(r.trace.map((t) => ('digit' in t ? [t.step_path, t.digit, t.outcome] : [t.step_path, t.type]))).toEqual([
      ['open.0', '2', 'branch'],
      ['open.0.b2.0', '#', 'branch'],
      ['open.0.b2.0.bhash.0', 'ai'],
    ]);
    expect(r.terminal).toEqual({ type: 'ai', step_path: 'open.0.b2.0.bhash.0', step: ai(2) });
    expect(r.unused_digits).toEqual(['5']);
  });

  it('replays the prompt on invalid keys and sends the caller to timeout_branch once the budget is spent', () => {
    const r = navigate(policy, 'open', ['9', '8', '1']);
    expect(r.trace.map((t) => (t.type === 'menu' ? [t.digit, t.outcome, t.invalid_attempts] : t.type))).toEqual([
      ['9', 'invalid', 1],
      ['8', 'invalid_exhausted', 2],
      'ai',
    ]);
    expect(r.terminal).toMatchObject({ type: 'ai', step_path: 'open.0.t.0', step: ai(9) });
    expect(r.unused_digits).toEqual(['1']);
    // One invalid press within the budget, then a valid one.
    expect(navigate(policy, 'open', ['9', '*']).terminal).toMatchObject({ step_path: 'open.0.bstar.0' });
    // The sub-menu allows three.
    const sub = navigate(policy, 'open', ['2', '1', '1', '1']);
    expect(sub.trace.at(-2)).toMatchObject({ step_path: 'open.0.b2.0', outcome: 'invalid_exhausted', invalid_attempts: 3 });
    expect(sub.terminal).toMatchObject({ type: 'hangup', step_path: 'open.0.b2.0.t.0' });
  });

  it('treats a missing key press as a timeout', () => {
    const r = navigate(policy, 'open', []);
    expect(r.trace[0]).toEqual({ step_path: 'open.0', path: ['open_steps', 0], type: 'menu', digit: null, outcome: 'timeout', invalid_attempts: 0 });
    expect(r.terminal).toMatchObject({ type: 'ai', step_path: 'open.0.t.0' });
  });

  it('ends the call when a list is empty or runs out', () => {
    expect(navigate({ ...policy, closed_steps: [] }, 'closed', ['1'])).toEqual({ trace: [], terminal: { type: 'end', step_path: null }, unused_digits: ['1'] });
    const onlyRing: PolicyDocument<PolicyStep> = { ...policy, open_steps: [ring('rep_a')] };
    expect(navigate(onlyRing, 'open', [], { ringsAnswered: false }).terminal).toEqual({ type: 'end', step_path: null });
  });
});

describe('simulating a call at an instant', () => {
  it('picks the list from the schedule, then navigates it', () => {
    const open = simulate(policy, new Date('2026-03-09T14:00:00Z'), ['*']); // Monday 10:00 EDT
    expect(open.schedule).toMatchObject({ list: 'open', reason: 'within_hours' });
    expect(open.terminal).toMatchObject({ type: 'ai', step: ai(1) });
    const closed = simulate(policy, new Date('2026-03-09T22:00:00Z'), ['*']); // Monday 18:00 EDT
    expect(closed.schedule).toMatchObject({ list: 'closed', reason: 'outside_hours' });
    expect(closed.terminal).toMatchObject({ type: 'voicemail', step_path: 'closed.0' });
    expect(closed.unused_digits).toEqual(['*']);
    expect(JSON.parse(JSON.stringify(open))).toEqual(open);
  });
});
