/**
 * Why an import row's write failed: the row's own fault (it can never be stored as given)
 * or the infrastructure's (throttling, the network, the service, credentials). The first
 * rejects that row with a reason and the import goes on; the second stops the run and
 * fails the job with its exact partial counts (docs/imports.md "Row failures").
 *
 * A row's own fault, and only these:
 *  - DynamoDB's ValidationException, or a transaction cancelled with a ValidationError
 *    reason: the item would pass 400 KB, a value it cannot hold, …;
 *  - the SDK's marshaller refusing a value before anything is sent (an Error with no
 *    service metadata), confirmed by marshalling the row's items again with the client's
 *    own options — so a programming error is never mistaken for a bad row.
 * Anything else that is not recognised stays a fault of the run (never silently a
 * rejected row).
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { db } from '../db/client.js';
import type { TransactItem } from '../repositories/contacts.js';

/** A row that cannot be stored as given: rejected with this reason (field null: the row as a whole). */
export class RowRefused extends Error {
  constructor(
    readonly type: string,
    msg: string,
    readonly field: string | null = null,
  ) {
    super(msg);
  }
}

interface AwsLikeError {
  name?: string;
  message?: string;
  code?: unknown;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: { Code?: string; Message?: string }[];
}

/** Errors that say nothing about the row: the same write would succeed later, or never for any row. */
const INFRASTRUCTURE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'TransactionInProgressException',
  'InternalServerError',
  'ServiceUnavailable',
  'ResourceNotFoundException',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'CredentialsProviderError',
  'TimeoutError',
  'AbortError',
]);
const INFRASTRUCTURE_CANCELLATIONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);

/** True for a fault of the service, the network or the environment: no row is to blame. */
export function isInfrastructureFault(err: unknown): boolean {
  const e = (err ?? {}) as AwsLikeError;
  if (e.name && INFRASTRUCTURE.has(e.name)) return true;
  if (e.$fault === 'server' || (e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  // Sent but never answered (connection reset, DNS, timeout): the SDK attached metadata, no status.
  if (e.$metadata && e.$metadata.httpStatusCode === undefined) return true;
  if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return true; // ECONNRESET, ETIMEDOUT, …
  return (e.CancellationReasons ?? []).some((r) => r.Code !== undefined && INFRASTRUCTURE_CANCELLATIONS.has(r.Code));
}

const tooLarge = (message: string) => /size/i.test(message);

/** DynamoDB refused the row's items. */
const refusal = (message: string): RowRefused =>
  tooLarge(message)
    ? new RowRefused('item_too_large', `The row could not be stored: the contact would pass DynamoDB's 400 KB item limit (${message})`)
    : new RowRefused('row_unstorable', `The row could not be stored: DynamoDB refused a value (${message})`);

/** The SDK marshaller's error for these items, if it refuses them (nothing is sent then). */
function marshallingError(items: readonly TransactItem[]): Error | undefined {
  const options = db().config.translateConfig?.marshallOptions;
  try {
    for (const item of items) marshall(item as Record<string, unknown>, options);
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

/** The row's own reason for a failed write of `items`, or undefined when the row is not to blame. */
export function rowRefusal(err: unknown, items: readonly TransactItem[]): RowRefused | undefined {
  if (err instanceof RowRefused) return err;
  const e = (err ?? {}) as AwsLikeError;
  if (isInfrastructureFault(err)) return undefined;
  if (e.name === 'ValidationException') return refusal(e.message ?? 'invalid item');
  const validation = (e.CancellationReasons ?? []).find((r) => r.Code === 'ValidationError');
  if (validation) return refusal(validation.Message ?? 'invalid item');
  // The marshaller throws plain Errors (never our domain subclasses) before the request exists.
  const plain = err instanceof Error && (Object.getPrototypeOf(err) === Error.prototype || err instanceof TypeError);
  if (plain && !e.$metadata) {
    const marshalling = marshallingError(items);
    if (marshalling) return new RowRefused('row_unstorable', 'The row could not be stored: one of its values or attribute keys cannot be saved as given');
  }
  return undefined;
}

/** Run one row's write; a failure that is the row's own becomes RowRefused, anything else is rethrown. */
export async function refusingRow<T>(items: readonly TransactItem[], write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw rowRefusal(err, items) ?? err;
  }
}
