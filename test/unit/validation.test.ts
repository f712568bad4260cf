import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toValidationIssues } from '../../shared/http/validation.js';

const issuesOf = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input, { reportInput: true });
  if (r.success) throw new Error('expected failure');
  return toValidationIssues('body', r.error.issues);
};

describe('zod issues → Pydantic-style 422 entries', () => {
  const schema = z.strictObject({
    name: z.string().min(1).max(5),
    phone: z.string().regex(/^\+[1-9]\d{6,14}$/),
    kind: z.enum(['a', 'b', 'c']),
    tags: z.array(z.string()).max(2),
    when: z.iso.datetime({ offset: true }),
    scope: z
      .record(z.string(), z.unknown())
      .refine((o) => Object.keys(o).length >= 1, { message: 'scope needs at least 1 property', params: { type: 'too_short' } }),
    n: z.int().min(1),
  });

  it('reports every problem of a request together, each with loc, msg and type', () => {
    const issues = issuesOf(schema, { name: '', phone: '555', kind: 'z', tags: ['1', '2', '3'], when: 'yesterday', scope: {}, n: 0, extra: 1 });
    const byLoc = Object.fromEntries(issues.map((i) => [i.loc.join('.'), i.type]));
    expect(byLoc).toEqual({
      'body.name': 'string_too_short',
      'body.phone': 'string_pattern_mismatch',
      'body.kind': 'enum',
      'body.tags': 'too_long',
      'body.when': 'datetime_from_date_parsing',
      'body.scope': 'too_short',
      'body.n': 'greater_than_equal',
      'body.extra': 'extra_forbidden',
    });
    for (const i of issues) expect(i.msg.length).toBeGreaterThan(0);
  });

  it('says missing for absent fields and echoes scalar inputs only', () => {
    const issues = issuesOf(schema, {});
    expect(issues.every((i) => i.type === 'missing' && i.msg === 'Field required' && !('input' in i))).toBe(true);
    expect(issues.map((i) => i.loc[1]).sort()).toEqual(['kind', 'n', 'name', 'phone', 'scope', 'tags', 'when']);
    const typed = issuesOf(z.object({ a: z.string() }), { a: 5 });
    expect(typed).toEqual([{ loc: ['body', 'a'], msg: 'Input should be a valid string', type: 'string_type', input: 5 }]);
  });

  it('nests loc through objects and arrays', () => {
    const nested = z.object({
      consent: z.object({ evidence: z.object({ content_hash: z.string().regex(/^[0-9a-f]{64}$/) }) }),
      items: z.array(z.object({ id: z.string() })),
    });
    const issues = issuesOf(nested, { consent: { evidence: { content_hash: 'XYZ' } }, items: [{ id: 'ok' }, {}] });
    expect(issues.map((i) => i.loc)).toEqual([
      ['body', 'consent', 'evidence', 'content_hash'],
      ['body', 'items', 1, 'id'],
    ]);
  });

  it('reports an unknown discriminator once, at the discriminator, naming the expected tags', () => {
    const step = z.discriminatedUnion('type', [z.object({ type: z.literal('a') }), z.object({ type: z.literal('b'), n: z.string() })]);
    const issues = issuesOf(z.object({ steps: z.array(step) }), { steps: [{ type: 'c' }, { type: 'b', n: 5 }] });
    expect(issues.map((i) => [i.loc, i.type])).toEqual([
      [['body', 'steps', 0, 'type'], 'union_tag_invalid'],
      [['body', 'steps', 1, 'n'], 'string_type'],
    ]);
    expect(issues[0]).toMatchObject({ msg: "Input tag 'c' found using 'type' does not match any of the expected tags: 'a', 'b'", input: 'c' });
  });

  it('maps a non-numeric query integer to int_parsing', () => {
    const r = z
      .object({ limit: z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.int()) })
      .safeParse({ limit: 'abc' }, { reportInput: true });
    expect(r.success).toBe(false);
    if (!r.success) expect(toValidationIssues('query', r.error.issues)[0]).toMatchObject({ loc: ['query', 'limit'], type: 'int_parsing', input: 'abc' });
  });
});

describe('secrets are never echoed in a 422', () => {
  const schema = z.strictObject({
    password: z.string().min(12).max(16),
    token: z.string().max(5),
    credentials: z.strictObject({ auth_token: z.string().regex(/^[0-9a-f]{32}$/) }),
    name: z.string().max(3),
  });

  it('names a too-long, too-short, wrong-typed or mismatched secret field without its input; other fields keep theirs', () => {
    const secret = 'hunter2-hunter2-hunter2-hunter2';
    const issues = issuesOf(schema, { password: secret, token: 12345, credentials: { auth_token: secret }, name: 'toolong' });
    expect(issues.map((i) => i.loc.join('.'))).toEqual(['body.password', 'body.token', 'body.credentials.auth_token', 'body.name']);
    for (const i of issues.slice(0, 3)) expect(i).not.toHaveProperty('input');
    expect(JSON.stringify(issues)).not.toContain(secret);
    expect(JSON.stringify(issues)).not.toContain('12345');
    expect(issues[3]!.input).toBe('toolong');
    expect(issuesOf(schema, { password: 'short', token: 'x', credentials: { auth_token: 'f'.repeat(32) }, name: 'a' })[0]).not.toHaveProperty('input');
  });
});
