import { describe, expect, it } from 'vitest';
import { buildApiGatewayEvent, formatRequestTime, type HttpRequestLike, isTextContentType, splitUrl } from '../../infra/local/apigw-event.js';
import { createLambdaContext } from '../../infra/local/lambda-context.js';
import { normalizeResult } from '../../infra/local/server.js';

const request = (over: Partial<HttpRequestLike> = {}): HttpRequestLike => ({
  method: 'POST',
  url: '/v1/api-keys/key_123/rotate',
  rawHeaders: ['Host', '127.0.0.1:3000', 'User-Agent', 'curl/8.5.0'],
  sourceIp: '127.0.0.1',
  protocol: 'HTTP/1.1',
  ...over,
});

const route = { routeKey: 'POST /v1/api-keys/{key_id}/rotate', pathParameters: { key_id: 'key_123' } };

describe('API Gateway v2 event', () => {
  it('has the payload 2.0 envelope and request context', () => {
    const now = Date.UTC(2024, 2, 5, 19, 3, 58);
    const event = buildApiGatewayEvent(request(), route, { now, requestId: 'req-1' });
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /v1/api-keys/{key_id}/rotate',
      rawPath: '/v1/api-keys/key_123/rotate',
      rawQueryString: '',
      pathParameters: { key_id: 'key_123' },
      isBase64Encoded: false,
      requestContext: {
        accountId: expect.stringMatching(/^\d{12}$/),
        apiId: expect.any(String),
        domainName: '127.0.0.1',
        domainPrefix: '127',
        http: { method: 'POST', path: '/v1/api-keys/key_123/rotate', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'curl/8.5.0' },
        requestId: 'req-1',
        routeKey: 'POST /v1/api-keys/{key_id}/rotate',
        stage: '$default',
        time: '05/Mar/2024:19:03:58 +0000',
        timeEpoch: now,
      },
    });
    // API Gateway omits what the request does not have.
    expect(event).not.toHaveProperty('body');
    expect(event).not.toHaveProperty('cookies');
    expect(event).not.toHaveProperty('queryStringParameters');
  });

  it('lowercases headers and joins duplicates with commas', () => {
    const event = buildApiGatewayEvent(request({ rawHeaders: ['Host', 'localhost:3000', 'X-Trace', 'a', 'x-trace', 'b', 'Authorization', 'Bearer k'] }), route);
    expect(event.headers).toEqual({ host: 'localhost:3000', 'x-trace': 'a,b', authorization: 'Bearer k' });
  });

  it('moves cookies out of the headers into the cookies array', () => {
    const event = buildApiGatewayEvent(request({ rawHeaders: ['Host', 'h', 'Cookie', 'a=1; b=2', 'Cookie', 'c=3'] }), route);
    expect(event.cookies).toEqual(['a=1', 'b=2', 'c=3']);
    expect(event.headers).not.toHaveProperty('cookie');
  });

  it('keeps the raw query string and decodes parameters, joining duplicates', () => {
    const event = buildApiGatewayEvent(request({ method: 'GET', url: '/v1/users?limit=5&status=a&status=b%20c&q=x%2By' }), route);
    expect(event.rawPath).toBe('/v1/users');
    expect(event.rawQueryString).toBe('limit=5&status=a&status=b%20c&q=x%2By');
    expect(event.queryStringParameters).toEqual({ limit: '5', status: 'a,b c', q: 'x+y' });
  });

  it('passes JSON bodies as text and everything else as base64', () => {
    const json = buildApiGatewayEvent(request({ rawHeaders: ['Content-Type', 'application/json; charset=utf-8'], body: Buffer.from('{"name":"ü"}') }), route);
    expect(json.body).toBe('{"name":"ü"}');
    expect(json.isBase64Encoded).toBe(false);

    const form = buildApiGatewayEvent(
      request({ rawHeaders: ['Content-Type', 'application/x-www-form-urlencoded'], body: Buffer.from('CallSid=CA1&To=%2B1') }),
      route,
    );
    expect(form.isBase64Encoded).toBe(true);
    expect(Buffer.from(form.body!, 'base64').toString()).toBe('CallSid=CA1&To=%2B1');

    const binary = Buffer.from([0, 255, 1, 2]);
    const octets = buildApiGatewayEvent(request({ rawHeaders: ['Content-Type', 'application/octet-stream'], body: binary }), route);
    expect(Buffer.from(octets.body!, 'base64')).toEqual(binary);
  });

  it('gives every request its own id', () => {
    const ids = new Set(Array.from({ length: 200 }, () => buildApiGatewayEvent(request(), route).requestContext.requestId));
    expect(ids.size).toBe(200);
  });

  it('classifies content types like API Gateway', () => {
    expect(isTextContentType('text/csv')).toBe(true);
    expect(isTextContentType('application/problem+json')).toBe(true);
    expect(isTextContentType('application/xml')).toBe(true);
    expect(isTextContentType('application/x-www-form-urlencoded')).toBe(false);
    expect(isTextContentType('multipart/form-data; boundary=x')).toBe(false);
    expect(isTextContentType(undefined)).toBe(false);
  });

  it('splits urls without losing an empty query', () => {
    expect(splitUrl('/a/b?')).toEqual({ rawPath: '/a/b', rawQueryString: '' });
    expect(splitUrl('/a?x=1#frag')).toEqual({ rawPath: '/a', rawQueryString: 'x=1' });
    expect(formatRequestTime(Date.UTC(2020, 11, 31, 1, 2, 3))).toBe('31/Dec/2020:01:02:03 +0000');
  });
});

describe('Lambda context', () => {
  it('looks like the runtime one and counts down to the timeout', () => {
    const startedAt = Date.now();
    const ctx = createLambdaContext({ functionName: 'getMe', timeoutSeconds: 10, startedAt });
    expect(ctx.functionName).toBe('getMe');
    expect(ctx.invokedFunctionArn).toMatch(/^arn:aws:lambda:us-east-1:\d{12}:function:getMe$/);
    expect(ctx.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ctx.logGroupName).toBe('/aws/lambda/getMe');
    const remaining = ctx.getRemainingTimeInMillis();
    expect(remaining).toBeGreaterThan(9_000);
    expect(remaining).toBeLessThanOrEqual(10_000);
    expect(createLambdaContext({ functionName: 'f', timeoutSeconds: 1, startedAt: startedAt - 5_000 }).getRemainingTimeInMillis()).toBe(0);
  });
});

describe('handler result → HTTP response', () => {
  it('writes status, lowercased headers, cookies and a base64 body', () => {
    const out = normalizeResult({
      statusCode: 201,
      headers: { 'Content-Type': 'image/png', 'X-Count': 3 },
      cookies: ['a=1; HttpOnly', 'b=2'],
      body: Buffer.from([1, 2, 3]).toString('base64'),
      isBase64Encoded: true,
    });
    expect(out.statusCode).toBe(201);
    expect(out.headers).toEqual({ 'content-type': 'image/png', 'x-count': '3' });
    expect(out.cookies).toEqual(['a=1; HttpOnly', 'b=2']);
    expect([...out.body]).toEqual([1, 2, 3]);
  });

  it('treats a result without statusCode as a 200 JSON body, as API Gateway does', () => {
    const out = normalizeResult({ ok: true });
    expect(out.statusCode).toBe(200);
    expect(out.headers['content-type']).toBe('application/json');
    expect(out.body.toString()).toBe('{"ok":true}');
  });

  it('rejects results API Gateway would refuse', () => {
    expect(() => normalizeResult({ statusCode: '200' })).toThrow(/statusCode/);
    expect(() => normalizeResult({ statusCode: 200, body: { a: 1 } })).toThrow(/body must be a string/);
  });
});
