/**
 * Consent attestations: who vouches for a consent record. API-created consents link to
 * the tenant's standing API-source attestation, which the server creates and owns (a
 * caller can never name one); each import gets its own, from its signed request.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { contactKeys } from '../db/keys.js';
import { ID_PREFIX, newId } from '../ids.js';

export interface Attestation {
  id: string;
  source: 'api' | 'import';
  import_id: string | null;
  signer_name: string | null;
  signer_title: string | null;
  affirmation: string;
  created_at: string;
}

const API_SOURCE_AFFIRMATION =
  'The tenant affirms, by its authenticated API credential, that each consent it submits was captured as described by its evidence.';

export const attestationItem = (tenantId: string, a: Attestation) => ({ ...contactKeys.attestation(tenantId, a.id), type: 'attestation', ...a });

/** Immutable once created, so a per-container cache is safe. */
const standing = new Map<string, Attestation>();

export async function ensureApiAttestation(tenantId: string, at: Date): Promise<Attestation> {
  const cached = standing.get(tenantId);
  if (cached) return cached;
  const read = async () =>
    (await db().send(new GetCommand({ TableName: tableName(), Key: contactKeys.apiAttestation(tenantId), ConsistentRead: true }))).Item?.attestation as
      | Attestation
      | undefined;
  let found = await read();
  if (!found) {
    const created: Attestation = {
      id: newId(ID_PREFIX.attestation),
      source: 'api',
      import_id: null,
      signer_name: null,
      signer_title: null,
      affirmation: API_SOURCE_AFFIRMATION,
      created_at: at.toISOString(),
    };
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName(),
                Item: { ...contactKeys.apiAttestation(tenantId), type: 'attestation_pointer', attestation: created },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: tableName(), Item: attestationItem(tenantId, created), ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
      found = created;
    } catch (err) {
      // Another request created it first: use theirs.
      if (!(err instanceof ConditionalCheckFailedException) && (err as Error).name !== 'TransactionCanceledException') throw err;
      found = await read();
      if (!found) throw err;
    }
  }
  standing.set(tenantId, found);
  return found;
}
