/**
 * How a route's caller is proven, one module per manifest auth mode (shared/http/auth/):
 * a handler imports the mode its manifest entry names and hands it to `defineRoute`, so its
 * bundle carries that mode's credential check and no other.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { AuthMode, RouteDefinition } from '../routes.js';

/** What a mode proved: the request fields it adds, and the caller's role when it holds one (checked against the route's roles). */
export interface Proof<P extends object> {
  fields: P;
  role?: string;
  /** The route's idempotency record, read with the credential (bearer `in_transaction` routes that sent a key). */
  idempotencyRecord?: { item: Record<string, unknown> | undefined };
}

export interface RouteAuth<P extends object> {
  /** The manifest modes this module proves; a route whose entry names another refuses to load. */
  readonly modes: readonly AuthMode[];
  /** Runs before the body is read. `inTransaction`: the route takes its Idempotency-Key in its one transaction. */
  prove(route: RouteDefinition, event: APIGatewayProxyEventV2, opts: { inTransaction: boolean }): Promise<Proof<P>>;
}
