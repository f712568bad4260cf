import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { getTemplate, seedTemplate } from '../../shared/repositories/agent-templates.js';
import { TEMPLATES } from '../../shared/schemas/template-catalogue.js';
import { PLATFORM_SCHEMA_VERSION, seedPlatformData } from '../../shared/seed/platform.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ queues: false, bucket: false });

describe('platform seed', () => {
  it('writes platform records once and is idempotent on re-run', async () => {
    const first = await seedPlatformData();
    expect(first.written).toBeGreaterThan(0);
    const before = await db().send(new GetCommand({ TableName: env.tableName, Key: { pk: 'PLATFORM', sk: 'META' } }));
    expect(before.Item?.schema_version).toBe(PLATFORM_SCHEMA_VERSION);
    const second = await seedPlatformData();
    expect(second).toEqual({ written: 0, existing: first.written });
    const after = await db().send(new GetCommand({ TableName: env.tableName, Key: { pk: 'PLATFORM', sk: 'META' } }));
    expect(after.Item).toEqual(before.Item);
  });
});

describe('template seed', () => {
  it("writes a new version when a template's content changes, keeps the old one readable, and is idempotent again", async () => {
    await seedPlatformData();
    const def = TEMPLATES.find((t) => t.id === 'tpl_survey_phone')!;
    const v1 = (await getTemplate(def.id))!;
    expect(v1.version).toBe(1);
    expect(await seedTemplate(def, new Date().toISOString())).toBe('unchanged');

    const changed = { ...def, objectives: [...def.objectives, { id: 'nps', description: 'Ask the 0–10 recommendation question', required: false }] };
    const results = await Promise.all([seedTemplate(changed, new Date().toISOString()), seedTemplate(changed, new Date().toISOString())]);
    expect(results.filter((r) => r === 'versioned')).toHaveLength(1); // two seeders, one version 2
    const v2 = (await getTemplate(def.id))!;
    expect(v2).toMatchObject({ version: 2, status: 'published', created_at: v1.created_at });
    expect(v2.content_hash).not.toBe(v1.content_hash);
    expect(v2.objectives).toHaveLength(def.objectives.length + 1);
    expect(await seedTemplate(changed, new Date().toISOString())).toBe('unchanged');

    const old = (await getTemplate(def.id, 1))!;
    expect({ ...old, status: 'published' }).toEqual(v1);
    expect(old.status).toBe('deprecated'); // superseded

    expect(await seedTemplate({ ...changed, status: 'deprecated' }, new Date().toISOString())).toBe('status_changed');
    expect(await getTemplate(def.id)).toMatchObject({ version: 2, status: 'deprecated', content_hash: v2.content_hash });
  });
});
