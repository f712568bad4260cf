import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { newId } from '../../shared/ids.js';
import { claim, complete, LOCK_MS, RETENTION_MS, release } from '../../shared/repositories/idempotency.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ queues: false, bucket: false });
const scope = () => ({ tenantId: newId('ten'), routeId: 'createContact', key: crypto.randomUUID() });

describe('idempotency records on DynamoDB Local', () => {
  it('lets exactly one of many concurrent requests claim a key', async () => {
    const s = scope();
    const results = await Promise.all(Array.from({ length: 12 }, () => claim(s, 'fp', Date.now())));
    expect(results.filter((r) => r.outcome === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'in_progress')).toHaveLength(11);
  });

  it('replays a completed result and reports the stored fingerprint', async () => {
    const s = scope();
    const first = await claim(s, 'fp-1', Date.now());
    if (first.outcome !== 'claimed') throw new Error('expected claim');
    await complete(s, first.owner, { status: 200, body: '{"id":"x"}' });
    const again = await claim(s, 'fp-2', Date.now());
    expect(again).toEqual({ outcome: 'replay', response: { status: 200, body: '{"id":"x"}' }, fingerprint: 'fp-1' });
  });

  it('stores the record for 24 hours with a TTL, and treats an expired one as absent', async () => {
    const s = scope();
    const now = Date.now();
    const first = await claim(s, 'fp', now);
    if (first.outcome !== 'claimed') throw new Error('expected claim');
    const stored = await db().send(new GetCommand({ TableName: env.tableName, Key: keys.idempotency(s.tenantId, s.routeId, s.key) }));
    expect(stored.Item?.expires_at).toBe(now + RETENTION_MS);
    expect(stored.Item?.ttl).toBe(Math.ceil((now + RETENTION_MS) / 1000));
    await complete(s, first.owner, { status: 200, body: '{}' });
    // TTL deletes late: a day later the record still exists but must not count.
    const later = await claim(s, 'other', now + RETENTION_MS + 1);
    expect(later.outcome).toBe('claimed');
  });

  it('lets a retry take over a claim whose holder died, and stops the dead holder from writing', async () => {
    const s = scope();
    const now = Date.now();
    const dead = await claim(s, 'fp', now);
    if (dead.outcome !== 'claimed') throw new Error('expected claim');
    expect((await claim(s, 'fp', now + 1000)).outcome).toBe('in_progress');
    const retry = await claim(s, 'fp', now + LOCK_MS + 1);
    if (retry.outcome !== 'claimed') throw new Error('expected takeover');
    await expect(complete(s, dead.owner, { status: 200, body: '"stale"' })).rejects.toThrow();
    await complete(s, retry.owner, { status: 200, body: '"fresh"' });
    const replay = await claim(s, 'fp', Date.now());
    expect(replay.outcome === 'replay' && replay.response.body).toBe('"fresh"');
  });

  it('release forgets a failed claim so the same key can be retried', async () => {
    const s = scope();
    const first = await claim(s, 'fp', Date.now());
    if (first.outcome !== 'claimed') throw new Error('expected claim');
    await release(s, first.owner);
    expect((await claim(s, 'fp', Date.now())).outcome).toBe('claimed');
  });

  it('keeps keys of different tenants and routes apart', async () => {
    const s = scope();
    await db().send(
      new PutCommand({
        TableName: env.tableName,
        Item: {
          ...keys.idempotency(s.tenantId, s.routeId, s.key),
          status: 'completed',
          fingerprint: 'x',
          expires_at: Date.now() + 1e6,
          response: { status: 200, body: '1' },
        },
      }),
    );
    expect((await claim({ ...s, tenantId: newId('ten') }, 'fp', Date.now())).outcome).toBe('claimed');
    expect((await claim({ ...s, routeId: 'createPhoneNumber' }, 'fp', Date.now())).outcome).toBe('claimed');
  });
});
