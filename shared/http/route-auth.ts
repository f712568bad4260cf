/**
 * How a route's caller is proven, one module per manifest auth mode (shared/http/auth/):
 * a handler imports the mode its manifest entry names and hands it to `defineRoute`, so its
 * bundle carries that mode's credential check and no other.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { ItemKey, ItemsByKey } from '../db/batch-get.js';
import type { AuthMode, RouteDefinition } from '../routes.js';

/**
 * A route's reads that the work will make whatever it finds, started with the credential's
 * own so their round trips overlap: items to read in the credential's BatchGetItem (`keys`)
 * and reads of its own (in `handle`). Given the tenant the credential names and the JSON body
 * as sent (unvalidated: undefined when it does not parse). It must not throw, and must catch
 * its own promises: a refused caller's are never awaited.
 */
export type EarlyStart<E> = (tenantId: string, body: unknown) => { handle: E; keys?: readonly ItemKey[] } | undefined;

/** What `early` started, handed to the work only once the credential is proven. */
export interface Early<E> {
  handle: E;
  items: ItemsByKey;
}

/** What a mode proved: the request fields it adds, and the caller's role when it holds one (checked against the route's roles). */
export interface Proof<P extends object> {
  fields: P;
  role?: string;
  /** The route's idempotency record, read with the credential (bearer `in_transaction` routes that sent a key). */
  idempotencyRecord?: { item: Record<string, unknown> | undefined };
  /** What the route's `early` started beside the credential's read (modes that support it). */
  early?: Early<unknown>;
}

export interface RouteAuth<P extends object> {
  /** The manifest modes this module proves; a route whose entry names another refuses to load. */
  readonly modes: readonly AuthMode[];
  /**
   * Runs before the body is read. `inTransaction`: the route takes its Idempotency-Key in its one
   * transaction. `early`: the route's reads to start beside the credential's (a mode that cannot
   * ignores it, and the work reads as it would without).
   */
  prove(route: RouteDefinition, event: APIGatewayProxyEventV2, opts: { inTransaction: boolean; early?: EarlyStart<unknown> }): Promise<Proof<P>>;
}
