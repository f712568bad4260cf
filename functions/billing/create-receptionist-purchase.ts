import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineRoute } from '../../shared/http/route.js';
import { purchaseReceptionistConnections } from '../../shared/repositories/receptionist-purchases.js';
import { purchaseContendedError, receptionistPurchaseRequest, receptionistPurchaseResponse } from '../../shared/schemas/billing.js';

/**
 * POST /v1/subscription/receptionist-purchases (admin; Idempotency-Key required) — prices
 * the connections on the tenant's plan and adds them to the subscription (201). 409
 * `purchase_contended` when concurrent purchases changed the account under every attempt
 * (nothing bought; safe to send again); 409 `subscription_canceled` once the subscription
 * is canceled (nothing bought).
 */
export const handler = defineRoute(
  'createReceptionistPurchase',
  bearer,
  { body: receptionistPurchaseRequest, responses: { 201: receptionistPurchaseResponse, 409: purchaseContendedError } },
  async ({ principal, body }) => ({
    status: 201,
    body: await purchaseReceptionistConnections(principal.tenantId, body.receptionist_connections, now()),
  }),
);
