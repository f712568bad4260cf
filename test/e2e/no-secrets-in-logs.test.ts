import { captureLogs } from '../support/log-capture.js';
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const logs = captureLogs();
const stack = useTestStack({ workers: false });

describe('secrets never reach the logs', () => {
  it('API key secrets, bearer tokens and the pepper are absent from every log line', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const created = (await api('POST', '/v1/api-keys', { body: { name: 'Logged?' } })).body;
    const rotated = (await api('POST', `/v1/api-keys/${created.id}/rotate`)).body;
    await client(stack, created.secret)('GET', '/v1/me'); // a refused, retired key
    await client(stack, `${t.token}x`)('GET', '/v1/me'); // a malformed one
    // Every request's line was captured, not only the first of each warm handler.
    expect(logs.requests('getMe')).toBe(2);
    expect(logs.requests('createApiKey')).toBe(1);
    const text = logs.text();
    for (const secret of [t.token, created.secret, rotated.secret]) {
      expect(text).not.toContain(secret.split('.').at(-1)!);
    }
    expect(text).not.toContain(JSON.parse(stack.env.APP_SECRETS_JSON!).api_key_pepper);
  });
});
