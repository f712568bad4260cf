/** Queue message bodies. Producers and workers share these so they cannot drift. */
import * as z from 'zod';

export const callDispatchMessage = z.object({
  type: z.literal('call.dispatch'),
  tenant_id: z.string().min(1),
  attempt_id: z.string().min(1),
});

export const webhookDeliveryMessage = z.object({
  type: z.literal('webhook.deliver'),
  tenant_id: z.string().min(1),
  event_id: z.string().min(1),
});
