/**
 * The route manifest: the single list of HTTP endpoints.
 *
 * It drives the CDK routes (one Lambda per entry), the local runtime's router, the
 * OpenAPI document and the test that walks every route. Adding an endpoint means one
 * entry here plus its handler file under functions/ (which declares its own schemas).
 *
 * Pure data only: handlers import this file to learn their own auth/idempotency mode,
 * so nothing here may pull CDK or the AWS SDK into a function bundle.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * bearer = tenant API key; none = public;
 * sandbox_basic = the sandbox carrier's Basic auth (a sandbox account SID and auth token, as Twilio);
 * twilio_signature = a carrier callback, proven by X-Twilio-Signature with the auth token of
 * the account that owns the called number (shared/telephony/carrier-request.ts).
 * Both carrier-side modes are checked by the handler before it touches data: the credential
 * to check against depends on what the request names.
 * stream_token = the voice runtime: `Authorization: Bearer <Stream token>`, the signed call token
 * our TwiML handed over, valid only for the call named by the path's {call_id}
 * (shared/auth/stream-token.ts; checked by the route factory before anything is read).
 *
 * Dashboard (see docs/decisions/auth-and-sessions.md; shared/sessions/authenticate-session.ts, session-rules.ts):
 * session = the dashboard session cookie (`__Host-vac_session`); an Authorization header is
 * refused (401); POST/PUT/PATCH/DELETE also need `Origin` = DASHBOARD_ORIGIN (else 403).
 * dashboard_origin = no credential yet (signing in): `Origin` = DASHBOARD_ORIGIN on every
 * state-changing request (login CSRF), no Authorization header.
 * portal_origin = the one-use token in the body is the credential (the emailed deletion
 * proof, opened on any device): `Origin` = PORTAL_ORIGIN (the service's own portal), checked
 * before anything is read, so a refused request leaves the token unspent.
 *
 * stripe_signature = the payment provider's webhooks (see docs/decisions/billing.md), proven by Stripe-Signature over
 * the raw body with the deployment's webhook secret; checked by the handler before it reads anything.
 */
export type AuthMode = 'none' | 'bearer' | 'sandbox_basic' | 'twilio_signature' | 'stream_token' | 'session' | 'dashboard_origin' | 'portal_origin' | 'stripe_signature';
/** json (default) = application/json; form = application/x-www-form-urlencoded, as carriers post. */
type BodyFormat = 'json' | 'form';
type IdempotencyMode = 'required' | 'optional' | 'none';
/** What the function may do to the table; drives its IAM grant. */
export type TableAccess = 'none' | 'read' | 'write';
type Role = 'admin' | 'manager' | 'member';
/**
 * The auth modes whose caller holds a role (a tenant API key, a signed-in dashboard user).
 * Their routes must name the roles allowed (no default: a new route cannot forget); the
 * other modes prove a carrier, a call, a provider or nothing, and carry no role.
 */
type RoleAuthMode = 'bearer' | 'session';

interface RouteFields {
  /** Stable operation id: OpenAPI operationId, CDK construct id, idempotency scope. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path template, e.g. /v1/api-keys/{key_id}. */
  readonly path: string;
  /** Handler module path relative to the repo root, without extension; exports `handler`. */
  readonly handler: string;
  readonly bodyFormat?: BodyFormat;
  readonly idempotency: IdempotencyMode;
  readonly table: TableAccess;
  /** Extra grants beyond the table. */
  readonly bucket?: 'read' | 'write';
  readonly queues?: readonly ('callDispatch' | 'callAnalysis' | 'webhookDelivery' | 'sandboxTimeline')[];
  /** Rights on the key that seals other parties' secrets (shared/crypto/secret-box.ts). */
  readonly kms?: 'encrypt' | 'decrypt' | 'encrypt_decrypt';
  /** Sends mail (shared/mail/): SES on AWS (send grant + MAIL_FROM), the mail sink locally. */
  readonly mail?: boolean;
  /** Hashes or verifies passwords: Argon2id's native module ships with the bundle (infra/bundling.ts). */
  readonly passwords?: boolean;
  readonly summary: string;
  readonly tag: string;
  readonly deprecated?: boolean;
  /** Lambda timeout override (seconds). */
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
}

/**
 * A route whose caller holds a role. `roles` is the role matrix (see
 * docs/decisions/auth-and-sessions.md): the factory answers 403 to any other role before
 * the body is parsed or anything is read, and the OpenAPI document shows it (`x-roles`).
 */
interface RoleRoute extends RouteFields {
  readonly auth: RoleAuthMode;
  readonly roles: readonly [Role, ...Role[]];
}

interface RolelessRoute extends RouteFields {
  readonly auth: Exclude<AuthMode, RoleAuthMode>;
  readonly roles?: never;
}

export type RouteDefinition = RoleRoute | RolelessRoute;

export const routes = [
  // Operations
  { id: 'getHealth', method: 'GET', path: '/healthz', handler: 'functions/ops/healthz', auth: 'none', idempotency: 'none', table: 'none', summary: 'Liveness', tag: 'Operations' },
  { id: 'getReadiness', method: 'GET', path: '/readyz', handler: 'functions/ops/readyz', auth: 'none', idempotency: 'none', table: 'read', summary: 'Readiness: the table answers and the isolation checks hold', tag: 'Operations' },
  { id: 'getOpenApi', method: 'GET', path: '/openapi.json', handler: 'functions/ops/openapi', auth: 'none', idempotency: 'none', table: 'none', summary: 'This OpenAPI document', tag: 'Operations' },

  // Dashboard sessions and account deletion (see docs/decisions/auth-and-sessions.md): cookie routes, not API keys
  { id: 'createSession', method: 'POST', path: '/v1/sessions', handler: 'functions/sessions/create-session', auth: 'dashboard_origin', idempotency: 'none', table: 'write', passwords: true, summary: 'Sign in to the dashboard with email and password: 204 with the session cookie (wrong email or password: the same 401; throttled per account and source)', tag: 'Dashboard' },
  { id: 'deleteSession', method: 'DELETE', path: '/v1/sessions', handler: 'functions/sessions/delete-session', auth: 'session', idempotency: 'none', table: 'write', roles: ['admin', 'manager', 'member'], summary: 'Sign out: the session is revoked and the cookie cleared', tag: 'Dashboard' },
  { id: 'createEmailSignInLink', method: 'POST', path: '/v1/sessions/email-link', handler: 'functions/sessions/create-email-link', auth: 'dashboard_origin', idempotency: 'none', table: 'write', mail: true, summary: 'Email a one-use sign-in link to a verified mailbox (202, the same answer for unknown emails)', tag: 'Dashboard' },
  { id: 'confirmEmailSignInLink', method: 'POST', path: '/v1/sessions/email-link/confirm', handler: 'functions/sessions/confirm-email-link', auth: 'dashboard_origin', idempotency: 'none', table: 'write', summary: 'Spend a one-use sign-in link: 204 with the session cookie', tag: 'Dashboard' },
  { id: 'getAccountDeletion', method: 'GET', path: '/v1/account-deletion', handler: 'functions/account-deletion/get-account-deletion', auth: 'session', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "What deleting this account would remove, and the protected request's status", tag: 'Account deletion' },
  { id: 'createAccountDeletionRequest', method: 'POST', path: '/v1/account-deletion/requests', handler: 'functions/account-deletion/create-deletion-request', auth: 'session', idempotency: 'none', table: 'write', roles: ['admin'], passwords: true, summary: 'Request (or reconfirm) the deletion with a fresh password and the phrase `delete <tenant name>`; runs after a 14-day grace period', tag: 'Account deletion' },
  { id: 'cancelAccountDeletionRequest', method: 'DELETE', path: '/v1/account-deletion/requests', handler: 'functions/account-deletion/cancel-deletion-request', auth: 'session', idempotency: 'none', table: 'write', roles: ['admin'], passwords: true, summary: 'Cancel a pending deletion during the grace period (a password account re-enters its password)', tag: 'Account deletion' },
  { id: 'createAccountDeletionEmailConfirmation', method: 'POST', path: '/v1/account-deletion/email-confirmations', handler: 'functions/account-deletion/create-email-confirmation', auth: 'session', idempotency: 'none', table: 'write', roles: ['admin'], mail: true, summary: "Passwordless accounts: email a fresh one-use proof (30 minutes) to the signed-in admin's verified mailbox", tag: 'Account deletion' },
  { id: 'confirmAccountDeletionEmailConfirmation', method: 'POST', path: '/v1/account-deletion/email-confirmations/confirm', handler: 'functions/account-deletion/confirm-email-confirmation', auth: 'portal_origin', idempotency: 'none', table: 'write', summary: 'Spend an emailed proof (no cookie; Origin must be the portal): creates or reconfirms the deletion request', tag: 'Account deletion' },

  // Identity
  { id: 'getMe', method: 'GET', path: '/v1/me', handler: 'functions/identity/get-me', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'The authenticated principal and its tenant', tag: 'Identity' },
  { id: 'listUsers', method: 'GET', path: '/v1/users', handler: 'functions/identity/list-users', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read-only directory of tenant users', tag: 'Identity' },
  { id: 'listApiKeys', method: 'GET', path: '/v1/api-keys', handler: 'functions/identity/list-api-keys', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin'], summary: 'List API keys (never their secrets)', tag: 'Identity' },
  { id: 'createApiKey', method: 'POST', path: '/v1/api-keys', handler: 'functions/identity/create-api-key', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], summary: 'Create an API key; the secret is returned once', tag: 'Identity' },
  { id: 'rotateApiKey', method: 'POST', path: '/v1/api-keys/{key_id}/rotate', handler: 'functions/identity/rotate-api-key', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], summary: 'Retire a key and mint its replacement in one transaction', tag: 'Identity' },

  // Contacts and consent
  { id: 'createContact', method: 'POST', path: '/v1/contacts', handler: 'functions/contacts/create-contact', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager', 'member'], summary: 'Create a contact together with its consent record', tag: 'Contacts' },
  { id: 'listContacts', method: 'GET', path: '/v1/contacts', handler: 'functions/contacts/list-contacts', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List contacts, newest first', tag: 'Contacts' },
  { id: 'getContact', method: 'GET', path: '/v1/contacts/{contact_id}', handler: 'functions/contacts/get-contact', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a contact', tag: 'Contacts' },
  { id: 'listContactConsents', method: 'GET', path: '/v1/contacts/{contact_id}/consents', handler: 'functions/contacts/list-contact-consents', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "A contact's consent records with evidence and attestation (audit)", tag: 'Contacts' },
  { id: 'createContactImport', method: 'POST', path: '/v1/contact-imports', handler: 'functions/contacts/create-contact-import', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager', 'member'], bucket: 'write', timeoutSeconds: 29, memoryMb: 1024, summary: 'Import contacts from CSV (runs inside the request; answers 202 with a terminal job)', tag: 'Contacts' },
  { id: 'listContactImports', method: 'GET', path: '/v1/contact-imports', handler: 'functions/contacts/list-contact-imports', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Import history, newest first', tag: 'Contacts' },
  { id: 'getContactImport', method: 'GET', path: '/v1/contact-imports/{import_id}', handler: 'functions/contacts/get-contact-import', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read an import job, with its row-level rejections', tag: 'Contacts' },

  // Agents and templates
  { id: 'listTemplates', method: 'GET', path: '/v1/templates', handler: 'functions/templates/list-templates', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List the platform templates', tag: 'Agents' },
  { id: 'getTemplate', method: 'GET', path: '/v1/templates/{template_id}', handler: 'functions/templates/get-template', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a template with its objectives (?version=N for an earlier version)', tag: 'Agents' },
  { id: 'instantiateTemplate', method: 'POST', path: '/v1/templates/{template_id}/instantiate', handler: 'functions/templates/instantiate-template', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Create a draft agent from a published template', tag: 'Agents' },
  { id: 'listAgents', method: 'GET', path: '/v1/agents', handler: 'functions/agents/list-agents', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List agents, newest first', tag: 'Agents' },
  { id: 'getAgent', method: 'GET', path: '/v1/agents/{agent_id}', handler: 'functions/agents/get-agent', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "Read an agent's definition (its editable draft)", tag: 'Agents' },
  { id: 'updateAgent', method: 'PATCH', path: '/v1/agents/{agent_id}', handler: 'functions/agents/update-agent', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Edit the draft (published versions never change)', tag: 'Agents' },
  { id: 'publishAgent', method: 'POST', path: '/v1/agents/{agent_id}/publish', handler: 'functions/agents/publish-agent', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager'], summary: 'Publish the draft as the next immutable version', tag: 'Agents' },
  { id: 'listAgentVersions', method: 'GET', path: '/v1/agents/{agent_id}/versions', handler: 'functions/agents/list-agent-versions', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "An agent's published versions, newest first", tag: 'Agents' },
  { id: 'getAgentVersion', method: 'GET', path: '/v1/agent-versions/{version_id}', handler: 'functions/agents/get-agent-version', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read an immutable published agent version', tag: 'Agents' },

  // Compliance profiles and reps (beyond the spec: what agents are judged by and transfer to)
  { id: 'createComplianceProfile', method: 'POST', path: '/v1/compliance-profiles', handler: 'functions/compliance-profiles/create-compliance-profile', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Create a compliance profile', tag: 'Compliance' },
  { id: 'listComplianceProfiles', method: 'GET', path: '/v1/compliance-profiles', handler: 'functions/compliance-profiles/list-compliance-profiles', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List compliance profiles, newest first', tag: 'Compliance' },
  { id: 'getComplianceProfile', method: 'GET', path: '/v1/compliance-profiles/{profile_id}', handler: 'functions/compliance-profiles/get-compliance-profile', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a compliance profile', tag: 'Compliance' },
  { id: 'updateComplianceProfile', method: 'PATCH', path: '/v1/compliance-profiles/{profile_id}', handler: 'functions/compliance-profiles/update-compliance-profile', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Change a compliance profile (published agent versions keep their frozen copy)', tag: 'Compliance' },
  { id: 'createSuppression', method: 'POST', path: '/v1/suppressions', handler: 'functions/suppressions/create-suppression', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager', 'member'], summary: "Suppress a number (the tenant's internal do-not-call list; its contact's do_not_call becomes true)", tag: 'Compliance' },
  { id: 'listSuppressions', method: 'GET', path: '/v1/suppressions', handler: 'functions/suppressions/list-suppressions', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List suppression entries, active and lifted, newest first', tag: 'Compliance' },
  { id: 'liftSuppression', method: 'DELETE', path: '/v1/suppressions/{phone_e164}', handler: 'functions/suppressions/lift-suppression', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], summary: 'Lift a suppression (kept as history; body {note} required)', tag: 'Compliance' },
  { id: 'queueCall', method: 'POST', path: '/v1/calls', handler: 'functions/calls/queue-call', auth: 'bearer', idempotency: 'required', table: 'write', roles: ['admin', 'manager', 'member'], queues: ['callDispatch', 'callAnalysis'], summary: 'Queue one call: judged by compliance now, dialled when allowed (at most once), or disposed when blocked; the attempt, its call, decision, events and idempotency result are one transaction', tag: 'Calls' },
  { id: 'listCalls', method: 'GET', path: '/v1/calls', handler: 'functions/calls/list-calls', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List calls (outbound and inbound), newest first; filters state, disposition, direction, contact_id, created_at, idempotency_key', tag: 'Calls' },
  { id: 'getCall', method: 'GET', path: '/v1/calls/{call_id}', handler: 'functions/calls/get-call', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a call: state, disposition, recorded responses, conversation actions, analysis', tag: 'Calls' },
  { id: 'getCallTranscript', method: 'GET', path: '/v1/calls/{call_id}/transcript', handler: 'functions/calls/get-call-transcript', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "A call's transcript: its turns in order (the disclosure greeting first), with the agent's latency, interruptions and model; cursor-paged", tag: 'Calls' },
  { id: 'cancelCall', method: 'POST', path: '/v1/calls/{call_id}/cancel', handler: 'functions/calls/cancel-call', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager', 'member'], queues: ['callAnalysis'], summary: 'Cancel a call before it is dialled (409 call_not_cancellable after); idempotent', tag: 'Calls' },
  { id: 'preflightCall', method: 'POST', path: '/v1/calls/preflight', handler: 'functions/calls/preflight-call', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Judge a call before queuing it: the compliance decision POST /v1/calls would reach (and the caller number), writing nothing', tag: 'Compliance' },

  // Campaigns (see docs/decisions/campaigns.md): number pools, campaigns, their status actions and per-contact outcomes
  { id: 'createNumberPool', method: 'POST', path: '/v1/number-pools', handler: 'functions/number-pools/create-number-pool', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: "Create a pool of the tenant's voice numbers a campaign dials from", tag: 'Campaigns' },
  { id: 'listNumberPools', method: 'GET', path: '/v1/number-pools', handler: 'functions/number-pools/list-number-pools', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List number pools, newest first', tag: 'Campaigns' },
  { id: 'getNumberPool', method: 'GET', path: '/v1/number-pools/{pool_id}', handler: 'functions/number-pools/get-number-pool', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a number pool', tag: 'Campaigns' },
  { id: 'updateNumberPool', method: 'PATCH', path: '/v1/number-pools/{pool_id}', handler: 'functions/number-pools/update-number-pool', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: "Rename a pool or replace its members (running campaigns keep the numbers they started with)", tag: 'Campaigns' },
  { id: 'createCampaign', method: 'POST', path: '/v1/campaigns', handler: 'functions/campaigns/create-campaign', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager'], summary: 'Create a campaign in draft: one agent, a contact list, a number pool, caps and retries', tag: 'Campaigns' },
  { id: 'listCampaigns', method: 'GET', path: '/v1/campaigns', handler: 'functions/campaigns/list-campaigns', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List campaigns, newest first; filters status, created_at', tag: 'Campaigns' },
  { id: 'getCampaign', method: 'GET', path: '/v1/campaigns/{campaign_id}', handler: 'functions/campaigns/get-campaign', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a campaign with its exact counters', tag: 'Campaigns' },
  { id: 'startCampaign', method: 'POST', path: '/v1/campaigns/{campaign_id}/start', handler: 'functions/campaigns/start-campaign', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Start a draft campaign: pin the agent version, scrub every contact (asynchronously), then run', tag: 'Campaigns' },
  { id: 'pauseCampaign', method: 'POST', path: '/v1/campaigns/{campaign_id}/pause', handler: 'functions/campaigns/pause-campaign', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Pause a running campaign: no new dials; calls in progress finish', tag: 'Campaigns' },
  { id: 'resumeCampaign', method: 'POST', path: '/v1/campaigns/{campaign_id}/resume', handler: 'functions/campaigns/resume-campaign', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Resume a paused campaign', tag: 'Campaigns' },
  { id: 'cancelCampaign', method: 'POST', path: '/v1/campaigns/{campaign_id}/cancel', handler: 'functions/campaigns/cancel-campaign', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Cancel a campaign for good (409 once completed or cancelled); nothing is dialled after the answer', tag: 'Campaigns' },
  { id: 'listCampaignOutcomes', method: 'GET', path: '/v1/campaigns/{campaign_id}/outcomes', handler: 'functions/campaigns/list-campaign-outcomes', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "One row per targeted contact: latest attempt, disposition, sub_code, structured outcome; filters disposition, has_outcome, sub_code", tag: 'Campaigns' },
  { id: 'createMessage', method: 'POST', path: '/v1/messages', handler: 'functions/messages/create-message', auth: 'bearer', idempotency: 'required', table: 'write', roles: ['admin', 'manager', 'member'], kms: 'decrypt', summary: 'Send a text to a contact: judged for the sms channel under a compliance profile, then handed to the carrier once (or stored failed with its reason, never sent)', tag: 'Messages' },
  { id: 'listMessages', method: 'GET', path: '/v1/messages', handler: 'functions/messages/list-messages', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List texts (outbound and inbound), newest first; filters contact_id, created_at, direction, inbound_intent, origin_call_id, status', tag: 'Messages' },
  { id: 'getMessage', method: 'GET', path: '/v1/messages/{message_id}', handler: 'functions/messages/get-message', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a text: status, segments, compliance decision, failure', tag: 'Messages' },
  { id: 'listReps', method: 'GET', path: '/v1/reps', handler: 'functions/reps/list-reps', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List the reps calls may transfer to (never their numbers)', tag: 'Compliance' },

  // Telephony
  { id: 'createTelephonyAccount', method: 'POST', path: '/v1/telephony-accounts', handler: 'functions/telephony/create-telephony-account', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], kms: 'encrypt', summary: 'Connect a carrier account (byo or managed, twilio or the mock sandbox)', tag: 'Telephony' },
  { id: 'listTelephonyAccounts', method: 'GET', path: '/v1/telephony-accounts', handler: 'functions/telephony/list-telephony-accounts', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'List telephony accounts, newest first (never credentials)', tag: 'Telephony' },
  { id: 'getTelephonyAccount', method: 'GET', path: '/v1/telephony-accounts/{account_id}', handler: 'functions/telephony/get-telephony-account', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'Read a telephony account (never credentials)', tag: 'Telephony' },
  { id: 'updateTelephonyAccount', method: 'PATCH', path: '/v1/telephony-accounts/{account_id}', handler: 'functions/telephony/update-telephony-account', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], kms: 'encrypt', summary: 'Change SAN refs, the brand ref, or credentials (which return the account to pending)', tag: 'Telephony' },
  { id: 'verifyTelephonyAccount', method: 'POST', path: '/v1/telephony-accounts/{account_id}/verify', handler: 'functions/telephony/verify-telephony-account', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager'], kms: 'decrypt', summary: 'Prove the credentials with the provider and read back the calls-per-second ceiling', tag: 'Telephony' },
  { id: 'getInboundVoiceWebhook', method: 'GET', path: '/v1/telephony-accounts/{account_id}/inbound-voice-webhook', handler: 'functions/telephony/get-inbound-voice-webhook', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: "The URLs to paste into a verified BYO account's carrier console", tag: 'Telephony' },
  { id: 'getInboundMessagingWebhook', method: 'GET', path: '/v1/telephony-accounts/{account_id}/inbound-messaging-webhook', handler: 'functions/telephony/get-inbound-messaging-webhook', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: "The messaging URLs to paste into a verified BYO account's carrier console", tag: 'Telephony' },

  // Phone numbers
  { id: 'createPhoneNumber', method: 'POST', path: '/v1/phone-numbers', handler: 'functions/phone-numbers/create-phone-number', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager'], kms: 'decrypt', summary: "Buy or connect a number on one of the tenant's telephony accounts", tag: 'Telephony' },
  { id: 'listPhoneNumbers', method: 'GET', path: '/v1/phone-numbers', handler: 'functions/phone-numbers/list-phone-numbers', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List phone numbers, newest first', tag: 'Telephony' },
  { id: 'getPhoneNumber', method: 'GET', path: '/v1/phone-numbers/{number_id}', handler: 'functions/phone-numbers/get-phone-number', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a phone number', tag: 'Telephony' },
  { id: 'updatePhoneNumber', method: 'PATCH', path: '/v1/phone-numbers/{number_id}', handler: 'functions/phone-numbers/update-phone-number', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: "Change a number's inbound agent, route (agent or voicemail), greeting or daily dial cap", tag: 'Telephony' },
  { id: 'putAnsweringPolicy', method: 'PUT', path: '/v1/phone-numbers/{number_id}/answering-policy', handler: 'functions/answering-policies/put-answering-policy', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: "Replace a number's answering policy (a new version) and put the number on the policy route, in one transaction", tag: 'Telephony' },
  { id: 'getAnsweringPolicy', method: 'GET', path: '/v1/phone-numbers/{number_id}/answering-policy', handler: 'functions/answering-policies/get-answering-policy', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "A number's answering policy in force (its latest version)", tag: 'Telephony' },
  { id: 'simulateAnsweringPolicy', method: 'POST', path: '/v1/phone-numbers/{number_id}/answering-policy/simulate', handler: 'functions/answering-policies/simulate-answering-policy', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Which steps the policy answers with at an instant, and where key presses lead, without a call', tag: 'Telephony' },

  // Carrier callbacks: the carriers' side of the API (X-Twilio-Signature; TwiML answers)
  { id: 'carrierInboundVoice', method: 'POST', path: '/carrier/twilio/voice', handler: 'functions/carrier/inbound-voice', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', summary: 'A call to one of our numbers: stored as an inbound call and answered with TwiML (agent, voicemail or answering policy)', tag: 'Carrier callbacks' },
  { id: 'carrierPolicyAction', method: 'POST', path: '/carrier/twilio/policy-action', handler: 'functions/carrier/policy-action', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', summary: "A key press (Gather) or a ring's outcome (Dial) on an answering policy: the next step, on the policy version the call started with", tag: 'Carrier callbacks' },
  { id: 'carrierRelayAction', method: 'POST', path: '/carrier/twilio/relay-action', handler: 'functions/carrier/relay-action', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'read', kms: 'decrypt', summary: "A call's ConversationRelay session ended (<Connect action>; the query is our signed state): a transfer to the rep the runtime asked for, the closing and a hang-up, or a reconnect after the runtime's socket died (at most twice)", tag: 'Carrier callbacks' },
  { id: 'carrierRecording', method: 'POST', path: '/carrier/twilio/recording', handler: 'functions/carrier/recording', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', summary: 'A voicemail was recorded: kept on the call', tag: 'Carrier callbacks' },
  { id: 'carrierOutboundVoice', method: 'POST', path: '/carrier/twilio/outbound', handler: 'functions/carrier/outbound-voice', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', queues: ['callAnalysis', 'callDispatch'], summary: 'An outbound call was answered: TwiML that hands a person to the voice runtime (ConversationRelay), or plays the voicemail drop to a machine', tag: 'Carrier callbacks' },
  { id: 'carrierCallStatus', method: 'POST', path: '/carrier/twilio/status', handler: 'functions/carrier/call-status', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', queues: ['callAnalysis', 'callDispatch'], summary: "A call's status changed: monotonic, idempotent transitions; an outbound call's disposition and events at its terminal transition", tag: 'Carrier callbacks' },

  { id: 'carrierInboundMessage', method: 'POST', path: '/carrier/twilio/message', handler: 'functions/carrier/inbound-message', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', summary: 'A text to one of our numbers: stored once, linked to its contact, classified; a STOP suppresses the sender in the same transaction; answered with TwiML (the STOP confirmation or HELP text)', tag: 'Carrier callbacks' },
  { id: 'carrierMessageStatus', method: 'POST', path: '/carrier/twilio/message-status', handler: 'functions/carrier/message-status', auth: 'twilio_signature', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', summary: "A text's delivery changed: monotonic, idempotent transitions (queued, sent, then delivered or failed), each with its message.* event", tag: 'Carrier callbacks' },

  // The sandbox carrier: a Twilio-compatible REST subset (Basic auth), part of the product
  { id: 'sandboxGetAccount', method: 'GET', path: '/sandbox/twilio/2010-04-01/Accounts/{account_file}', handler: 'functions/sandbox/get-account', auth: 'sandbox_basic', idempotency: 'none', table: 'read', kms: 'decrypt', summary: 'Sandbox carrier: fetch an account resource ({sid}.json), as Twilio does', tag: 'Sandbox carrier' },
  { id: 'sandboxBuyNumber', method: 'POST', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/IncomingPhoneNumbers.json', handler: 'functions/sandbox/buy-number', auth: 'sandbox_basic', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', summary: 'Sandbox carrier: buy a number and route its calls, as Twilio does', tag: 'Sandbox carrier' },
  { id: 'sandboxUpdateNumber', method: 'POST', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/IncomingPhoneNumbers/{number_file}', handler: 'functions/sandbox/update-number', auth: 'sandbox_basic', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', summary: "Sandbox carrier: change where a number's calls go ({sid}.json), as Twilio does", tag: 'Sandbox carrier' },
  { id: 'sandboxReleaseNumber', method: 'DELETE', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/IncomingPhoneNumbers/{number_file}', handler: 'functions/sandbox/release-number', auth: 'sandbox_basic', idempotency: 'none', table: 'write', kms: 'decrypt', summary: 'Sandbox carrier: release a number ({sid}.json): 204, as Twilio does', tag: 'Sandbox carrier' },
  { id: 'sandboxCreateCall', method: 'POST', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/Calls.json', handler: 'functions/sandbox/create-call', auth: 'sandbox_basic', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', queues: ['sandboxTimeline'], summary: 'Sandbox carrier: place an outbound call that plays out by test number, as Twilio does', tag: 'Sandbox carrier' },
  { id: 'sandboxGetCall', method: 'GET', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/Calls/{call_file}', handler: 'functions/sandbox/get-call', auth: 'sandbox_basic', idempotency: 'none', table: 'read', kms: 'decrypt', summary: 'Sandbox carrier: fetch a call ({sid}.json), as Twilio does', tag: 'Sandbox carrier' },
  { id: 'sandboxUpdateCall', method: 'POST', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/Calls/{call_file}', handler: 'functions/sandbox/update-call', auth: 'sandbox_basic', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', queues: ['sandboxTimeline'], summary: 'Sandbox carrier: hang up or cancel a call (Status=completed|canceled), as Twilio does', tag: 'Sandbox carrier' },
  { id: 'sandboxCreateMessage', method: 'POST', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/Messages.json', handler: 'functions/sandbox/create-message', auth: 'sandbox_basic', bodyFormat: 'form', idempotency: 'none', table: 'write', kms: 'decrypt', queues: ['sandboxTimeline'], summary: 'Sandbox carrier: send an SMS whose delivery plays out by test number, as Twilio does', tag: 'Sandbox carrier' },
  { id: 'sandboxGetMessage', method: 'GET', path: '/sandbox/twilio/2010-04-01/Accounts/{account_sid}/Messages/{message_file}', handler: 'functions/sandbox/get-message', auth: 'sandbox_basic', idempotency: 'none', table: 'read', kms: 'decrypt', summary: 'Sandbox carrier: fetch a message ({sid}.json), as Twilio does', tag: 'Sandbox carrier' },

  // The voice runtime's side of the API (the Stream token our TwiML handed over)
  { id: 'postCallEvents', method: 'POST', path: '/runtime/v1/calls/{call_id}/events', handler: 'functions/runtime/post-call-events', auth: 'stream_token', idempotency: 'none', table: 'write', kms: 'decrypt', summary: "The voice runtime reports a call's events (turns, disclosure, recorded responses, conversation actions, outcome, opt-out, usage, hang-up); idempotent by event id", tag: 'Voice runtime' },

  // Webhooks (the contract; the endpoint's management is ours)
  { id: 'putWebhookEndpoint', method: 'PUT', path: '/v1/webhook-endpoint', handler: 'functions/webhooks/put-webhook-endpoint', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], kms: 'encrypt', summary: "Create (201, signing secret shown once) or replace the tenant's single webhook endpoint", tag: 'Webhooks' },
  { id: 'getWebhookEndpoint', method: 'GET', path: '/v1/webhook-endpoint', handler: 'functions/webhooks/get-webhook-endpoint', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'The webhook endpoint and its live secrets (ids, creation, overlap expiry; never a secret)', tag: 'Webhooks' },
  { id: 'deleteWebhookEndpoint', method: 'DELETE', path: '/v1/webhook-endpoint', handler: 'functions/webhooks/delete-webhook-endpoint', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], summary: 'Remove the webhook endpoint (events from then on are skipped)', tag: 'Webhooks' },
  { id: 'rotateWebhookSecret', method: 'POST', path: '/v1/webhook-endpoint/rotate-secret', handler: 'functions/webhooks/rotate-webhook-secret', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin'], kms: 'encrypt', summary: 'A new signing secret (shown once); the old one keeps signing for overlap_seconds', tag: 'Webhooks' },
  { id: 'testWebhookEndpoint', method: 'POST', path: '/v1/webhook-endpoint/test', handler: 'functions/webhooks/test-webhook-endpoint', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], kms: 'decrypt', timeoutSeconds: 15, summary: 'Send one signed sample event synchronously (data.test = true); nothing durable is written', tag: 'Webhooks' },
  { id: 'listWebhookEvents', method: 'GET', path: '/v1/webhook-events', handler: 'functions/webhooks/list-webhook-events', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'Committed events with their delivery state, newest first; filters type, delivery_status, created_at', tag: 'Webhooks' },
  { id: 'getWebhookEvent', method: 'GET', path: '/v1/webhook-events/{event_id}', handler: 'functions/webhooks/get-webhook-event', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'An event as delivered, its delivery state and every attempt of the ledger', tag: 'Webhooks' },
  { id: 'redeliverWebhookEvent', method: 'POST', path: '/v1/webhook-events/{event_id}/redeliver', handler: 'functions/webhooks/redeliver-webhook-event', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], kms: 'decrypt', timeoutSeconds: 15, summary: 'One more delivery attempt now, recorded in the ledger (delivered, failed or skipped events)', tag: 'Webhooks' },
  { id: 'listReceptionistActionTargets', method: 'GET', path: '/v1/receptionist-action-targets', handler: 'functions/webhooks/list-receptionist-action-targets', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: "The native receptionist outcomes bound to the webhook endpoint, with delivery counts from the ledger (a bare array)", tag: 'Webhooks' },

  // What calls produce (see docs/decisions/call-analysis-and-outcomes.md): calendar connections and availability
  { id: 'listIntegrationConnections', method: 'GET', path: '/v1/integration-connections', handler: 'functions/integrations/list-integration-connections', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Calendar connections, newest first (never token material)', tag: 'Integrations' },
  { id: 'createIntegrationConnection', method: 'POST', path: '/v1/integration-connections', handler: 'functions/integrations/create-integration-connection', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager'], summary: 'Connect a sandbox_calendar at once (Google Calendar: oauth/start)', tag: 'Integrations' },
  { id: 'startIntegrationOAuth', method: 'POST', path: '/v1/integration-connections/oauth/start', handler: 'functions/integrations/start-oauth', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], kms: 'encrypt', summary: 'Start connecting Google Calendar: OAuth 2.0 authorization code with PKCE; answers the authorize_url', tag: 'Integrations' },
  { id: 'completeGoogleOAuth', method: 'GET', path: '/oauth/google/callback', handler: 'functions/integrations/google-oauth-callback', auth: 'none', idempotency: 'none', table: 'write', kms: 'encrypt_decrypt', summary: "Google's redirect back: checks state, exchanges the code with the PKCE verifier, stores the tokens sealed", tag: 'Integrations' },
  { id: 'getIntegrationConnection', method: 'GET', path: '/v1/integration-connections/{connection_id}', handler: 'functions/integrations/get-integration-connection', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a calendar connection', tag: 'Integrations' },
  { id: 'updateIntegrationConnection', method: 'PATCH', path: '/v1/integration-connections/{connection_id}', handler: 'functions/integrations/update-integration-connection', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: 'Set the working hours and their time zone', tag: 'Integrations' },
  { id: 'deleteIntegrationConnection', method: 'DELETE', path: '/v1/integration-connections/{connection_id}', handler: 'functions/integrations/delete-integration-connection', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], kms: 'decrypt', summary: 'Revoke a calendar connection (tokens dropped here, revoked at the provider)', tag: 'Integrations' },
  { id: 'calendarAvailability', method: 'POST', path: '/v1/calendar/availability', handler: 'functions/calendar/calendar-availability', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager', 'member'], kms: 'encrypt_decrypt', summary: "Free slots on the connected calendar (free/busy → working hours → 15-minute grid → not in the past); backs check_calendar", tag: 'Calendar' },
  { id: 'listSurveyResponses', method: 'GET', path: '/v1/survey-responses', handler: 'functions/surveys/list-survey-responses', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Survey responses (one per survey call, stored when it ends), newest first; filters agent_version_id, completion_status, created_at', tag: 'Surveys' },
  { id: 'getSurveyResponse', method: 'GET', path: '/v1/survey-responses/{response_id}', handler: 'functions/surveys/get-survey-response', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a survey response', tag: 'Surveys' },
  { id: 'createFitReview', method: 'POST', path: '/v1/workflow-outcomes/{action_id}/fit-reviews', handler: 'functions/workflow/create-fit-review', auth: 'bearer', idempotency: 'required', table: 'write', roles: ['admin', 'manager', 'member'], summary: 'Save a fit review (good_fit, poor_fit, needs_more_info) against the qualification answers at expected_revision; 409 revision_conflict when they moved on', tag: 'Calls' },
  { id: 'runtimeCheckCalendar', method: 'POST', path: '/runtime/v1/calls/{call_id}/calendar/availability', handler: 'functions/runtime/check-calendar', auth: 'stream_token', idempotency: 'none', table: 'write', kms: 'encrypt_decrypt', summary: "The voice runtime's check_calendar tool: the same availability as POST /v1/calendar/availability, for the call's tenant", tag: 'Voice runtime' },
  // Mobile receptionist (see docs/decisions/call-analysis-and-outcomes.md): handoffs, their booking, the activity timeline
  { id: 'getHandoff', method: 'GET', path: '/v1/mobile/receptionist/handoffs/{handoff_id}', handler: 'functions/mobile/get-handoff', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'A receptionist handoff (pending until the carrier confirms the call, confirmed, booked)', tag: 'Mobile' },
  { id: 'handoffBookingAvailability', method: 'POST', path: '/v1/mobile/receptionist/handoffs/{handoff_id}/booking/availability', handler: 'functions/mobile/handoff-availability', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager', 'member'], kms: 'encrypt_decrypt', summary: 'Free slots for a carrier-confirmed handoff, with opaque signed ids that expire in 10 minutes', tag: 'Mobile' },
  { id: 'bookHandoff', method: 'POST', path: '/v1/mobile/receptionist/handoffs/{handoff_id}/booking', handler: 'functions/mobile/book-handoff', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager', 'member'], kms: 'encrypt_decrypt', summary: 'Book an offered slot on the connected calendar (the same slot again answers the same booking)', tag: 'Mobile' },
  { id: 'mobileActivityPage', method: 'GET', path: '/v1/mobile/receptionist/activity/page', handler: 'functions/mobile/activity-page', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'The merged activity timeline (live_call, voicemail, handoff, message), newest first, keyset cursor', tag: 'Mobile' },
  { id: 'listFitReviews', method: 'GET', path: '/v1/workflow-outcomes/{action_id}/fit-reviews', handler: 'functions/workflow/list-fit-reviews', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "A qualification outcome's fit review history, oldest first (append-only)", tag: 'Calls' },
  // The sandbox's Google (OAuth authorize/token/revoke and Calendar free/busy + events), so Google connections run offline.
  { id: 'sandboxGoogleAuthorize', method: 'GET', path: '/sandbox/google/o/oauth2/v2/auth', handler: 'functions/sandbox/google-authorize', auth: 'none', idempotency: 'none', table: 'write', summary: "Sandbox Google: consent granted at once, redirects back with a code (PKCE S256 required)", tag: 'Sandbox' },
  { id: 'sandboxGoogleToken', method: 'POST', path: '/sandbox/google/token', handler: 'functions/sandbox/google-token', auth: 'none', bodyFormat: 'form', idempotency: 'none', table: 'write', summary: 'Sandbox Google: token endpoint (authorization_code with code_verifier, refresh_token)', tag: 'Sandbox' },
  { id: 'sandboxGoogleRevoke', method: 'POST', path: '/sandbox/google/revoke', handler: 'functions/sandbox/google-revoke', auth: 'none', bodyFormat: 'form', idempotency: 'none', table: 'write', summary: 'Sandbox Google: token revocation', tag: 'Sandbox' },
  { id: 'sandboxGoogleFreeBusy', method: 'POST', path: '/sandbox/google/calendar/v3/freeBusy', handler: 'functions/sandbox/google-freebusy', auth: 'none', idempotency: 'none', table: 'read', summary: 'Sandbox Google Calendar: free/busy of the primary calendar (Bearer access token)', tag: 'Sandbox' },
  { id: 'sandboxGoogleInsertEvent', method: 'POST', path: '/sandbox/google/calendar/v3/calendars/primary/events', handler: 'functions/sandbox/google-insert-event', auth: 'none', idempotency: 'none', table: 'write', summary: 'Sandbox Google Calendar: insert an event on the primary calendar (Bearer access token)', tag: 'Sandbox' },
  // Usage and billing (see docs/decisions/billing.md)
  { id: 'getUsageSummary', method: 'GET', path: '/v1/usage/summary', handler: 'functions/billing/get-usage-summary', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: "The period's nine meters and its billing period estimate (excludes tax, credits, discounts and proration; the payment processor's invoice is final)", tag: 'Billing' },
  { id: 'listInvoices', method: 'GET', path: '/v1/invoices', handler: 'functions/billing/list-invoices', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'Invoices built at period close, newest first; filters created_at, period_start, status', tag: 'Billing' },
  { id: 'getInvoice', method: 'GET', path: '/v1/invoices/{invoice_id}', handler: 'functions/billing/get-invoice', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'Read an invoice with its line items', tag: 'Billing' },
  { id: 'createReceptionistPurchase', method: 'POST', path: '/v1/subscription/receptionist-purchases', handler: 'functions/billing/create-receptionist-purchase', auth: 'bearer', idempotency: 'required', table: 'write', roles: ['admin'], summary: 'Buy receptionist connections: priced on the plan, added to the subscription, billed monthly from the next invoice', tag: 'Billing' },
  { id: 'getReceptionistPurchase', method: 'GET', path: '/v1/subscription/receptionist-purchases/{purchase_id}', handler: 'functions/billing/get-receptionist-purchase', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'Read a receptionist purchase', tag: 'Billing' },
  { id: 'getMobileBillingSummary', method: 'GET', path: '/v1/mobile/billing/summary', handler: 'functions/billing/get-mobile-billing-summary', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager'], summary: 'Subscription health for the mobile app: plan, status, payment attention, daily budget, recent invoices (no payment method or provider data)', tag: 'Billing' },
  { id: 'paymentProviderWebhook', method: 'POST', path: '/provider/stripe/webhooks', handler: 'functions/billing/payment-provider-webhook', auth: 'stripe_signature', idempotency: 'none', table: 'write', summary: "The payment provider's invoice events, signed as Stripe signs them (Stripe-Signature); replay-safe, monotonic status moves", tag: 'Billing' },

  // Withdrawn
  { id: 'submitVoiceProfileConsentProof', method: 'POST', path: '/v1/voice-profiles/{profile_id}/consent-proof', handler: 'functions/withdrawn/voice-profile-consent-proof', auth: 'bearer', idempotency: 'none', table: 'none', roles: ['admin', 'manager', 'member'], deprecated: true, summary: 'Withdrawn: consent releases are no longer accepted (410)', tag: 'Withdrawn' },

  // The pages the emails link to (text/html): they spend the fragment's token on the service's own origin
  { id: 'signInEmailLinkPage', method: 'GET', path: '/sign-in/email-link', handler: 'functions/pages/sign-in-email-link', auth: 'none', idempotency: 'none', table: 'none', summary: 'The page the sign-in email links to: reads the token from the URL fragment and spends it on POST /v1/sessions/email-link/confirm from the dashboard origin (text/html)', tag: 'Dashboard' },
  { id: 'accountDeletionConfirmPage', method: 'GET', path: '/account-deletion/confirm', handler: 'functions/pages/account-deletion-confirm', auth: 'none', idempotency: 'none', table: 'none', summary: 'The page the account-deletion email links to: reads the token from the URL fragment and spends it on POST /v1/account-deletion/email-confirmations/confirm from the portal origin (text/html)', tag: 'Account deletion' },
  // Knowledge packs: versioned tenant knowledge the agent answers from
  { id: 'createKnowledgePack', method: 'POST', path: '/v1/knowledge-packs', handler: 'functions/knowledge-packs/create-knowledge-pack', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager'], summary: 'Create a knowledge pack (an empty draft)', tag: 'Knowledge packs' },
  { id: 'listKnowledgePacks', method: 'GET', path: '/v1/knowledge-packs', handler: 'functions/knowledge-packs/list-knowledge-packs', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'List knowledge packs, newest first', tag: 'Knowledge packs' },
  { id: 'getKnowledgePack', method: 'GET', path: '/v1/knowledge-packs/{pack_id}', handler: 'functions/knowledge-packs/get-knowledge-pack', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read a knowledge pack', tag: 'Knowledge packs' },
  { id: 'updateKnowledgePack', method: 'PATCH', path: '/v1/knowledge-packs/{pack_id}', handler: 'functions/knowledge-packs/update-knowledge-pack', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: "Change a knowledge pack's name or description", tag: 'Knowledge packs' },
  { id: 'addKnowledgeDocument', method: 'POST', path: '/v1/knowledge-packs/{pack_id}/documents', handler: 'functions/knowledge-packs/add-document', auth: 'bearer', idempotency: 'optional', table: 'write', roles: ['admin', 'manager'], summary: "Add a document to the pack's draft", tag: 'Knowledge packs' },
  { id: 'deleteKnowledgeDocument', method: 'DELETE', path: '/v1/knowledge-packs/{pack_id}/documents/{document_id}', handler: 'functions/knowledge-packs/delete-document', auth: 'bearer', idempotency: 'none', table: 'write', roles: ['admin', 'manager'], summary: "Remove a document from the pack's draft (published versions keep theirs)", tag: 'Knowledge packs' },
  { id: 'publishKnowledgePack', method: 'POST', path: '/v1/knowledge-packs/{pack_id}/publish', handler: 'functions/knowledge-packs/publish-knowledge-pack', auth: 'bearer', idempotency: 'required', table: 'write', roles: ['admin', 'manager'], summary: 'Freeze the draft as the next immutable version (passages split and indexed)', tag: 'Knowledge packs' },
  { id: 'listKnowledgePackVersions', method: 'GET', path: '/v1/knowledge-packs/{pack_id}/versions', handler: 'functions/knowledge-packs/list-versions', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: "A pack's published versions, newest first", tag: 'Knowledge packs' },
  { id: 'getKnowledgePackVersion', method: 'GET', path: '/v1/knowledge-packs/{pack_id}/versions/{version}', handler: 'functions/knowledge-packs/get-version', auth: 'bearer', idempotency: 'none', table: 'read', roles: ['admin', 'manager', 'member'], summary: 'Read one published version of a pack', tag: 'Knowledge packs' },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]['id'];

/**
 * Answers every request no route above matches — API Gateway's `$default` route on AWS,
 * the local runtime's fallback — so an unknown path is a JSON 404 (or 405 with Allow for
 * a known path and another method) in the contract's error shape, everywhere.
 */
export const fallbackRoute = {
  id: 'routeNotFound',
  method: 'ANY',
  path: '$default',
  handler: 'functions/ops/route-not-found',
  summary: 'No such route: 404, or 405 with Allow',
} as const;

// Built on first use, not at load: a module with no top-level work is one esbuild drops
// whole from a bundle that never looks a route up (see shared/http/route-core.ts).
let byId: Map<string, RouteDefinition> | undefined;

export function routeById(id: string): RouteDefinition {
  byId ??= new Map<string, RouteDefinition>(routes.map((r) => [r.id, r]));
  const route = byId.get(id);
  if (!route) throw new Error(`route ${id} is not in the manifest`);
  return route;
}

/** API Gateway route key, e.g. "GET /v1/me". */
export const routeKey = (r: RouteDefinition): string => `${r.method} ${r.path}`;
