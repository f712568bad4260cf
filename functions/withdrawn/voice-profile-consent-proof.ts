import * as z from 'zod';
import { gone } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineRoute } from '../../shared/http/route.js';
import { errorSchema } from '../../shared/schemas/common.js';

/** POST /v1/voice-profiles/{profile_id}/consent-proof — withdrawn: always 410, writes nothing. */
export const handler = defineRoute(
  'submitVoiceProfileConsentProof',
  bearer,
  { path: z.object({ profile_id: z.string() }), responses: { 410: errorSchema } },
  async () => {
    throw gone('Voice profile consent releases are withdrawn and no longer accepted');
  },
);
