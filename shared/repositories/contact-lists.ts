/**
 * Contact lists (campaigns target them later). A list and its name guard are written in
 * one transaction, so a name is unique within a tenant, case-insensitively (the guard's
 * key is the trimmed, lower-cased name). Membership items are written by the contact
 * transactions themselves (contacts.listMemberPut).
 */
import { GetCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { contactKeys } from '../db/keys.js';
import { queryAll } from '../db/query.js';
import { isId, newId } from '../ids.js';

export interface ContactList {
  id: string;
  name: string;
  created_at: string;
}

export class ListNameTaken extends Error {
  constructor(readonly listName: string) {
    super(`a contact list named '${listName}' already exists`);
  }
}

const T = () => tableName();

export async function getList(tenantId: string, listId: string): Promise<ContactList | undefined> {
  if (!isId(listId)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: T(), Key: contactKeys.list(tenantId, listId), ConsistentRead: true }));
  if (!out.Item || out.Item.type !== 'contact_list') return undefined;
  const { id, name, created_at } = out.Item as ContactList;
  return { id, name, created_at };
}

/** The tenant's list with this name, compared case-insensitively. */
export async function findListByName(tenantId: string, name: string): Promise<ContactList | undefined> {
  const guard = await db().send(new GetCommand({ TableName: T(), Key: contactKeys.listName(tenantId, name), ConsistentRead: true }));
  const listId = guard.Item?.list_id as string | undefined;
  return listId ? getList(tenantId, listId) : undefined;
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A new list (not yet written). */
export const newList = (name: string, at: Date): ContactList => ({ id: newId('lst'), name: name.trim(), created_at: at.toISOString() });

/**
 * The transaction items that create a list: its name guard first (conditional: the name is
 * free), then the list. Written alone (createList) or with other items (an import's job).
 */
export function newListItems(tenantId: string, list: ContactList): TransactItem[] {
  return [
    {
      Put: {
        TableName: T(),
        Item: { ...contactKeys.listName(tenantId, list.name), type: 'contact_list_name', list_id: list.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: T(),
        Item: { ...contactKeys.list(tenantId, list.id), type: 'contact_list', tenant_id: tenantId, ...list },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/** ListNameTaken when a transaction that began with `offset` other items was cancelled on the list's name guard. */
export function nameTakenOrSelf(err: unknown, list: ContactList, offset = 0): unknown {
  const reasons = (err as { name?: string; CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  if ((err as Error).name === 'TransactionCanceledException' && reasons?.[offset]?.Code === 'ConditionalCheckFailed') return new ListNameTaken(list.name);
  return err;
}

/** Create a list; ListNameTaken when the tenant already has one by that name. */
export async function createList(tenantId: string, name: string, at: Date): Promise<ContactList> {
  const list = newList(name, at);
  try {
    await db().send(new TransactWriteCommand({ TransactItems: newListItems(tenantId, list) }));
  } catch (err) {
    throw nameTakenOrSelf(err, list);
  }
  return list;
}

/**
 * The tenant's list with this name, created when there is none. Two requests racing to
 * create the same name both end with the same list: the loser reads the winner's.
 */
export async function findOrCreateListByName(tenantId: string, name: string, at: Date): Promise<{ list: ContactList; created: boolean }> {
  const found = await findListByName(tenantId, name);
  if (found) return { list: found, created: false };
  try {
    return { list: await createList(tenantId, name, at), created: true };
  } catch (err) {
    if (!(err instanceof ListNameTaken)) throw err;
    const winner = await findListByName(tenantId, name);
    if (!winner) throw err;
    return { list: winner, created: false };
  }
}

/** Ids of a list's members (gsi1: `TENANT#<t>#LIST#<lst>#MEMBERS`), oldest first. */
export async function listMemberIds(tenantId: string, listId: string): Promise<string[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': contactKeys.listMembersIndexPartition(tenantId, listId) },
  });
  return items.map((item) => item.contact_id as string);
}

/** One page of a list's members from `cursor` (a campaign's scrub resumes where it stopped): their ids and the next cursor (null: the end). */
export async function listMembersPage(
  tenantId: string,
  listId: string,
  cursor: Record<string, unknown> | null,
  limit: number,
): Promise<{ ids: string[]; next: Record<string, unknown> | null }> {
  const out = await db().send(
    new QueryCommand({
      TableName: T(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': contactKeys.listMembersIndexPartition(tenantId, listId) },
      ExclusiveStartKey: cursor ?? undefined,
      Limit: limit,
    }),
  );
  return { ids: (out.Items ?? []).map((i) => i.contact_id as string), next: (out.LastEvaluatedKey as Record<string, unknown> | undefined) ?? null };
}
