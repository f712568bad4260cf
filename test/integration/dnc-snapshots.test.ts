/**
 * National DNC snapshots against DynamoDB Local: what the engine reads (dncFacts), the
 * atomic replace seen by readers running during a reload, and the operator CLI
 * (`dnc load`, `dnc status`) against a running local stack.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.js';
import { db, tableName } from '../../shared/db/client.js';
import { platformKeys } from '../../shared/db/keys.js';
import { parseDncFile } from '../../shared/policy/dnc/snapshot-file.js';
import { dncFacts } from '../../shared/repositories/dnc-facts.js';
import { dncStatus, replaceDncSnapshot } from '../../shared/repositories/dnc-snapshots.js';
import { emulatorEndpoints, uniqueSuffix } from '../support/environment.js';

const root = resolve(import.meta.dirname, '..', '..');
let stack: LocalStack;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vc-dnc-'));
  const { dynamoEndpoint, sqsEndpoint } = emulatorEndpoints();
  stack = await startLocalStack({
    port: 0,
    dataDir: dir,
    dynamoEndpoint,
    sqsEndpoint,
    tableName: `dnc-${uniqueSuffix()}`,
    queueNamePrefix: `dnc-${uniqueSuffix()}-`,
    workers: false,
    seed: false,
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const admin = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args, '--local-dir', dir], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });

const fileOf = (numbers: readonly string[]) => {
  const file = join(dir, `numbers-${uniqueSuffix()}.txt`);
  writeFileSync(file, `${numbers.join('\n')}\n`);
  return file;
};

/** Every generation manifest and exchange partition of an area code still in the table. */
async function generationsOf(areaCode: string): Promise<string[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': platformKeys.dncPartition, ':p': platformKeys.dncGenerationsPrefix(areaCode) },
    }),
  );
  return (out.Items ?? []).map((i) => i.generation as string);
}

describe('dncFacts', () => {
  it('answers loaded:false for an area code with no snapshot, then listed / not listed from the loaded one', async () => {
    expect(await dncFacts('628', '+16285550100')).toEqual({ loaded: false });
    await replaceDncSnapshot('628', '2026-11-01', parseDncFile(['6285550100', '6285559999', '6282000000'].join('\n'), '628'), new Date());
    expect(await dncFacts('628', '+16285550100')).toEqual({ loaded: true, as_of: '2026-11-01', listed: true });
    expect(await dncFacts('628', '6285559999')).toEqual({ loaded: true, as_of: '2026-11-01', listed: true });
    expect(await dncFacts('628', '+16285550101')).toEqual({ loaded: true, as_of: '2026-11-01', listed: false });
    // An exchange that lists nobody has no item: still an exact "not listed".
    expect(await dncFacts('628', '+16287770100')).toEqual({ loaded: true, as_of: '2026-11-01', listed: false });
    await expect(dncFacts('628', '+14155550100')).rejects.toThrow(RangeError);
  });

  it('keeps an exchange by its generation: a second read asks only the pointer, and a reload counts on the very next read', async () => {
    const sent: string[] = [];
    db().middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(String(context.commandName).replace(/Command$/, ''));
        return next(args);
      },
      { step: 'initialize', name: 'dncKeptExchangeCounter' },
    );
    const counted = async (phone: string) => {
      sent.length = 0;
      return { facts: await dncFacts('629', phone), calls: [...sent] };
    };
    try {
      await replaceDncSnapshot('629', '2026-10-01', parseDncFile('6295550100', '629'), new Date());
      expect(await counted('+16295550100')).toEqual({ facts: { loaded: true, as_of: '2026-10-01', listed: true }, calls: ['GetItem', 'GetItem'] });
      expect(await counted('+16295550101')).toEqual({ facts: { loaded: true, as_of: '2026-10-01', listed: false }, calls: ['GetItem'] });
      // An exchange listing nobody is kept once the pointer, read again, still names its generation.
      expect((await counted('+16297770100')).calls).toEqual(['GetItem', 'GetItem', 'GetItem']);
      expect(await counted('+16297770100')).toEqual({ facts: { loaded: true, as_of: '2026-10-01', listed: false }, calls: ['GetItem'] });
      // The reload lists 555-0101 and 777-0100, and unlists 555-0100: the next reads see it, each reading the new generation once.
      await replaceDncSnapshot('629', '2026-11-01', parseDncFile('6295550101\n6297770100', '629'), new Date());
      expect(await counted('+16295550100')).toEqual({ facts: { loaded: true, as_of: '2026-11-01', listed: false }, calls: ['GetItem', 'GetItem'] });
      expect(await counted('+16295550101')).toEqual({ facts: { loaded: true, as_of: '2026-11-01', listed: true }, calls: ['GetItem'] });
      expect(await counted('+16297770100')).toEqual({ facts: { loaded: true, as_of: '2026-11-01', listed: true }, calls: ['GetItem', 'GetItem'] });
    } finally {
      db().middlewareStack.remove('dncKeptExchangeCounter');
    }
  });

  it('replaces a snapshot atomically: readers during a reload see the whole old or the whole new one, and the old one is removed', async () => {
    // Old: exchanges 200-599, line = exchange; new: exchanges 400-799, line = exchange + 1.
    // Exchanges 200-399 exist only in the old one (their items are deleted after the flip),
    // 600-799 only in the new one.
    const make = (from: number, to: number, offset: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `707${from + i}${String(from + i + offset).padStart(4, '0')}`);
    const oldNumbers = make(200, 599, 0);
    const newNumbers = make(400, 799, 1);
    await replaceDncSnapshot('707', '2026-10-01', parseDncFile(oldNumbers.join('\n'), '707'), new Date());
    const firstGeneration = await generationsOf('707');
    expect(firstGeneration).toHaveLength(1);

    const oldSet = new Set(oldNumbers);
    const newSet = new Set(newNumbers);
    const probes = [...oldNumbers, ...newNumbers].filter((_, i) => i % 7 === 0);
    let reloading = true;
    const seen = { old: 0, new: 0 };
    const reader = async () => {
      for (let i = 0; reloading || i < probes.length; i++) {
        const n = probes[i % probes.length]!;
        const facts = await dncFacts('707', n);
        if (!facts.loaded) throw new Error('a reload left the area code unloaded');
        const snapshot = facts.as_of === '2026-10-01' ? oldSet : newSet;
        expect(facts.listed, `${n} as of ${facts.as_of}`).toBe(snapshot.has(n));
        seen[facts.as_of === '2026-10-01' ? 'old' : 'new']++;
      }
    };
    const readers = Array.from({ length: 6 }, reader);
    const pointer = await replaceDncSnapshot('707', '2026-11-01', parseDncFile(newNumbers.join('\n'), '707'), new Date());
    reloading = false;
    await Promise.all(readers);
    expect(pointer).toMatchObject({ area_code: '707', as_of: '2026-11-01', numbers: 400 });
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.new).toBeGreaterThan(0);
    const generations = await generationsOf('707');
    expect(generations).toEqual([pointer.generation]);
    expect(generations).not.toContain(firstGeneration[0]);
    const leftovers = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': platformKeys.dncExchange('707', firstGeneration[0]!, '300').pk },
      }),
    );
    expect(leftovers.Items).toEqual([]);
  });

  it('a reader that read the pointer just before a reload replaced and removed its generation reads the new snapshot', async () => {
    await replaceDncSnapshot('530', '2026-10-01', parseDncFile('5302220100', '530'), new Date());
    const facts = await dncFacts('530', '+15302220100', {
      afterPointerRead: async () => {
        await replaceDncSnapshot('530', '2026-11-01', parseDncFile('5303330100', '530'), new Date());
      },
    });
    expect(facts).toEqual({ loaded: true, as_of: '2026-11-01', listed: false });
    expect(await dncFacts('530', '+15303330100')).toEqual({ loaded: true, as_of: '2026-11-01', listed: true });
  });
});

describe('npm run admin -- dnc', () => {
  it('load prints {area_code, as_of, numbers}; status lists the area codes loaded with as_of and counts', async () => {
    const out = admin('dnc', 'load', '--area-code', '415', '--as-of', '2026-11-01', '--file', fileOf(['4155550100', '4155550101', '4155550100', '4153330000']));
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(out.stdout)).toEqual({ area_code: '415', as_of: '2026-11-01', numbers: 3 });
    expect(Object.keys(JSON.parse(out.stdout))).toEqual(['area_code', 'as_of', 'numbers']);
    expect(await dncFacts('415', '+14153330000')).toEqual({ loaded: true, as_of: '2026-11-01', listed: true });

    const status = admin('dnc', 'status');
    expect(status.status, status.stderr).toBe(0);
    const listed = JSON.parse(status.stdout) as { area_codes: { area_code: string; as_of: string; numbers: number; loaded_at: string }[] };
    expect(listed.area_codes.find((a) => a.area_code === '415')).toEqual({ area_code: '415', as_of: '2026-11-01', numbers: 3, loaded_at: expect.any(String) });
    expect(listed.area_codes.map((a) => a.area_code)).toEqual([...listed.area_codes.map((a) => a.area_code)].sort());
  });

  it('refuses a bad file, area code, date or missing option with a clear message and a non-zero exit, changing nothing', async () => {
    admin('dnc', 'load', '--area-code', '510', '--as-of', '2026-11-01', '--file', fileOf(['5105550100']));
    const before = await dncStatus();
    const badLines = admin('dnc', 'load', '--area-code', '510', '--as-of', '2026-11-02', '--file', fileOf(['5105550100', '4155550100', '51055501']));
    expect(badLines.status).toBe(2);
    expect(badLines.stdout).toBe('');
    expect(badLines.stderr).toContain("line 2: '4155550100' is not in area code 510");
    expect(badLines.stderr).toContain("line 3: '51055501' is not a ten-digit number");
    for (const args of [
      ['--area-code', '51', '--as-of', '2026-11-02', '--file', fileOf(['5105550100'])],
      ['--area-code', '510', '--as-of', '2099-01-01', '--file', fileOf(['5105550100'])],
      ['--area-code', '510', '--as-of', '2026-11-02', '--file', join(dir, 'missing.txt')],
      ['--area-code', '510', '--as-of', '2026-11-02'],
    ]) {
      const res = admin('dnc', 'load', ...args);
      expect(res.status, args.join(' ')).toBe(2);
      expect(res.stderr.length, args.join(' ')).toBeGreaterThan(0);
    }
    expect(await dncStatus()).toEqual(before);
    expect(await dncFacts('510', '+15105550100')).toEqual({ loaded: true, as_of: '2026-11-01', listed: true });
  });
});
