import '../support/debug-log-level.js';
import { describe, expect, it } from 'vitest';
import { captureLogs } from '../support/log-capture.js';
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

describe('webhook signing secrets never reach the logs', () => {
  it('neither the secret made at creation nor a rotated one appears in any log line, even when a delivery fails', async () => {
    const t = await newTenant('HookLogs');
    const api = client(stack, t.token);
    // Nothing listens on port 9: the test send's failure is logged, its secrets must not be.
    const created = (await api('PUT', '/v1/webhook-endpoint', { body: { url: 'http://127.0.0.1:9/hooks' } })).body;
    const rotated = (await api('POST', '/v1/webhook-endpoint/rotate-secret', { body: { overlap_seconds: 60 } })).body;
    expect((await api('POST', '/v1/webhook-endpoint/test')).body.delivered).toBe(false);
    await api('GET', '/v1/webhook-endpoint');
    expect(logs.requests('testWebhookEndpoint')).toBe(1);
    const text = logs.text();
    for (const secret of [created.signing_secret as string, rotated.signing_secret as string]) {
      expect(secret).toMatch(/^whsec_/);
      expect(text).not.toContain(secret.slice(6));
    }
  });
});
