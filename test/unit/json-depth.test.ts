/**
 * Any JSON body, at any depth and up to 10 MB, gets the 422 shape and never throws: the
 * text scan (jsonTooDeep) refuses deep bodies before anything parses them, and the walk
 * over parsed values (unholdableJson) is iterative. Exercised on the pure helpers and
 * through a real route handler (the whole middy stack, @middy/http-json-body-parser included).
 */
import { fc, it } from '@fast-check/vitest';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect } from 'vitest';
import { jsonTooDeep, unholdableJson } from '../../shared/schemas/json-limits.js';

/** The documented nesting limit (docs/decisions/api-conventions.md). */
const MAX_JSON_DEPTH = 64;

const MB = 1024 * 1024;

/** JSON text `depth` levels deep, each level an array or an object, with `pad` bytes of string padding inside. */
function nested(openers: boolean[], pad: number): string {
  const open = openers.map((isArray) => (isArray ? '[' : '{"k":')).join('');
  const close = openers
    .map((isArray) => (isArray ? ']' : '}'))
    .reverse()
    .join('');
  // Brackets and escaped quotes inside a string are not nesting.
  const filler = pad > 0 ? JSON.stringify(`[{\\"${'x'.repeat(pad)}`) : '0';
  return `${open}${filler}${close}`;
}

const depth = fc.oneof(fc.integer({ min: 0, max: MAX_JSON_DEPTH + 2 }), fc.integer({ min: 0, max: 100_000 }));
const shape = depth.chain((d) =>
  fc.tuple(fc.array(fc.boolean(), { minLength: d, maxLength: d }), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10 * MB - 2 * d * 6 - 16 }))),
);

describe('jsonTooDeep (the text scan before parsing)', () => {
  it.prop([shape], { numRuns: 40 })(
    'refuses exactly the bodies deeper than the limit, at any depth up to 100,000 and any size up to 10 MB',
    ([openers, pad]) => {
      const text = nested(openers, pad);
      const issue = jsonTooDeep(text);
      if (openers.length > MAX_JSON_DEPTH)
        expect(issue).toEqual({
          loc: ['body'],
          msg: `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`,
          type: 'json_too_deep',
          ctx: { max_depth: MAX_JSON_DEPTH },
        });
      else {
        expect(issue).toBeUndefined();
        expect(unholdableJson(JSON.parse(text))).toEqual([]);
      }
    },
  );

  it('counts no bracket inside a string, escaped quotes included', () => {
    expect(jsonTooDeep(JSON.stringify({ a: '['.repeat(1000) + '\\"' + '{'.repeat(1000) }))).toBeUndefined();
    expect(jsonTooDeep(`[${JSON.stringify('"]]]]')}${',['.repeat(MAX_JSON_DEPTH)}`)).toMatchObject({ type: 'json_too_deep' });
    expect(jsonTooDeep('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonTooDeep('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toMatchObject({ type: 'json_too_deep' });
  });
});

describe('unholdableJson (the walk over a parsed body)', () => {
  it('walks 100,000 levels without exhausting the stack and names the deep problem by its full path', () => {
    let value: unknown = 1e-200;
    for (let i = 0; i < 100_000; i++) value = i % 2 ? [value] : { a: value };
    const issues = unholdableJson(value);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.type).toBe('number_too_small');
    expect(issues[0]!.loc).toHaveLength(100_001);
  });
});

describe('through a route handler (middy, the JSON body parser, validation)', () => {
  let handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<{ statusCode?: number; body?: string }>;
  const ORIGIN = 'https://dashboard.example.test';
  beforeAll(async () => {
    process.env.DASHBOARD_ORIGIN = ORIGIN;
    ({ handler } = (await import('../../functions/sessions/create-session.js')) as never);
  });
  const event = (body: string, base64 = false): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey: 'POST /v1/sessions',
      rawPath: '/v1/sessions',
      rawQueryString: '',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      requestContext: { requestId: 'req-deep', http: { method: 'POST', path: '/v1/sessions', sourceIp: '127.0.0.1' } },
      body: base64 ? Buffer.from(body).toString('base64') : body,
      isBase64Encoded: base64,
    }) as unknown as APIGatewayProxyEventV2;
  const context = { awsRequestId: 'req-deep', functionName: 'createSession', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

  it.prop([fc.array(fc.boolean(), { minLength: MAX_JSON_DEPTH + 1, maxLength: 100_000 }), fc.integer({ min: 0, max: 9 * MB }), fc.boolean()], { numRuns: 12 })(
    'a body nested past the limit (up to 100,000 levels, up to 10 MB, base64 or not) is a 422 on ["body"]',
    async (openers, pad, base64) => {
      const res = await handler(event(nested(openers, pad), base64), context);
      expect(res.statusCode).toBe(422);
      expect(JSON.parse(res.body!).detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_too_deep' })]);
    },
  );

  it('the 6 KB body of 3,000 nested arrays is a 422, not a 500', async () => {
    const res = await handler(event('['.repeat(3000) + ']'.repeat(3000)), context);
    expect(res.statusCode).toBe(422);
  });
});
