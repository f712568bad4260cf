/**
 * The dial pacing store (aws-sdk-client-mock): one item per account whose `next_at` the two
 * atomic forms move exactly as paceDial does, so concurrent dispatchers never read-modify-write;
 * and the lane items, taken under the condition laneFreeAt states and released only by their
 * holder. The mocked table evaluates the conditions the store sends.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { dispatchKeys } from '../../../shared/db/keys.js';
import { ABANDONED_AFTER_MS, dialSpacingMs, type LaneHolder, laneFreeAt, laneRelease, paceDial, STALE_AHEAD_MS } from '../../../shared/policy/dial-pacing.js';
import { releaseDialLane, takeDialGrant, takeDialLane } from '../../../shared/repositories/dial-pacing.js';
import { ddb } from '../../support/document-client-mock.js';

let nextAt: number | undefined;
let seq = 0;
const lanes = new Map<string, { at: number; release?: number; seq: number; call_id: string }>();
const sent: UpdateCommandInput[] = [];
const refuse = (item?: Record<string, unknown>) =>
  new ConditionalCheckFailedException({ message: 'condition', $metadata: {}, ...(item ? { Item: marshall(item) } : {}) });

beforeEach(() => {
  ddb.reset();
  nextAt = undefined;
  seq = 0;
  lanes.clear();
  sent.length = 0;
  ddb.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    sent.push(input);
    const v = input.ExpressionAttributeValues!;
    const sk = input.Key!.sk as string;
    if (sk.startsWith('LANE#')) {
      const lane = lanes.get(sk);
      if (input.UpdateExpression!.startsWith('SET #release')) {
        if (!lane || lane.seq !== v[':seq'] || lane.release !== undefined) throw refuse();
        lane.release = v[':release'] as number;
        return {};
      }
      // The store's condition, evaluated as DynamoDB would (a missing attribute compares false).
      const at = v[':at'] as number;
      const free =
        !lane ||
        (lane.release !== undefined && lane.release <= at) ||
        (lane.release === undefined && lane.at <= (v[':abandoned'] as number)) ||
        lane.at > (v[':ahead'] as number) ||
        (lane.release !== undefined && lane.release > (v[':ahead'] as number));
      if (!free) throw refuse(lane);
      lanes.set(sk, { at, seq: v[':seq'] as number, call_id: v[':call'] as string });
      return {};
    }
    if (input.UpdateExpression!.startsWith('SET next_at = next_at + :spacing')) {
      if (nextAt === undefined || nextAt < (v[':at'] as number) || nextAt > (v[':latest'] as number)) throw refuse();
      nextAt += v[':spacing'] as number;
      seq++;
      return { Attributes: { next_at: nextAt, ttl: v[':ttl'], seq } };
    }
    if (nextAt !== undefined && nextAt >= (v[':at'] as number) && nextAt <= (v[':stale'] as number)) throw refuse({ next_at: nextAt, seq });
    nextAt = v[':next'] as number;
    seq++;
    return { Attributes: { next_at: nextAt, ttl: v[':ttl'], seq } };
  });
});

describe('takeDialGrant', () => {
  const spacing = dialSpacingMs(10);

  it('idle: the grant is now, one write on the account’s item', async () => {
    expect(await takeDialGrant('ten_1', 'tac_1', 1_000, spacing, 20_000)).toEqual({ grantAt: 1_000, seq: 1 });
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
      expect(got).toEqual('busyUntil' in want ? { busyUntil: want.busyUntil } : { grantAt: want.grantAt, seq });
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

describe('takeDialLane / releaseDialLane', () => {
  const claim = (lane: number, n: number, sendAt: number, now = sendAt) => takeDialLane('ten_1', 'tac_1', lane, { seq: n, callId: `cal_${n}`, sendAt, now });

  it('takes a lane nobody held in one write on its own item, and only its holder releases it', async () => {
    expect(await claim(3, 13, 1_000)).toEqual({ taken: true });
    expect(sent.at(-1)!.Key).toEqual({ pk: 'PLATFORM#CPS#ten_1#tac_1', sk: 'LANE#3' });
    expect(await releaseDialLane('ten_1', 'tac_1', 3, 23, 2_100)).toBe(false); // not the holder
    expect(await releaseDialLane('ten_1', 'tac_1', 3, 13, 2_100)).toBe(true);
    expect(await releaseDialLane('ten_1', 'tac_1', 3, 13, 2_500)).toBe(false); // released once
    expect(lanes.get('LANE#3')).toMatchObject({ at: 1_000, release: 2_100, seq: 13 });
  });

  it('refuses a lane until it is free as laneFreeAt says, and tells the holder it found', async () => {
    await claim(0, 0, 1_000);
    expect(await claim(0, 10, 1_500)).toEqual({ taken: false, holder: { at: 1_000, release: null, seq: 0 } });
    await releaseDialLane('ten_1', 'tac_1', 0, 0, 2_200);
    expect(await claim(0, 10, 2_199)).toEqual({ taken: false, holder: { at: 1_000, release: 2_200, seq: 0 } });
    expect(await claim(0, 10, 2_200)).toEqual({ taken: true });
  });

  it('a release from the carrier’s stamp, already past when the answer came, is written as it is and frees the lane from that instant', async () => {
    await claim(2, 2, 1_000);
    // Stamped at 1_040, answered at 2_600: the lane was free from 2_050 on.
    const release = laneRelease(2_600, { sentAt: 1_000, stampedAt: 1_040, answeredAt: 2_600 });
    expect(release).toBe(2_050);
    expect(await releaseDialLane('ten_1', 'tac_1', 2, 2, release)).toBe(true);
    expect(await claim(2, 12, 2_049, 2_600)).toEqual({ taken: false, holder: { at: 1_000, release: 2_050, seq: 2 } });
    expect(await claim(2, 12, 2_600, 2_600)).toEqual({ taken: true });
  });

  it('agrees with laneFreeAt at every instant: released, in flight, abandoned, or left far ahead by a clock moved back', async () => {
    const holders: LaneHolder[] = [
      { at: 5_000, release: 6_100 },
      // Released from a stamp: an instant that was already past when it was written.
      { at: 5_000, release: laneRelease(7_000, { sentAt: 5_000, stampedAt: 5_030, answeredAt: 7_000 }) },
      { at: 5_000 },
      { at: 5_000 + STALE_AHEAD_MS + 500 },
      { at: 5_000, release: 5_000 + STALE_AHEAD_MS + 500 },
    ];
    for (const holder of holders) {
      for (const sendAt of [4_000, 6_039, 6_040, 6_099, 6_100, 7_000, 5_000 + ABANDONED_AFTER_MS - 1, 5_000 + ABANDONED_AFTER_MS]) {
        lanes.set('LANE#1', { at: holder.at, seq: 1, call_id: 'cal_1', ...(typeof holder.release === 'number' ? { release: holder.release } : {}) });
        const got = await claim(1, 11, sendAt, 4_000);
        expect(got.taken).toBe(laneFreeAt(holder, 4_000).at <= sendAt);
      }
    }
  });
});
