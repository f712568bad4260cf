/** `bearer`: a tenant API key (shared/auth/authenticate.ts). */
import { authenticate, type Principal } from '../../auth/authenticate.js';
import { type ItemKey, itemAt, pickItems } from '../../db/batch-get.js';
import { logger } from '../../observability.js';
import { prefetchKey, requestKey } from '../idempotency.js';
import type { RouteAuth } from '../route-auth.js';
import { startEarly } from './early.js';

export const bearer: RouteAuth<{ principal: Principal }> = {
  modes: ['bearer'],
  async prove(route, event, { inTransaction, early }) {
    // An in_transaction route's idempotency record and the route's early items are read with the
    // credential, in its one BatchGetItem (used only once the key is proven).
    const key = inTransaction ? requestKey(route, event.headers) : undefined;
    let started: ReturnType<typeof startEarly>;
    let record: ItemKey | undefined;
    const { principal, also } = await authenticate(event.headers?.authorization, (tenantId) => {
      started = startEarly(early, tenantId, event);
      record = key === undefined ? undefined : prefetchKey(route, tenantId, key);
      return [...(record ? [record] : []), ...(started?.keys ?? [])];
    });
    logger.appendKeys({ tenant_id: principal.tenantId, api_key_id: principal.keyId });
    return {
      fields: { principal },
      role: principal.role,
      ...(record ? { idempotencyRecord: { item: itemAt(also, record) } } : {}),
      ...(started ? { early: { handle: started.handle, items: pickItems(also, started.keys ?? []) } } : {}),
    };
  },
};
