import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getReceptionistPurchase } from '../../shared/repositories/receptionist-purchases.js';
import { purchasePath, receptionistPurchaseResponse } from '../../shared/schemas/billing.js';

/** GET /v1/subscription/receptionist-purchases/{purchase_id} — ReceptionistPurchaseResponse; another tenant's id is a 404. */
export const handler = defineRoute(
  'getReceptionistPurchase',
  bearer,
  { path: purchasePath, responses: { 200: receptionistPurchaseResponse } },
  async ({ principal, path }) => {
    const purchase = await getReceptionistPurchase(principal.tenantId, path.purchase_id);
    if (!purchase) throw notFound('Receptionist purchase');
    return ok(purchase);
  },
);
