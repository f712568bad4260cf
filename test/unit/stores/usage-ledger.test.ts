/** The usage ledger (shared/repositories/usage-ledger.ts): what one source's transaction writes, and the totals read back. */
import { QueryCommand as RawQueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys, usageKeys, usagePartition } from '../../../shared/db/keys.js';
import {
  callMinutesLedgerItems,
  messageSegmentsLedgerItems,
  readPeriodTotals,
  recomputePeriodTotals,
  runtimeUsageFacts,
  runtimeUsageLedgerItems,
  totalShardOf,
  USAGE_TOTAL_SHARDS,
  usageLedgerItems,
} from '../../../shared/repositories/usage-ledger.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();

const at = new Date('2026-11-07T10:00:00Z');
const billed = { settlement: 'billed' as const, carrierBilled: false, telephony_account_id: 'tac_1' };

describe('usageLedgerItems', () => {
  it('per meter: the row, put if absent under a deterministic key, and its period total ADDed with the day’s share, as exact decimals', () => {
    const items = usageLedgerItems('ten_1', { kind: 'call', id: 'cal_1', call_id: 'cal_1' }, [{ meter: 'telephony_minutes', quantity: 3 }], billed, at);
    expect(items).toHaveLength(2);
    expect(items[0]!.Put).toMatchObject({
      Item: {
        pk: 'TENANT#ten_1#USAGE#2026-11',
        sk: 'ROW#call.cal_1#telephony_minutes',
        meter: 'telephony_minutes',
        quantity: '3',
        settlement: 'billed',
        source_type: 'call',
        source_id: 'cal_1',
        at: at.toISOString(),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    const update = items[1]!.Update!;
    expect(update.Key).toEqual({ pk: 'TENANT#ten_1#USAGE#2026-11', sk: `TOTAL#billed#telephony_minutes#${totalShardOf({ kind: 'call', id: 'cal_1' })}` });
    expect(update.UpdateExpression).toContain('ADD quantity :q, event_count :one, #dq :q, #dc :one');
    expect(update.ExpressionAttributeNames).toMatchObject({ '#dq': 'd07_quantity', '#dc': 'd07_count' });
    expect(String((update.ExpressionAttributeValues![':q'] as { value: string }).value)).toBe('3');
  });

  it('zero writes nothing; a byo account’s carrier meters write nothing; sandbox rows go to their own totals; one meter once per source', () => {
    expect(usageLedgerItems('ten_1', { kind: 'message', id: 'msg_1' }, [{ meter: 'sms_segments', quantity: 0 }], billed, at)).toEqual([]);
    const byo = { ...billed, carrierBilled: true };
    const items = usageLedgerItems(
      'ten_1',
      { kind: 'call_event', id: 'cal_1.e1' },
      [
        { meter: 'telephony_minutes', quantity: 2 },
        { meter: 'sms_segments', quantity: 1 },
        { meter: 'tts_characters', quantity: '12' },
      ],
      byo,
      at,
    );
    expect(items.map((i) => (i.Put?.Item?.sk ?? i.Update?.Key?.sk) as string)).toEqual([
      'ROW#call_event.cal_1.e1#tts_characters',
      `TOTAL#billed#tts_characters#${totalShardOf({ kind: 'call_event', id: 'cal_1.e1' })}`,
    ]);
    const sandbox = usageLedgerItems(
      'ten_1',
      { kind: 'call', id: 'cal_2' },
      [{ meter: 'telephony_minutes', quantity: 1 }],
      { ...billed, settlement: 'sandbox' },
      at,
    );
    expect(sandbox[1]!.Update!.Key).toEqual({
      pk: 'TENANT#ten_1#USAGE#2026-11',
      sk: `TOTAL#sandbox#telephony_minutes#${totalShardOf({ kind: 'call', id: 'cal_2' })}`,
    });
    expect(() =>
      usageLedgerItems(
        'ten_1',
        { kind: 'call', id: 'cal_3' },
        [
          { meter: 'gpu_seconds', quantity: 1 },
          { meter: 'gpu_seconds', quantity: 2 },
        ],
        billed,
        at,
      ),
    ).toThrow(/twice/);
    expect(() => usageLedgerItems('ten_1', { kind: 'call', id: 'cal_4' }, [{ meter: 'gpu_seconds', quantity: '-1' }], billed, at)).toThrow(/invalid quantity/);
  });

  it('a total is sharded by its source: one source always the same shard (all its meters), many sources spread over every shard', () => {
    const keyOf = (id: string) =>
      usageLedgerItems(
        'ten_1',
        { kind: 'call', id },
        [
          { meter: 'telephony_minutes', quantity: 1 },
          { meter: 'sms_segments', quantity: 1 },
        ],
        billed,
        at,
      )
        .filter((i) => i.Update)
        .map((i) => i.Update!.Key!.sk as string);
    const [minutes, sms] = keyOf('cal_x');
    expect(minutes!.split('#').at(-1)).toBe(sms!.split('#').at(-1));
    expect(keyOf('cal_x')).toEqual([minutes, sms]);
    const shards = new Set(Array.from({ length: 200 }, (_, i) => keyOf(`cal_${i}`)[0]!.split('#').at(-1)));
    expect(shards).toEqual(new Set(Array.from({ length: USAGE_TOTAL_SHARDS }, (_, i) => String(i))));
  });

  it('runtime usage facts meter cached input apart from the rest of the input (never twice)', () => {
    expect(runtimeUsageFacts({ llm_input_tokens: 1200, llm_cached_input_tokens: 300 })).toEqual([
      { meter: 'llm_prompt_tokens', quantity: '900' },
      { meter: 'llm_cached_prompt_tokens', quantity: '300' },
    ]);
  });

  it('runtime usage facts keep the decimal the runtime sent', () => {
    expect(runtimeUsageFacts({ audio_seconds: 0.1, llm_cached_input_tokens: 300, gpu_seconds: 1.005 })).toEqual([
      { meter: 'stt_audio_seconds', quantity: '0.1' },
      { meter: 'llm_cached_prompt_tokens', quantity: '300' },
      { meter: 'gpu_seconds', quantity: '1.005' },
    ]);
  });
});

describe('the ledger as stored', () => {
  const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
  const period = '2026-11';

  it('sums the total shards per settlement and meter (exact decimals), and the day asked for', async () => {
    table.reset();
    const total = (settlement: string, meter: string, shard: number, quantity: string, n: number, day?: [string, string, number]) => ({
      ...usageKeys.total(T, period, settlement, meter, shard),
      settlement,
      meter,
      quantity,
      event_count: n,
      ...(day ? { [`d${day[0]}_quantity`]: day[1], [`d${day[0]}_count`]: day[2] } : {}),
    });
    ddb.on(RawQueryCommand).resolves({
      Items: [
        total('billed', 'telephony_minutes', 0, '1.1', 1, ['07', '1.1', 1]),
        total('billed', 'telephony_minutes', 5, '2.2', 2),
        total('sandbox', 'sms_segments', 1, '3', 3),
        total('billed', 'not_a_meter', 1, '9', 9),
      ].map((i) => marshall(i)),
    });
    const totals = await readPeriodTotals(T, period, '07');
    expect(totals.billed).toEqual({ telephony_minutes: { quantity: '3.3', event_count: 3 } });
    expect(totals.sandbox).toEqual({ sms_segments: { quantity: '3', event_count: 3 } });
    expect(totals.day.billed).toEqual({ telephony_minutes: { quantity: '1.1', event_count: 1 } });
    expect(inputsOf(RawQueryCommand)[0]).toMatchObject({ ConsistentRead: true, ExpressionAttributeValues: { ':pk': { S: usagePartition(T, period) } } });
  });

  it('recomputes the totals from every row (what the running totals must equal)', async () => {
    table.reset();
    table.put({ ...usageKeys.row(T, period, 'call.a', 'telephony_minutes'), settlement: 'billed', meter: 'telephony_minutes', quantity: '1.5' });
    table.put({ ...usageKeys.row(T, period, 'call.b', 'telephony_minutes'), settlement: 'billed', meter: 'telephony_minutes', quantity: '2' });
    expect(await recomputePeriodTotals(T, period)).toEqual({ billed: { telephony_minutes: { quantity: '3.5', event_count: 2 } }, sandbox: {}, rows: 2 });
  });

  it("meters a call's minutes and a text's segments by its account (a mock account is sandbox), nothing for none", async () => {
    table.reset();
    table.put({ ...keys.telephonyAccount(T, 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA'), provider: 'mock', mode: 'managed' });
    const at = new Date('2026-11-07T10:00:00Z');
    expect(await callMinutesLedgerItems(T, { id: 'cal_1', telephony_account_id: 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA' }, 0, at)).toEqual([]);
    const minutes = await callMinutesLedgerItems(T, { id: 'cal_1', telephony_account_id: 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA' }, 61, at);
    expect(minutes[0]!.Put!.Item).toMatchObject({ settlement: 'sandbox', meter: 'telephony_minutes', quantity: '2' });
    expect(await messageSegmentsLedgerItems(T, { id: 'msg_1', segments: 0, telephony_account_id: null }, at)).toEqual([]);
    const sms = await messageSegmentsLedgerItems(T, { id: 'msg_1', segments: 3, telephony_account_id: null }, at);
    expect(sms[0]!.Put!.Item).toMatchObject({ settlement: 'billed', meter: 'sms_segments', quantity: '3' });
    expect(await runtimeUsageLedgerItems(T, { id: 'cal_1' }, [{ id: 'e1', type: 'transcript_turn' }], at)).toEqual([]);
  });
});
