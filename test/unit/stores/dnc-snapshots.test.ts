/** National DNC snapshots (shared/repositories/dnc-snapshots.ts): a whole generation flipped in by one conditional write. */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { platformKeys } from '../../../shared/db/keys.js';
import { parseDncFile } from '../../../shared/policy/dnc/snapshot-file.js';
import { dncFacts, dncPointerKey } from '../../../shared/repositories/dnc-facts.js';
import { dncStatus, replaceDncSnapshot } from '../../../shared/repositories/dnc-snapshots.js';
import { ddb, type Item, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
beforeEach(() => table.reset());
const load = (numbers: string[], asOf = '2026-11-01') => replaceDncSnapshot('212', asOf, parseDncFile(numbers.join('\n'), '212'), new Date());

describe('dnc snapshots store', () => {
  it('nothing loaded: not loaded, after reading only the pointer', async () => {
    expect(await dncFacts('212', '+12125550100')).toEqual({ loaded: false });
    expect(table.sent.map((s) => s.input.Key)).toEqual([dncPointerKey('212')]);
  });

  it('a load writes the generation, then flips the pointer; a number is listed or not by its exchange bitmap', async () => {
    const pointer = await load(['2125550100', '2125550199', '2127770001']);
    expect(pointer).toMatchObject({ area_code: '212', as_of: '2026-11-01', numbers: 3 });
    expect(table.get(platformKeys.dncGeneration('212', pointer.generation))).toMatchObject({ exchanges: ['555', '777'] });
    expect(await dncFacts('212', '+12125550100')).toEqual({ loaded: true, as_of: '2026-11-01', listed: true });
    expect(await dncFacts('212', '2125550101')).toEqual({ loaded: true, as_of: '2026-11-01', listed: false });
    // An exchange that lists nobody has no item: the pointer is read again to confirm.
    table.forgetSent();
    expect(await dncFacts('212', '+12128880000')).toEqual({ loaded: true, as_of: '2026-11-01', listed: false });
    expect(table.sent).toHaveLength(3);
    await expect(dncFacts('212', '+13105550100')).rejects.toThrow(RangeError);
  });

  it('a reload replaces the live generation whole and removes the old one', async () => {
    const first = await load(['2125550100']);
    const second = await load(['2127770001'], '2026-11-15');
    expect(second.generation > first.generation).toBe(true);
    expect(table.all().filter((i) => String(i.sk).includes(first.generation))).toEqual([]);
    expect(await dncFacts('212', '+12125550100')).toEqual({ loaded: true, as_of: '2026-11-15', listed: false });
    expect(await dncStatus()).toEqual([second]);
  });

  it('a reload completing between the pointer read and the exchange read is seen (the new generation is read)', async () => {
    await load(['2125550100']);
    const facts = await dncFacts('212', '+12125550100', { afterPointerRead: async () => void (await load(['2125550100'], '2026-11-20')) });
    expect(facts).toEqual({ loaded: true, as_of: '2026-11-20', listed: true });
  });

  it('a load that loses the flip to another removes what it wrote and says so', async () => {
    const first = await load(['2125550100']);
    ddb.on(BatchWriteCommand).callsFake(async (input) => {
      for (const r of Object.values(input.RequestItems as Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]>)[0]!) {
        if (r.PutRequest) table.put(r.PutRequest.Item);
        if (r.DeleteRequest) table.remove(r.DeleteRequest.Key);
      }
      // Another load of the area code flips the pointer meanwhile.
      table.put({ ...dncPointerKey('212'), ...first, generation: 'dng_01JZZZZZZZZZZZZZZZZZZZZZZZ' });
      return {};
    });
    await expect(load(['2127770001'])).rejects.toThrow(/another load replaced/);
    const left = table.all().filter((i) => i.type === 'dnc_generation' || i.type === 'dnc_exchange');
    const keyOf = (k: { pk: unknown; sk: unknown }) => `${k.pk}|${k.sk}`;
    expect(left.map(keyOf).sort()).toEqual(
      [keyOf(platformKeys.dncExchange('212', first.generation, '555')), keyOf(platformKeys.dncGeneration('212', first.generation))].sort(),
    );
  });
});
