import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/observability.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });
const written: string[] = [];

beforeAll(() => {
  logger.setLogLevel('DEBUG'); // the most a production operator could turn on
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
});
afterAll(() => {
  vi.restoreAllMocks();
  logger.setLogLevel('SILENT');
});

describe('secrets never reach the logs', () => {
  it('API key secrets, bearer tokens and the pepper are absent from every log line', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const created = (await api('POST', '/v1/api-keys', { body: { name: 'Logged?' } })).body;
    const rotated = (await api('POST', `/v1/api-keys/${created.id}/rotate`)).body;
    await client(stack, created.secret)('GET', '/v1/me'); // a refused, retired key
    await client(stack, `${t.token}x`)('GET', '/v1/me'); // a malformed one
    const logs = written.join('');
    expect(logs).toContain('"route":"createApiKey"'); // the logs were captured at all
    for (const secret of [t.token, created.secret, rotated.secret]) {
      expect(logs).not.toContain(secret.split('.').at(-1)!);
    }
    expect(logs).not.toContain(JSON.parse(stack.env.APP_SECRETS_JSON!).api_key_pepper);
  });
});
