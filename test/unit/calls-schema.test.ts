import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/validation.js';
import { CALL_INPUT_LIMITS, isReservedContextKey, preflightCallRequest, queueCallRequest, RESERVED_CONTEXT_PREFIXES } from '../../shared/schemas/calls.js';

const AGT = 'agt_01JABCDEFGHJKMNPQRSTVWXYZ0';
const CON = 'con_01JABCDEFGHJKMNPQRSTVWXYZ0';
const base = { agent_id: AGT, contact_id: CON };

const locTypes = (body: unknown, schema: typeof queueCallRequest | typeof preflightCallRequest = queueCallRequest) => {
  const r = schema.safeParse(body, { reportInput: true });
  if (r.success) throw new Error(`expected a 422, got ${JSON.stringify(r.data)}`);
  return toValidationIssues('body', r.error.issues)
    .map((i) => `${i.loc.join('.')}:${i.type}`)
    .sort();
};
const q = (id: string, over: Record<string, unknown> = {}) => ({ id, prompt: `Question ${id}?`, ...over });

describe('QueueCallRequest', () => {
  it('accepts the full shape and keeps it as sent', () => {
    const body = {
      ...base,
      questions: [q('csat', { scoring: { scale: 'csat', points: 5, mapping: { 'very satisfied': 5, 'not at all': 1 }, weight: 0.5 } }), q('free_text')],
      context: { plan: 'gold', renewal_date: '2026-12-01' },
    };
    expect(queueCallRequest.parse(body)).toEqual(body);
    expect(queueCallRequest.parse(base)).toEqual(base);
  });

  it('is closed at every level: unknown keys → extra_forbidden; no raw number, caller id or route', () => {
    expect(locTypes({ ...base, to: '+12125550123', from: '+1', at: '2026-01-01T00:00:00Z' })).toEqual([
      'body.at:extra_forbidden',
      'body.from:extra_forbidden',
      'body.to:extra_forbidden',
    ]);
    expect(locTypes({ ...base, questions: [q('a', { kind: 'x' })] })).toEqual(['body.questions.0.kind:extra_forbidden']);
    expect(locTypes({ ...base, questions: [q('a', { scoring: { scale: 'csat', points: 5, buckets: 3 } })] })).toEqual([
      'body.questions.0.scoring.buckets:extra_forbidden',
    ]);
    expect(locTypes({})).toEqual(['body.agent_id:missing', 'body.contact_id:missing']);
  });

  it('refuses duplicate question ids, naming the repeat', () => {
    expect(locTypes({ ...base, questions: [q('a'), q('b'), q('a'), q('a')] })).toEqual(['body.questions.2.id:duplicate', 'body.questions.3.id:duplicate']);
  });

  it('scoring: a scale never carries its points in the name; mapping values within the points', () => {
    expect(locTypes({ ...base, questions: [q('a', { scoring: { scale: 'csat5', points: 5 } })] })).toEqual([
      'body.questions.0.scoring.scale:string_pattern_mismatch',
    ]);
    expect(locTypes({ ...base, questions: [q('a', { scoring: { scale: 'csat', points: 5, mapping: { great: 6, ok: 3 } } })] })).toEqual([
      'body.questions.0.scoring.mapping.great:less_than_equal',
    ]);
    expect(locTypes({ ...base, questions: [q('a', { scoring: { scale: 'csat', points: 5, mapping: { ok: 2.5 } } })] })).toEqual([
      'body.questions.0.scoring.mapping.ok:int_type',
    ]);
    expect(locTypes({ ...base, questions: [q('a', { scoring: { scale: 'csat' } })] })).toEqual(['body.questions.0.scoring.points:missing']);
  });

  it(`caps: ${CALL_INPUT_LIMITS.questions} questions, prompts ${CALL_INPUT_LIMITS.promptChars} chars, ${CALL_INPUT_LIMITS.contextKeys} context keys, values ${CALL_INPUT_LIMITS.contextValueChars} chars, 16 KB in all`, () => {
    const questions = (n: number) => Array.from({ length: n }, (_, i) => q(`q${i}`));
    expect(queueCallRequest.safeParse({ ...base, questions: questions(20) }).success).toBe(true);
    expect(locTypes({ ...base, questions: questions(21) })).toEqual(['body.questions:too_long']);
    expect(queueCallRequest.safeParse({ ...base, questions: [q('a', { prompt: 'x'.repeat(500) })] }).success).toBe(true);
    expect(locTypes({ ...base, questions: [q('a', { prompt: 'x'.repeat(501) })] })).toEqual(['body.questions.0.prompt:string_too_long']);
    const context = (n: number, len = 1) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'.repeat(len)]));
    expect(queueCallRequest.safeParse({ ...base, context: context(50) }).success).toBe(true);
    expect(locTypes({ ...base, context: context(51) })).toEqual(['body.context:too_long']);
    expect(locTypes({ ...base, context: { note: 'v'.repeat(1001) } })).toEqual(['body.context.note:string_too_long']);
    expect(locTypes({ ...base, context: { note: 1 } })).toEqual(['body.context.note:string_type']);
    // Each part within its cap, together over 16 KB.
    expect(queueCallRequest.safeParse({ ...base, context: context(15, 1000) }).success).toBe(true);
    expect(locTypes({ ...base, context: context(17, 1000) })).toEqual(['body:json_too_large']);
    expect(locTypes({ ...base, questions: Array.from({ length: 20 }, (_, i) => q(`q${i}`, { prompt: 'p'.repeat(500) })), context: context(10, 1000) })).toEqual(
      ['body:json_too_large'],
    );
  });

  it('reserved context keys (what the runtime fills itself) → 422 at body.context.<key>', () => {
    expect(RESERVED_CONTEXT_PREFIXES).toEqual(expect.arrayContaining(['contact', 'agent', 'call', 'caller', 'destination']));
    for (const key of [
      'contact',
      'contact_first_name',
      'Agent_Name',
      'call_id',
      'caller_number',
      'destination_e164',
      'tenant_name',
      'platform.version',
      'CALL',
    ]) {
      expect(isReservedContextKey(key), key).toBe(true);
      expect(locTypes({ ...base, context: { [key]: 'x', plan: 'gold' } })).toEqual([`body.context.${key}:context_key_reserved`]);
    }
    for (const key of ['callback_time', 'contacted_before', 'agenda', 'plan', 'first_name', 'destinations_visited']) {
      expect(isReservedContextKey(key), key).toBe(false);
    }
  });
});

describe('PreflightCallRequest', () => {
  it('is the queue-call body plus an optional `at` (RFC 3339 date-time with an offset)', () => {
    expect(preflightCallRequest.parse({ ...base, at: '2026-11-18T07:59:00-05:00' })).toEqual({ ...base, at: '2026-11-18T07:59:00-05:00' });
    expect(preflightCallRequest.parse(base)).toEqual(base);
    expect(locTypes({ ...base, at: '2026-11-18 07:59' }, preflightCallRequest)).toEqual(['body.at:datetime_from_date_parsing']);
    expect(locTypes({ ...base, at: '2026-11-18T07:59:00' }, preflightCallRequest)).toEqual(['body.at:datetime_from_date_parsing']);
    expect(locTypes({ ...base, questions: [q('a'), q('a')], context: { caller_id: 'x' }, extra: 1 }, preflightCallRequest)).toEqual([
      'body.context.caller_id:context_key_reserved',
      'body.extra:extra_forbidden',
      'body.questions.1.id:duplicate',
    ]);
  });
});
