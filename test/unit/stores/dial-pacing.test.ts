/**
 * The dial pacing store (aws-sdk-client-mock): one item per account whose `next_at` the two
 * atomic forms move exactly as paceDial does, so concurrent dispatchers never read-modify-write.
 * The mocked table evaluates the two conditions the store sends.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { dispatchKeys } from '../../../shared/db/keys.js';
import { dialSpacingMs, paceDial } from '../../../shared/policy/dial-pacing.js';
import { takeDialGrant } from '../../../shared/repositories/dial-pacing.js';
import { ddb } from '../../support/document-client-mock.js';

let nextAt: number | undefined;
const sent: UpdateCommandInput[] = [];

beforeEach(() => {
  ddb.reset();
  nextAt = undefined;
  sent.length = 0;
  ddb.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    sent.push(input);
    const v = input.ExpressionAttributeValues!;
    if (input.UpdateExpression!.startsWith('SET next_at = next_at + :spacing')) {
      if (nextAt === undefined || nextAt < (v[':at'] as number) || nextAt > (v[':latest'] as number))
        throw new ConditionalCheckFailedException({ message: 'condition', $metadata: {} });
      nextAt += v[':spacing'] as number;
      return { Attributes: { next_at: nextAt, ttl: v[':ttl'] } };
    }
    if (nextAt !== undefined && nextAt >= (v[':at'] as number) && nextAt <= (v[':stale'] as number))
      throw new ConditionalCheckFailedException({ message: 'condition', $metadata: {}, Item: { next_at: { N: String(nextAt) } } });
    nextAt = v[':next'] as number;
    return {};
  });
});

describe('takeDialGrant', () => {
  const spacing = dialSpacingMs(10);

  it('idle: the grant is now, one write on the account’s item', async () => {
    expect(await takeDialGrant('ten_1', 'tac_1', 1_000, spacing, 20_000)).toEqual({ grantAt: 1_000 });
    expect(nextAt).toBe(1_000 + spacing);
    const last = sent.at(-1)!;
    expect(last.Key).toEqual(dispatchKeys.cps('ten_1', 'tac_1'));
    expect(last.Key).toEqual({ pk: 'PLATFORM#CPS#ten_1#tac_1', sk: 'PACE' });
    expect(last.ConditionExpression).toBe('attribute_not_exists(next_at) OR next_at < :at OR next_at > :stale');
    expect(last.ExpressionAttributeValues).toMatchObject({ ':type': 'dial_pace', ':ttl': Math.ceil(21_000 / 1000) + 3600 });
  });

  it('a backlog: each grant is the item’s next_at, moved one spacing on by a single atomic write', async () => {
    const grants: number[] = [];
    for (let i = 0; i < 5; i++) {
      sent.length = 0;
      const g = await takeDialGrant('ten_1', 'tac_1', 1_000, spacing, 20_000);
      grants.push((g as { grantAt: number }).grantAt);
      if (i > 0) expect(sent).toHaveLength(1); // the backlog form went through at once
    }
    expect(grants).toEqual([0, 1, 2, 3, 4].map((i) => 1_000 + i * spacing));
    expect(sent[0]!.ConditionExpression).toBe('next_at >= :at AND next_at <= :latest');
    expect(sent[0]!.ReturnValues).toBe('UPDATED_NEW');
  });

  it('follows paceDial at every step, and refuses past the wait without moving the item', async () => {
    let model: number | null = null;
    // …including a clock moved back a few minutes (the account's next_at then lies far ahead: forgotten).
    for (const at of [0, 0, 50, 400, 400, 400, 2_000, 2_050, 2_050, 2_050, 2_050, 300_000, 300_000, 100_000, 100_000]) {
      const want = paceDial(model, at, spacing, 250);
      const got = await takeDialGrant('ten_1', 'tac_1', at, spacing, 250);
      expect(got).toEqual('busyUntil' in want ? { busyUntil: want.busyUntil } : { grantAt: want.grantAt });
      if (!('busyUntil' in want)) model = want.nextAt;
      expect(nextAt).toBeCloseTo(model!);
    }
  });

  it('gives up after rounds of conditions that keep changing (never loops for ever)', async () => {
    ddb.reset();
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'condition', $metadata: {}, Item: { next_at: { N: '1500' } } }));
    await expect(takeDialGrant('ten_1', 'tac_1', 1_000, spacing, 20_000)).rejects.toThrow(/kept changing/);
  });
});
