/** The tenant's standing API-source attestation (shared/repositories/attestations.ts): created once, both items only if absent. */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { contactKeys } from '../../../shared/db/keys.js';
import { ensureApiAttestation } from '../../../shared/repositories/attestations.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

/** The instant the caller hands the store. */
const AT = new Date('2026-03-01T12:00:00.000Z');

const table = memoryTable();
beforeEach(() => table.reset());
// The store keeps an attestation per tenant for the container's life: each test its own tenant.
const tenant = (n: number) => `ten_01JAAAAAAAAAAAAAAAAAAAAAA${n}`;

describe('ensureApiAttestation', () => {
  it('creates the pointer and the attestation together, then answers it from memory', async () => {
    const T = tenant(1);
    const a = await ensureApiAttestation(T, AT);
    expect(a).toMatchObject({ source: 'api', import_id: null, signer_name: null });
    expect(a.id).toMatch(/^ata_/);
    const [tx] = inputsOf(TransactWriteCommand);
    expect(tx!.TransactItems.map((i: { Put: { ConditionExpression: string } }) => i.Put.ConditionExpression)).toEqual([
      'attribute_not_exists(pk)',
      'attribute_not_exists(pk)',
    ]);
    expect(table.get(contactKeys.apiAttestation(T))).toMatchObject({ type: 'attestation_pointer', attestation: a });
    expect(table.get(contactKeys.attestation(T, a.id))).toMatchObject({ type: 'attestation', id: a.id });
    table.forgetSent();
    expect(await ensureApiAttestation(T, AT)).toEqual(a);
    expect(table.sent).toEqual([]);
  });

  it('reuses the one already stored, strongly consistent, without writing', async () => {
    const T = tenant(2);
    const stored = {
      id: 'ata_01JCCCCCCCCCCCCCCCCCCCCCCC',
      source: 'api',
      import_id: null,
      signer_name: null,
      signer_title: null,
      affirmation: 'a',
      created_at: 'c',
    };
    table.put({ ...contactKeys.apiAttestation(T), attestation: stored });
    expect(await ensureApiAttestation(T, AT)).toEqual(stored);
    expect(inputsOf(GetCommand)[0]!.ConsistentRead).toBe(true);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
  });

  it('a concurrent creator wins: its attestation is read back and used', async () => {
    const T = tenant(3);
    const theirs = { id: 'ata_01JCCCCCCCCCCCCCCCCCCCCCCC', source: 'api' };
    ddb
      .on(GetCommand)
      .resolvesOnce({})
      .resolves({ Item: { attestation: theirs } });
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    expect(await ensureApiAttestation(T, AT)).toEqual(theirs);
  });

  it('rethrows other errors', async () => {
    ddb.on(TransactWriteCommand).rejects(new Error('throttled'));
    await expect(ensureApiAttestation(tenant(4), AT)).rejects.toThrow('throttled');
  });
});
