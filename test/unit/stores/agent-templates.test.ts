/** Platform templates (shared/repositories/agent-templates.ts): idempotent seeding, immutable versions, superseded ones deprecated. */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { platformKeys } from '../../../shared/db/keys.js';
import { getTemplate, listTemplates, seedTemplate } from '../../../shared/repositories/agent-templates.js';
import { TEMPLATES } from '../../../shared/schemas/template-catalogue.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const def = TEMPLATES[0]!;
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
beforeEach(() => table.reset());

describe('seedTemplate', () => {
  it('creates version 1 (current and kept version, both only if absent), then writes nothing for the same content', async () => {
    expect(await seedTemplate(def, 't1')).toBe('created');
    const [current, kept] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(current.Put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(kept.Put).toMatchObject({
      Item: { ...platformKeys.templateVersion(def.id, 1), type: 'template_version' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(await seedTemplate(def, 't2')).toBe('unchanged');
    expect(inputsOf(TransactWriteCommand)).toHaveLength(1);
    expect(inputsOf(GetCommand).every((g) => g.ConsistentRead === true)).toBe(true);
  });

  it('changed content adds version N+1 under a condition on N; a changed status alone updates in place', async () => {
    await seedTemplate(def, 't1');
    ddb.on(TransactWriteCommand).resolves({});
    expect(await seedTemplate({ ...def, name: `${def.name} II` }, 't2')).toBe('versioned');
    const [current, kept] = inputsOf(TransactWriteCommand)[1]!.TransactItems;
    expect(current.Put).toMatchObject({
      ConditionExpression: '#version = :expected',
      ExpressionAttributeValues: { ':expected': 1 },
      Item: { version: 2, updated_at: 't2', created_at: 't1' },
    });
    expect(kept.Put.Item).toMatchObject(platformKeys.templateVersion(def.id, 2));
    ddb.on(UpdateCommand).resolves({});
    expect(await seedTemplate({ ...def, status: def.status === 'published' ? 'deprecated' : 'published' }, 't3')).toBe('status_changed');
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({ ConditionExpression: '#version = :version', ExpressionAttributeValues: { ':version': 1 } });
  });

  it('another seeder first: unchanged', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    expect(await seedTemplate(def, 't1')).toBe('unchanged');
  });
});

describe('getTemplate and listTemplates', () => {
  it('reads the current version, an older one as deprecated, none beyond the current', async () => {
    await seedTemplate(def, 't1');
    const v1 = table.get(platformKeys.template(def.id))!;
    table.put({ ...platformKeys.template(def.id), ...v1, version: 2, ...platformKeys.template(def.id) });
    table.put({ ...v1, ...platformKeys.templateVersion(def.id, 2), version: 2 });
    expect((await getTemplate(def.id))?.version).toBe(2);
    expect(await getTemplate(def.id, 1)).toMatchObject({ version: 1, status: 'deprecated' });
    expect(await getTemplate(def.id, 3)).toBeUndefined();
    expect(await getTemplate('no such/template')).toBeUndefined();
    expect(await getTemplate('missing')).toBeUndefined();
  });

  it('lists the current versions from the platform collection, without objectives', async () => {
    await seedTemplate(def, 't1');
    const page = await listTemplates(T, { limit: 10, filters: [] });
    expect(page.data.map((t) => t.id)).toEqual([def.id]);
    expect(page.data[0]).not.toHaveProperty('objectives');
  });
});
