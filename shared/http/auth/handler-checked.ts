/**
 * Modes the factory proves nothing for: `none` (public), and the carrier and provider
 * signatures (`sandbox_basic`, `twilio_signature`, `stripe_signature`), which the handler
 * checks before it reads anything, because the credential to check against depends on what
 * the request names.
 */
import type { RouteAuth } from '../route-auth.js';

export const handlerChecked: RouteAuth<Record<never, never>> = {
  modes: ['none', 'sandbox_basic', 'twilio_signature', 'stripe_signature'],
  async prove() {
    return { fields: {} };
  },
};
