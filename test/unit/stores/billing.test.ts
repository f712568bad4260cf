/** Billing accounts and plans (shared/repositories/billing.ts): the implied default account, plan seeding, the operator's changes. */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { billingKeys, keys } from '../../../shared/db/keys.js';
import { DEFAULT_PLAN_ID, PLANS } from '../../../shared/policy/billing/plans.js';
import {
  assignPlan,
  billingDirectory,
  cancelSubscription,
  ensureBillingAccount,
  getBillingAccount,
  getPlan,
  newBillingAccountItems,
  putPlanIfChanged,
  telephonyModeOfTenant,
} from '../../../shared/repositories/billing.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const at = new Date('2026-11-18T15:00:00.000Z');
beforeEach(() => {
  table.reset();
  table.put({ ...keys.tenant(T), id: T, created_at: '2026-01-01T00:00:00.000Z' });
});

describe('billing accounts', () => {
  it('a new tenant: its account on the default plan only if absent, and its directory item', () => {
    const [account, directory] = newBillingAccountItems(T, 'c');
    expect(account!.Put).toMatchObject({
      Item: { ...billingKeys.account(T), plan_id: DEFAULT_PLAN_ID, receptionist_connections: 0, canceled_at: null },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(directory!.Put!.Item).toMatchObject({ ...billingKeys.directory(T), tenant_id: T });
  });

  it('a tenant from before billing is on the default plan since its creation; stored at its first ensure', async () => {
    expect(await getBillingAccount(T)).toMatchObject({ plan_id: DEFAULT_PLAN_ID, created_at: '2026-01-01T00:00:00.000Z' });
    expect(table.get(billingKeys.account(T))).toBeUndefined();
    await ensureBillingAccount(T);
    expect(table.get(billingKeys.account(T))).toMatchObject({ type: 'billing_account', plan_id: DEFAULT_PLAN_ID });
    // A second ensure keeps what is stored.
    table.put({ ...table.get(billingKeys.account(T))!, ...billingKeys.account(T), receptionist_connections: 2 });
    expect(await ensureBillingAccount(T)).toMatchObject({ receptionist_connections: 2 });
    expect(await getBillingAccount('ten_01JZZZZZZZZZZZZZZZZZZZZZZZ')).toBeUndefined();
  });

  it('assigning a plan keeps what the account had and lists the tenant in the directory; an unknown plan writes nothing', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { plan_id: 'plan_growth' } });
    expect(await assignPlan(T, PLANS[1]!.id, at)).toEqual({ plan_id: 'plan_growth' });
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.UpdateExpression).toContain('receptionist_connections = if_not_exists(receptionist_connections, :zero)');
    expect(u.ExpressionAttributeValues).toMatchObject({ ':plan': PLANS[1]!.id, ':created': '2026-01-01T00:00:00.000Z' });
    expect(table.get(billingKeys.directory(T))).toMatchObject({ tenant_id: T });
    await expect(assignPlan(T, 'plan_none', at)).rejects.toThrow(/does not exist/);
    expect(inputsOf(UpdateCommand)).toHaveLength(1);
  });

  it('cancels once: the first instant stands', async () => {
    table.put({ ...billingKeys.account(T), tenant_id: T, plan_id: DEFAULT_PLAN_ID, canceled_at: '2026-11-01T00:00:00.000Z' });
    expect(await cancelSubscription(T, at)).toMatchObject({ canceled_at: '2026-11-01T00:00:00.000Z' });
    expect(inputsOf(UpdateCommand)).toHaveLength(0);
  });
});

describe('plans and walks', () => {
  it('seeds a plan only when absent or changed; reads it from the table, else from the catalogue', async () => {
    const plan = PLANS[0]!;
    ddb.on(PutCommand).resolves({});
    expect(await putPlanIfChanged(plan, 'h1')).toBe(true);
    expect(inputsOf(PutCommand)[0]).toMatchObject({
      ConditionExpression: 'attribute_not_exists(pk) OR content_hash <> :h',
      ExpressionAttributeValues: { ':h': 'h1' },
    });
    table.reset();
    expect(await getPlan(plan.id)).toEqual(plan);
    table.put({ ...billingKeys.plan(plan.id), type: 'plan', content_hash: 'h', ...plan, label: 'Seeded' });
    expect(await getPlan(plan.id)).toEqual({ ...plan, label: 'Seeded' });
    expect(await getPlan('plan_none')).toBeUndefined();
  });

  it('walks the directory page after page, and tells the telephony mode from the accounts', async () => {
    for (const t of [T, 'ten_01JBBBBBBBBBBBBBBBBBBBBBBB']) table.put({ ...billingKeys.directory(t), tenant_id: t });
    const seen: string[] = [];
    for await (const t of billingDirectory()) seen.push(t);
    expect(seen.sort()).toEqual([T, 'ten_01JBBBBBBBBBBBBBBBBBBBBBBB']);
    expect(await telephonyModeOfTenant(T)).toBe('unelected');
    table.put({ ...keys.telephonyAccount(T, 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA'), mode: 'managed' });
    expect(await telephonyModeOfTenant(T)).toBe('managed');
    table.put({ ...keys.telephonyAccount(T, 'tac_01JBBBBBBBBBBBBBBBBBBBBBBB'), mode: 'byo' });
    expect(await telephonyModeOfTenant(T)).toBe('mixed');
  });
});
