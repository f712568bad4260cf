import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/validation.js';
import { agentRefs, pinAgents, repRefs } from '../../shared/policy/answering/walk.js';
import { answeringPolicyResource, answeringPolicyUpsertRequest } from '../../shared/schemas/answering-policy.js';

const REP = 'rep_01JABCDEFGHJKMNPQRSTVWXYZ0';
const REP2 = 'rep_01JABCDEFGHJKMNPQRSTVWXYZ1';
const AGT = 'agt_01JABCDEFGHJKMNPQRSTVWXYZ0';
const AGT2 = 'agt_01JABCDEFGHJKMNPQRSTVWXYZ1';

const issues = (body: unknown) => {
  const r = answeringPolicyUpsertRequest.safeParse(body, { reportInput: true });
  if (r.success) throw new Error(`expected a 422, got ${JSON.stringify(r.data)}`);
  return toValidationIssues('body', r.error.issues);
};
const locTypes = (body: unknown) => issues(body).map((i) => [i.loc, i.type]);
const parse = (body: unknown) => answeringPolicyUpsertRequest.parse(body);

const hangup = { type: 'hangup' };
const menu = (branches: Record<string, unknown[]>, extra: Record<string, unknown> = {}) => ({
  prompt: 'Press a key',
  branches,
  timeout_branch: [hangup],
  ...extra,
});
const valid = { timezone: 'America/New_York', open_steps: [menu({ '1': [{ type: 'ring_humans', rep_ids: [REP] }] })] };

/** A chain of `levels` menus, each nested in the previous one's branch 1. */
const nested = (levels: number): Record<string, unknown> => (levels === 1 ? menu({ '1': [hangup] }) : menu({ '1': [nested(levels - 1)] }));

describe('AnsweringPolicyUpsertRequest', () => {
  it('fills the defaults: a step without type is a menu; menu and ring timeouts; empty hours, holidays and closed steps', () => {
    expect(parse(valid)).toEqual({
      timezone: 'America/New_York',
      business_hours: {},
      holiday_dates: [],
      open_steps: [
        {
          type: 'menu',
          prompt: 'Press a key',
          branches: { '1': [{ type: 'ring_humans', rep_ids: [REP], timeout_seconds: 20 }] },
          timeout_seconds: 5,
          max_invalid_attempts: 2,
          timeout_branch: [{ type: 'hangup' }],
        },
      ],
      closed_steps: [],
    });
  });

  it('accepts every step type and the limits themselves', () => {
    const twelve = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '#'].map((k) => [k, Array.from({ length: 12 }, () => hangup)]));
    const body = {
      timezone: 'Europe/London',
      business_hours: {
        monday: Array.from({ length: 6 }, (_, i) => ({ start: `0${i}:00`, end: `0${i}:30` })),
        sunday: [{ start: '00:00', end: '24:00' }],
        saturday: [],
      },
      holiday_dates: Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10)),
      open_steps: [
        menu(twelve, { prompt: 'x'.repeat(1000), timeout_seconds: 30, max_invalid_attempts: 5, timeout_branch: Array.from({ length: 12 }, () => hangup) }),
        ...Array.from({ length: 59 }, () => ({ type: 'voicemail', greeting: 'g'.repeat(1000) })),
      ],
      closed_steps: [
        { type: 'ai', agent_id: AGT },
        { type: 'ring_humans', rep_ids: Array.from({ length: 10 }, (_, i) => `rep_01JABCDEFGHJKMNPQRSTVWXY${i}0`), timeout_seconds: 120 },
        { type: 'menu', ...menu({ '#': [hangup] }) },
        ...Array.from({ length: 57 }, () => hangup),
      ],
    };
    expect(answeringPolicyUpsertRequest.safeParse(body).success).toBe(true);
  });

  it('reports the documented example loc exactly', () => {
    const body = { timezone: 'UTC', open_steps: [menu({ '1': [{ type: 'ring_humans', rep_ids: ['nobody'] }] })] };
    expect(issues(body)).toEqual([
      {
        loc: ['body', 'open_steps', 0, 'branches', '1', 0, 'rep_ids', 0],
        msg: 'A rep id (rep_…)',
        type: 'string_pattern_mismatch',
        input: 'nobody',
        ctx: expect.any(Object),
      },
    ]);
  });

  it('refuses zones that are not IANA names, with a message that says so', () => {
    for (const tz of ['Mars/Olympus_Mons', '+05:00', 'EST5EDT_nonsense', 'x'.repeat(65)]) {
      const [first] = issues({ ...valid, timezone: tz });
      expect(first!.loc).toEqual(['body', 'timezone']);
    }
    expect(issues({ ...valid, timezone: 'Mars/Olympus_Mons' })[0]).toMatchObject({ type: 'timezone_invalid', msg: expect.stringContaining('IANA time zone') });
    expect(issues({ ...valid, timezone: '' })[0]).toMatchObject({ type: 'string_too_short' });
    expect(parse({ ...valid, timezone: 'Asia/Kolkata' }).timezone).toBe('Asia/Kolkata');
  });

  it('refuses weekday keys that are not lowercase English names, at the key', () => {
    expect(locTypes({ ...valid, business_hours: { Monday: [], lundi: [], monday: [] } })).toEqual([
      [['body', 'business_hours', 'Monday'], 'extra_forbidden'],
      [['body', 'business_hours', 'lundi'], 'extra_forbidden'],
    ]);
  });

  it('refuses malformed windows, empty windows and a seventh window', () => {
    const hours = {
      monday: [
        { start: '9:00', end: '17:00' },
        { start: '09:00', end: '24:01' },
        { start: '12:00', end: '12:00' },
        { start: '13:00', end: '12:00' },
        { start: '24:00', end: '24:00' },
        { start: '08:00', end: '09:00', note: 'x' },
      ],
      tuesday: Array.from({ length: 7 }, () => ({ start: '08:00', end: '09:00' })),
      wednesday: [{ start: '08:00' }],
    };
    expect(locTypes({ ...valid, business_hours: hours })).toEqual([
      [['body', 'business_hours', 'monday', 0, 'start'], 'string_pattern_mismatch'],
      [['body', 'business_hours', 'monday', 1, 'end'], 'string_pattern_mismatch'],
      [['body', 'business_hours', 'monday', 2], 'window_empty'],
      [['body', 'business_hours', 'monday', 3], 'window_empty'],
      [['body', 'business_hours', 'monday', 4, 'start'], 'string_pattern_mismatch'],
      [['body', 'business_hours', 'monday', 5, 'note'], 'extra_forbidden'],
      [['body', 'business_hours', 'tuesday'], 'too_long'],
      [['body', 'business_hours', 'wednesday', 0, 'end'], 'missing'],
    ]);
  });

  it('refuses dates that are not calendar dates, duplicates and a 61st date', () => {
    expect(locTypes({ ...valid, holiday_dates: ['2026-02-30', '2026-13-01', '2026-1-01', '2028-02-29', '2027-02-29', '2028-02-29'] })).toEqual([
      [['body', 'holiday_dates', 0], 'date_from_datetime_parsing'],
      [['body', 'holiday_dates', 1], 'date_from_datetime_parsing'],
      [['body', 'holiday_dates', 2], 'date_from_datetime_parsing'],
      [['body', 'holiday_dates', 4], 'date_from_datetime_parsing'],
      [['body', 'holiday_dates', 5], 'duplicate'],
    ]);
    const many = Array.from({ length: 61 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10));
    expect(locTypes({ ...valid, holiday_dates: many })).toEqual([[['body', 'holiday_dates'], 'too_long']]);
  });

  it('bounds the step lists', () => {
    expect(locTypes({ timezone: 'UTC', open_steps: [] })).toEqual([[['body', 'open_steps'], 'too_short']]);
    expect(locTypes({ timezone: 'UTC', open_steps: Array(61).fill(hangup), closed_steps: Array(61).fill(hangup) })).toEqual([
      [['body', 'open_steps'], 'too_long'],
      [['body', 'closed_steps'], 'too_long'],
    ]);
    expect(locTypes({ timezone: 'UTC' })).toEqual([[['body', 'open_steps'], 'missing']]);
  });

  it('checks a step without type as a menu, reporting at its own fields', () => {
    expect(
      locTypes({ timezone: 'UTC', open_steps: [{ prompt: '', branches: {}, timeout_seconds: 0, max_invalid_attempts: 6, timeout_branch: [], extra: 1 }] }),
    ).toEqual([
      [['body', 'open_steps', 0, 'prompt'], 'string_too_short'],
      [['body', 'open_steps', 0, 'branches'], 'too_short'],
      [['body', 'open_steps', 0, 'timeout_seconds'], 'greater_than_equal'],
      [['body', 'open_steps', 0, 'max_invalid_attempts'], 'less_than_equal'],
      [['body', 'open_steps', 0, 'timeout_branch'], 'too_short'],
      [['body', 'open_steps', 0, 'extra'], 'extra_forbidden'],
    ]);
    expect(locTypes({ timezone: 'UTC', open_steps: [{}] })).toEqual([
      [['body', 'open_steps', 0, 'prompt'], 'missing'],
      [['body', 'open_steps', 0, 'branches'], 'missing'],
      [['body', 'open_steps', 0, 'timeout_branch'], 'missing'],
    ]);
  });

  it('refuses branch keys that are not one DTMF key, empty and over-long branches, and a long prompt', () => {
    const body = {
      timezone: 'UTC',
      open_steps: [
        menu(
          { '10': [hangup], a: [hangup], '1': [], '2': Array(13).fill(hangup), '*': [hangup] },
          { prompt: 'p'.repeat(1001), timeout_branch: Array(13).fill(hangup) },
        ),
      ],
    };
    expect(locTypes(body)).toEqual([
      [['body', 'open_steps', 0, 'prompt'], 'string_too_long'],
      [['body', 'open_steps', 0, 'branches', '1'], 'too_short'],
      [['body', 'open_steps', 0, 'branches', '2'], 'too_long'],
      [['body', 'open_steps', 0, 'branches', '10'], 'extra_forbidden'],
      [['body', 'open_steps', 0, 'branches', 'a'], 'extra_forbidden'],
      [['body', 'open_steps', 0, 'timeout_branch'], 'too_long'],
    ]);
  });

  it('refuses an unknown step type at its type field, naming the expected tags', () => {
    const [issue] = issues({ timezone: 'UTC', open_steps: [{ type: 'transfer', to: '+1' }] });
    expect(issue).toMatchObject({ loc: ['body', 'open_steps', 0, 'type'], type: 'union_tag_invalid', input: 'transfer' });
    expect(issue!.msg).toBe(
      "Input tag 'transfer' found using 'type' does not match any of the expected tags: 'menu', 'ring_humans', 'ai', 'voicemail', 'hangup'",
    );
    expect(locTypes({ timezone: 'UTC', open_steps: ['hangup', null] })).toEqual([
      [['body', 'open_steps', 0], 'dict_type'],
      [['body', 'open_steps', 1], 'dict_type'],
    ]);
  });

  it('checks ring_humans, ai, voicemail and hangup fields', () => {
    const steps = [
      { type: 'ring_humans', rep_ids: [] },
      { type: 'ring_humans', rep_ids: [REP, REP, 'agt_x'], timeout_seconds: 4 },
      {
        type: 'ring_humans',
        rep_ids: Array.from({ length: 11 }, (_, i) => `rep_01JABCDEFGHJKMNPQRSTVWXY${i % 10}${i < 10 ? 'A' : 'B'}`),
        timeout_seconds: 121,
      },
      { type: 'ai', agent_id: 'rep_01JABCDEFGHJKMNPQRSTVWXYZ0' },
      { type: 'ai' },
      { type: 'voicemail', greeting: '' },
      { type: 'hangup', reason: 'x' },
    ];
    expect(locTypes({ timezone: 'UTC', open_steps: steps })).toEqual([
      [['body', 'open_steps', 0, 'rep_ids'], 'too_short'],
      [['body', 'open_steps', 1, 'rep_ids', 2], 'string_pattern_mismatch'],
      [['body', 'open_steps', 1, 'rep_ids', 1], 'duplicate'],
      [['body', 'open_steps', 1, 'timeout_seconds'], 'greater_than_equal'],
      [['body', 'open_steps', 2, 'rep_ids'], 'too_long'],
      [['body', 'open_steps', 2, 'timeout_seconds'], 'less_than_equal'],
      [['body', 'open_steps', 3, 'agent_id'], 'string_pattern_mismatch'],
      [['body', 'open_steps', 4, 'agent_id'], 'missing'],
      [['body', 'open_steps', 5, 'greeting'], 'string_too_short'],
      [['body', 'open_steps', 6, 'reason'], 'extra_forbidden'],
    ]);
  });

  it('allows five menu levels and refuses a sixth at the exact loc of the too-deep menu', () => {
    expect(
      answeringPolicyUpsertRequest.safeParse({ timezone: 'UTC', open_steps: [nested(5)], closed_steps: [hangup, { type: 'menu', ...nested(5) }] }).success,
    ).toBe(true);
    const deep = ['open_steps', 0, 'branches', '1', 0, 'branches', '1', 0, 'branches', '1', 0, 'branches', '1', 0, 'branches', '1', 0];
    expect(locTypes({ timezone: 'UTC', open_steps: [nested(6)] })).toEqual([[['body', ...deep], 'menu_too_deep']]);
    // Also through timeout_branch, in closed_steps, and alongside every other problem.
    const viaTimeout = { prompt: 'p', branches: { '1': [hangup] }, timeout_branch: [nested(5)] };
    const all = locTypes({ timezone: 'Nowhere/Else', open_steps: [nested(6)], closed_steps: [hangup, viaTimeout] });
    expect(all).toEqual([
      [['body', 'timezone'], 'timezone_invalid'],
      [['body', ...deep], 'menu_too_deep'],
      [['body', 'closed_steps', 1, 'timeout_branch', 0, 'branches', '1', 0, 'branches', '1', 0, 'branches', '1', 0, 'branches', '1', 0], 'menu_too_deep'],
    ]);
    const tooDeepAndBroken = nested(6);
    let inner = tooDeepAndBroken;
    for (let i = 0; i < 5; i++) inner = (inner.branches as Record<string, Record<string, unknown>[]>)['1']![0]!;
    inner.prompt = '';
    expect(locTypes({ timezone: 'UTC', open_steps: [tooDeepAndBroken] })).toEqual([
      [['body', ...deep, 'prompt'], 'string_too_short'],
      [['body', ...deep], 'menu_too_deep'],
    ]);
  });

  it('refuses unknown top-level fields and a non-object body', () => {
    expect(locTypes({ ...valid, version: 2 })).toEqual([[['body', 'version'], 'extra_forbidden']]);
    expect(locTypes([])).toEqual([[['body'], 'dict_type']]);
  });

  it('refuses a document too large to store as one item', () => {
    const big = {
      timezone: 'UTC',
      open_steps: Array.from({ length: 60 }, () =>
        menu(Object.fromEntries(['1', '2', '3', '4', '5', '6'].map((k) => [k, Array(12).fill({ type: 'voicemail', greeting: 'g'.repeat(1000) })])), {
          prompt: 'p'.repeat(1000),
        }),
      ),
    };
    expect(locTypes(big)).toEqual([[['body'], 'json_too_large']]);
  });
});

describe('walking a policy', () => {
  const body = parse({
    timezone: 'UTC',
    open_steps: [
      menu(
        { '1': [{ type: 'ai', agent_id: AGT }], '#': [{ type: 'ring_humans', rep_ids: [REP, REP2] }] },
        { timeout_branch: [{ type: 'ai', agent_id: AGT2 }] },
      ),
    ],
    closed_steps: [
      { type: 'ring_humans', rep_ids: [REP2] },
      { type: 'ai', agent_id: AGT },
    ],
  });

  it('finds every agent and rep reference with its path, in document order', () => {
    expect(agentRefs(body)).toEqual([
      { agent_id: AGT, path: ['open_steps', 0, 'branches', '1', 0, 'agent_id'] },
      { agent_id: AGT2, path: ['open_steps', 0, 'timeout_branch', 0, 'agent_id'] },
      { agent_id: AGT, path: ['closed_steps', 1, 'agent_id'] },
    ]);
    expect(repRefs(body)).toEqual([
      { rep_id: REP, path: ['open_steps', 0, 'branches', '#', 0, 'rep_ids', 0] },
      { rep_id: REP2, path: ['open_steps', 0, 'branches', '#', 0, 'rep_ids', 1] },
      { rep_id: REP2, path: ['closed_steps', 0, 'rep_ids', 0] },
    ]);
  });

  it('pins each ai step to its agent version, giving the stored form the response schema describes', () => {
    const pins = new Map([
      [AGT, { agent_version_id: 'agv_1', agent_version: 3 }],
      [AGT2, { agent_version_id: 'agv_2', agent_version: 1 }],
    ]);
    const stored = pinAgents(body, pins);
    expect(stored.closed_steps[1]).toEqual({ type: 'ai', agent_id: AGT, agent_version_id: 'agv_1', agent_version: 3 });
    expect(agentRefs(stored).map((r) => r.agent_id)).toEqual([AGT, AGT2, AGT]);
    const resource = { id: 'anp_1', phone_number_id: 'pn_1', ...stored, version: 1, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' };
    expect(answeringPolicyResource.parse(resource)).toEqual(resource);
    expect(() => pinAgents(body, new Map([[AGT, pins.get(AGT)!]]))).toThrow(/no pinned version/);
    expect(answeringPolicyResource.safeParse({ ...resource, open_steps: [{ type: 'ai', agent_id: AGT }] }).success).toBe(false);
  });
});
