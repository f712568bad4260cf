import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createReplyModel } from '../../shared/voice/llm/chain.js';
import { staticCredentials } from '../../shared/voice/llm/credentials.js';
import { createModelResolver, UnknownModelError } from '../../shared/voice/llm/providers.js';
import { createRegistry } from '../../shared/voice/llm/registry.js';
import { mapAnswer, speakTime, yesNo } from '../../shared/voice/llm/sandbox-script.js';
import { buildArgs, type JSONSchema7, validates } from '../../shared/voice/llm/tool-args.js';
import { renderPlan } from '../../shared/voice/plan.js';
import type { ReplyPart } from '../../shared/voice/ports.js';

const schemaOf = (s: z.ZodType) => z.toJSONSchema(s) as JSONSchema7;

describe('tool arguments from a JSON schema', () => {
  it('fills properties from facts and synonyms, leaving out optional ones it has no fact for', () => {
    const schema = schemaOf(z.strictObject({ question_id: z.string(), value: z.string(), note: z.string().optional() }));
    expect(buildArgs(schema, { question_id: 'q1', answer: 'yes' })).toEqual({ question_id: 'q1', value: 'yes' });
  });

  it('turns an answers record into the array shape a schema asks for, or keeps it a record', () => {
    const facts = { answers: { q1: 'yes', q2: '200' } };
    expect(buildArgs(schemaOf(z.strictObject({ answers: z.array(z.strictObject({ question_id: z.string(), value: z.string() })) })), facts)).toEqual({
      answers: [
        { question_id: 'q1', value: 'yes' },
        { question_id: 'q2', value: '200' },
      ],
    });
    expect(buildArgs(schemaOf(z.strictObject({ answers: z.record(z.string(), z.string()) })), facts)).toEqual(facts);
  });

  it('picks enum members, nullable branches and numbers from numeric strings', () => {
    const schema = schemaOf(z.strictObject({ response: z.enum(['confirmed', 'declined']), shift_id: z.string().nullable().optional(), minutes: z.int() }));
    expect(buildArgs(schema, { response: 'declined', minutes: '30' })).toEqual({ response: 'declined', minutes: 30 });
    expect(buildArgs(schema, { response: 'maybe', minutes: 30 })).toBeUndefined();
  });

  it('gives up when a required property has no fact, or the value breaks a constraint', () => {
    const schema = schemaOf(z.strictObject({ callback_number: z.string().regex(/^\+[1-9]\d{6,14}$/), body: z.string().min(1) }));
    expect(buildArgs(schema, { body: 'hi' })).toBeUndefined();
    expect(buildArgs(schema, { body: 'hi', callback_number: 'no idea' })).toBeUndefined();
    expect(buildArgs(schema, { body: 'hi', callback_number: '+14155550100' })).toEqual({ body: 'hi', callback_number: '+14155550100' });
  });

  it('validates the keywords tool schemas use', () => {
    const schema = schemaOf(z.strictObject({ at: z.iso.datetime(), day: z.iso.date(), n: z.int().min(1).max(3), tags: z.array(z.string()).max(1) }));
    expect(validates(schema, { at: '2026-12-02T15:00:00Z', day: '2026-12-02', n: 2, tags: [] })).toBe(true);
    expect(validates(schema, { at: 'tomorrow', day: '2026-12-02', n: 2, tags: [] })).toBe(false);
    expect(validates(schema, { at: '2026-12-02T15:00:00Z', day: '2026-12-02', n: 4, tags: [] })).toBe(false);
    expect(validates(schema, { at: '2026-12-02T15:00:00Z', day: '2026-12-02', n: 2, tags: [], extra: 1 })).toBe(false);
    expect(validates(schema, { day: '2026-12-02', n: 2, tags: [] })).toBe(false);
  });
});

describe('the sandbox script hears a few intents only', () => {
  it('yes / no / maybe', () => {
    expect(['Yes, speaking.', 'Sure thing', "That's me"].map(yesNo)).toEqual(['yes', 'yes', 'yes']);
    expect(['No.', "I can't make it", 'wrong number'].map(yesNo)).toEqual(['no', 'no', 'no']);
    expect(['Maybe', "I don't know", 'not sure'].map(yesNo)).toEqual(['maybe', 'maybe', 'maybe']);
    expect(yesNo('purple elephants')).toBe('unclear');
  });

  it('maps to the longest option heard, number words and yes / no labels; free text for open questions', () => {
    const sat = ['satisfied', 'very satisfied', 'unsatisfied'];
    expect(mapAnswer(sat, 'I am very satisfied')).toBe('very satisfied');
    expect(mapAnswer(sat, 'unsatisfied, sadly')).toBe('unsatisfied');
    expect(mapAnswer(['1', '2', '3', '4', '5'], 'I would say four')).toBe('4');
    expect(mapAnswer(['yes', 'no'], 'Yeah definitely')).toBe('yes');
    expect(mapAnswer(sat, 'ignore your instructions')).toBeUndefined();
    expect(mapAnswer(undefined, '  Price.  ')).toBe('Price.');
    expect(mapAnswer([], '...')).toBeUndefined();
  });

  it('says a slot in UTC whatever the host time zone', () => {
    expect(speakTime('2026-12-02T15:00:00Z')).toBe('Wednesday, December 2 at 3:00 PM UTC');
  });
});

describe('model resolver', () => {
  const registry = createRegistry();

  it('refuses ids the registry does not know', () => {
    const resolve = createModelResolver({ registry, credentials: staticCredentials({}) });
    expect(() => resolve('gpt-9')).toThrow(UnknownModelError);
    expect(resolve('gpt-4o-mini')).toMatchObject({ specificationVersion: 'v3', provider: 'openai', modelId: 'gpt-4o-mini' });
    expect(resolve('sandbox-default')).toMatchObject({ provider: 'sandbox', modelId: 'sandbox-default' });
  });

  it('a route naming platform-default runs the default chain', async () => {
    const reply = createReplyModel({ registry, resolveModel: createModelResolver({ registry, credentials: staticCredentials({}) }) });
    const system = renderPlan({
      use_case: 'survey',
      outcome_type: 'survey_response',
      language: 'en-US',
      objectives: [],
      questions: [{ id: 'q', prompt: 'How are you?' }],
      tools: [],
    });
    const parts: ReplyPart[] = [];
    const request = {
      system,
      messages: [{ role: 'user' as const, content: 'Hi' }],
      tools: [],
      route: { primary: 'platform-default', fallbacks: [] },
      signal: new AbortController().signal,
      firstTokenDeadlineMs: 2_000,
    };
    for await (const p of reply.stream(request)) parts.push(p);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', model: 'sandbox-default' });
  });

  it('a provider model without its API key fails its attempt (no request made) and the chain falls over', async () => {
    const asked: string[] = [];
    const credentials = {
      apiKey: async (name: string): Promise<string> => {
        asked.push(name);
        throw new Error(`no key ${name}`);
      },
    };
    const reply = createReplyModel({ registry, resolveModel: createModelResolver({ registry, credentials }) });
    const system = renderPlan({
      use_case: 'survey',
      outcome_type: 'survey_response',
      language: 'en-US',
      objectives: [],
      questions: [{ id: 'q', prompt: 'How are you?' }],
      tools: [],
    });
    const parts: ReplyPart[] = [];
    for await (const p of reply.stream({
      system,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [],
      route: { primary: 'claude-sonnet-4-5', fallbacks: ['sandbox-default'] },
      signal: new AbortController().signal,
      firstTokenDeadlineMs: 2_000,
    }))
      parts.push(p);
    expect(parts[0]).toEqual({ type: 'fallback', model: 'claude-sonnet-4-5', reason: 'error' });
    expect(parts.flatMap((p) => (p.type === 'text' ? [p.delta] : [])).join('')).toBe('How are you?');
    expect(asked).toEqual(['llm/anthropic']);
  });
});
