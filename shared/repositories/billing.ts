/**
 * Billing accounts and plans (see docs/decisions/billing.md). Plans are platform data (`PLATFORM#PLANS`, seeded
 * from shared/policy/billing/plans.ts); a tenant's billing account (`BILLING` in its partition)
 * names its plan, its daily budget and its purchased receptionist connections, and a
 * directory item (`PLATFORM#BILLING_ACCOUNTS` / `<tenant>`) lets the invoice job walk every
 * billed tenant without a scan. Every new tenant starts on the default plan (bootstrap).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { billingKeys, collections, keys } from '../db/keys.js';
import { projectionOf, queryCollection, queryPages } from '../db/query.js';
import type { TelephonyModeSummary } from '../policy/billing/meters.js';
import { telephonyModeOf } from '../policy/billing/meters.js';
import { DEFAULT_PLAN_ID, type Plan, planById, planSchema } from '../policy/billing/plans.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface BillingAccount {
  tenant_id: string;
  plan_id: string;
  /** The payment provider's customer, once an invoice was finalized for the tenant. */
  customer_ref?: string | null;
  /** A daily spend budget (minor units) the mobile summary reports against, or null. */
  daily_budget_minor: number | null;
  /** Receptionist connections bought (recurring), beyond the plan's included inbound connections. */
  receptionist_connections: number;
  /** `canceled` stops invoicing; otherwise the status is derived (trialing, active, past_due). */
  canceled_at: string | null;
  created_at: string;
  updated_at: string;
}

const planItem = (plan: Plan) => ({ ...billingKeys.plan(plan.id), type: 'plan', ...plan });

/** Seed a plan: written when absent or when its content changed (`hash`); false when the stored one is the same. */
export async function putPlanIfChanged(plan: Plan, hash: string): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...planItem(plan), content_hash: hash },
        ConditionExpression: 'attribute_not_exists(pk) OR content_hash <> :h',
        ExpressionAttributeValues: { ':h': hash },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** The billing account and directory items a new tenant is created with (its bootstrap transaction). */
export function newBillingAccountItems(tenantId: string, at: string, planId = DEFAULT_PLAN_ID): TransactItem[] {
  const account: BillingAccount = {
    tenant_id: tenantId,
    plan_id: planId,
    daily_budget_minor: null,
    receptionist_connections: 0,
    canceled_at: null,
    created_at: at,
    updated_at: at,
  };
  return [
    {
      Put: {
        TableName: tableName(),
        Item: { ...billingKeys.account(tenantId), type: 'billing_account', ...account },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { TableName: tableName(), Item: { ...billingKeys.directory(tenantId), type: 'billing_directory', tenant_id: tenantId, created_at: at } } },
  ];
}

/**
 * The tenant's billing account. A tenant made before billing existed has none stored: it is
 * on the default plan since its creation (and gets the stored account at its first change).
 */
export async function getBillingAccount(tenantId: string): Promise<BillingAccount | undefined> {
  const [out, tenant] = await Promise.all([
    db().send(new GetCommand({ TableName: tableName(), Key: billingKeys.account(tenantId), ConsistentRead: true })),
    db().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId) })),
  ]);
  if (!tenant.Item) return undefined;
  if (out.Item) return out.Item as BillingAccount;
  const at = tenant.Item.created_at as string;
  return {
    tenant_id: tenantId,
    plan_id: DEFAULT_PLAN_ID,
    daily_budget_minor: null,
    receptionist_connections: 0,
    canceled_at: null,
    created_at: at,
    updated_at: at,
  };
}

/** A plan as seeded (platform data); the code catalog only when the table has not been seeded yet. */
export async function getPlan(planId: string): Promise<Plan | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: billingKeys.plan(planId) }));
  if (!out.Item) return planById(planId);
  const { pk: _pk, sk: _sk, type: _type, content_hash: _hash, ...plan } = out.Item;
  return planSchema.parse(plan);
}

export async function listPlans(): Promise<Plan[]> {
  const items = await queryCollection({ pk: billingKeys.plansPartition, prefix: billingKeys.plansPrefix });
  return items.map(({ pk: _pk, sk: _sk, type: _type, content_hash: _hash, ...plan }) => planSchema.parse(plan));
}

/** Operator: put a tenant on a plan (from the next rating on; invoices rate a period with the plan in force at its close). */
export async function assignPlan(tenantId: string, planId: string, at: Date): Promise<BillingAccount> {
  const existing = await getBillingAccount(tenantId);
  if (!existing) throw new Error(`tenant ${tenantId} does not exist`);
  if (!(await getPlan(planId))) throw new Error(`plan ${planId} does not exist`);
  const nowIso = at.toISOString();
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billingKeys.account(tenantId),
      UpdateExpression:
        'SET #type = :type, tenant_id = :t, plan_id = :plan, updated_at = :now, created_at = if_not_exists(created_at, :created), daily_budget_minor = if_not_exists(daily_budget_minor, :null), receptionist_connections = if_not_exists(receptionist_connections, :zero), canceled_at = if_not_exists(canceled_at, :null)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':type': 'billing_account',
        ':t': tenantId,
        ':plan': planId,
        ':now': nowIso,
        ':created': existing.created_at,
        ':null': null,
        ':zero': 0,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...billingKeys.directory(tenantId), type: 'billing_directory', tenant_id: tenantId, created_at: existing.created_at },
    }),
  );
  return out.Attributes as BillingAccount;
}

/** Stores the account a tenant made before billing existed is implied to have (default plan), if none is stored. */
export async function ensureBillingAccount(tenantId: string): Promise<BillingAccount | undefined> {
  const account = await getBillingAccount(tenantId);
  if (!account) return undefined;
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...billingKeys.account(tenantId), type: 'billing_account', ...account },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
  return account;
}

/** Operator: set (or clear, null) the tenant's daily budget. */
export async function setDailyBudget(tenantId: string, dailyBudgetMinor: number | null, at: Date): Promise<BillingAccount> {
  const existing = await ensureBillingAccount(tenantId);
  if (!existing) throw new Error(`tenant ${tenantId} does not exist`);
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billingKeys.account(tenantId),
      UpdateExpression: 'SET daily_budget_minor = :b, updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':b': dailyBudgetMinor, ':now': at.toISOString() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return out.Attributes as BillingAccount;
}

/** Operator: cancel the subscription (no invoice after the period it ends in; the mobile status reads canceled). */
export async function cancelSubscription(tenantId: string, at: Date): Promise<BillingAccount> {
  const existing = await ensureBillingAccount(tenantId);
  if (!existing) throw new Error(`tenant ${tenantId} does not exist`);
  if (existing.canceled_at) return existing; // canceled once: the first instant stands
  // (canceled_at is stored as null until then, so if_not_exists would keep the null.)
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billingKeys.account(tenantId),
      UpdateExpression: 'SET canceled_at = :now, updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': at.toISOString() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return out.Attributes as BillingAccount;
}

/** Every tenant with a billing account, a page at a time (the invoice job's walk). */
export async function* billingDirectory(): AsyncGenerator<string> {
  for await (const page of queryPages({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': billingKeys.directoryPartition } }))
    for (const item of page.Items ?? []) yield item.tenant_id as string;
}

/** managed / byo / mixed / unelected, from the modes of the tenant's telephony accounts. */
export async function telephonyModeOfTenant(tenantId: string): Promise<TelephonyModeSummary> {
  const items = await queryCollection({ pk: keys.tenant(tenantId).pk, prefix: collections.telephonyAccounts }, projectionOf(['mode']));
  const modes = items.map((item) => item.mode).filter((mode): mode is 'managed' | 'byo' => mode === 'managed' || mode === 'byo');
  return telephonyModeOf(modes);
}
