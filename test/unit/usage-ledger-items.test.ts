/** The ledger's item builder (shared/repositories/usage-ledger.ts): what one source's transaction writes. */
import { beforeAll, describe, expect, it } from 'vitest';
import { runtimeUsageFacts, totalShardOf, USAGE_TOTAL_SHARDS, usageLedgerItems } from '../../shared/repositories/usage-ledger.js';

beforeAll(() => {
  process.env.TABLE_NAME ??= 'unit-table';
});

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
