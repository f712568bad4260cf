import { describe, expect, it } from 'vitest';
import { conflict, DomainError, type ErrorKind, forbidden, gone, invalid, notFound, unauthorized } from '../../shared/errors.js';
import { errorResponse } from '../../shared/http/responses.js';

const BASE = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const answer = (err: unknown) => {
  const r = errorResponse(err, 'req-1');
  return { status: r.statusCode, headers: r.headers, body: JSON.parse(r.body as string) };
};

describe('domain errors become the same HTTP answers as before', () => {
  it('maps every kind to its status', () => {
    const statuses: Record<ErrorKind, number> = {
      bad_request: 400,
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      gone: 410,
      too_large: 413,
      unsupported_media_type: 415,
      rate_limited: 429,
      upstream_failed: 502,
      unavailable: 503,
    };
    for (const [kind, status] of Object.entries(statuses)) {
      expect(answer(new DomainError(kind as ErrorKind, 'some_code', 'Some detail'))).toEqual({
        status,
        headers: BASE,
        body: { detail: 'Some detail', code: 'some_code' },
      });
    }
  });

  it('keeps the bodies of the helpers, the 401 challenge and the 409 extra fields', () => {
    expect(answer(unauthorized())).toEqual({
      status: 401,
      headers: { ...BASE, 'www-authenticate': 'Bearer' },
      body: { detail: 'Missing or invalid API key', code: 'unauthorized' },
    });
    expect(answer(forbidden())).toEqual({ status: 403, headers: BASE, body: { detail: 'This credential may not perform this operation', code: 'forbidden' } });
    expect(answer(notFound('Agent'))).toEqual({ status: 404, headers: BASE, body: { detail: 'Agent not found', code: 'not_found' } });
    expect(answer(conflict('campaign_status_conflict', 'A running campaign cannot be started', { status: 'running' }))).toEqual({
      status: 409,
      headers: BASE,
      body: { detail: 'A running campaign cannot be started', code: 'campaign_status_conflict', status: 'running' },
    });
    expect(answer(gone('The link was used'))).toEqual({ status: 410, headers: BASE, body: { detail: 'The link was used', code: 'gone' } });
  });

  it('turns a retry hint into retry-after', () => {
    const tooMany = new DomainError('rate_limited', 'too_many_attempts', 'Too many attempts; try again later', {}, { retryAfterSeconds: 7 });
    expect(answer(tooMany)).toEqual({
      status: 429,
      headers: { ...BASE, 'retry-after': '7' },
      body: { detail: 'Too many attempts; try again later', code: 'too_many_attempts' },
    });
  });

  it('answers a validation error as 422 without echoing a secret field', () => {
    expect(answer(invalid(['body', 'auth_token'], 'Too short', 'string_too_short', 'abc'))).toEqual({
      status: 422,
      headers: BASE,
      body: { detail: [{ loc: ['body', 'auth_token'], msg: 'Too short', type: 'string_too_short' }] },
    });
    expect(answer(invalid(['body', 'name'], 'Too short', 'string_too_short', 'a')).body.detail[0].input).toBe('a');
  });

  it('answers anything else as a 500 that names only the request', () => {
    expect(answer(new Error('boom'))).toEqual({
      status: 500,
      headers: BASE,
      body: { detail: 'Internal Server Error', code: 'internal_error', request_id: 'req-1' },
    });
  });
});
