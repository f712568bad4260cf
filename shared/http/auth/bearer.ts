/** `bearer`: a tenant API key (shared/auth/authenticate.ts). */
import { authenticate, type Principal } from '../../auth/authenticate.js';
import { logger } from '../../observability.js';
import { prefetchKey, requestKey } from '../idempotency.js';
import type { RouteAuth } from '../route-auth.js';

export const bearer: RouteAuth<{ principal: Principal }> = {
  modes: ['bearer'],
  async prove(route, event, { inTransaction }) {
    // An in_transaction route's idempotency record is read with the credential (used only once the key is proven).
    const key = inTransaction ? requestKey(route, event.headers) : undefined;
    const { principal, also } = await authenticate(
      event.headers?.authorization,
      key === undefined ? undefined : (tenantId) => prefetchKey(route, tenantId, key),
    );
    logger.appendKeys({ tenant_id: principal.tenantId, api_key_id: principal.keyId });
    return { fields: { principal }, role: principal.role, ...(key === undefined ? {} : { idempotencyRecord: { item: also } }) };
  },
};
