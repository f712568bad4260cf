import { bearer } from '../../shared/http/auth/bearer.js';
import { accepted } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { manifestEntry } from '../../shared/http/route-core.js';
import { prepareImport, runImport } from '../../shared/imports/run-import.js';
import { presentImportJob } from '../../shared/repositories/import-jobs.js';
import { contactImportRequest, importJobResource } from '../../shared/schemas/imports.js';

/** Rows stop this long before the function's timeout, so the job still ends in a written state. */
const SAFETY_MARGIN_MS = 4_000;
const timeoutMs = (manifestEntry('createContactImport').timeoutSeconds ?? 29) * 1000;

/**
 * POST /v1/contact-imports — runs the whole import inside the request and answers 202
 * with the job already terminal (the contract). Everything that can make the request a
 * 422 (body, CSV, mapped headers, target list) is checked before the first write.
 * consent_attestation.signer_ip and signed_at are stamped here, never read from the body.
 */
export const handler = defineRoute(
  'createContactImport',
  bearer,
  { body: contactImportRequest, responses: { 202: importJobResource } },
  async ({ principal, body, sourceIp }) => {
    const started = Date.now();
    const prepared = await prepareImport(principal.tenantId, body);
    const job = await runImport(prepared, { sourceIp, deadline: new Date(started + timeoutMs - SAFETY_MARGIN_MS) });
    return accepted(presentImportJob(job, new Date()));
  },
);
