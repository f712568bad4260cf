import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../infra/openapi/build.js';
import { ROLES } from '../../shared/policy/auth/roles.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';

const all = routes as readonly RouteDefinition[];
const roleBearing = (r: RouteDefinition) => r.auth === 'bearer' || r.auth === 'session';
const rolesOf = (id: string) => all.find((r) => r.id === id)?.roles;

describe('the role matrix in the route manifest', () => {
  it('every route whose caller holds a role names its roles explicitly; no other route names any', () => {
    for (const r of all) {
      if (!roleBearing(r)) {
        expect(r.roles, r.id).toBeUndefined();
        continue;
      }
      expect(Array.isArray(r.roles), `${r.id} declares roles`).toBe(true);
      expect(r.roles!.length, r.id).toBeGreaterThan(0);
      expect(new Set(r.roles).size, `${r.id} names a role twice`).toBe(r.roles!.length);
      for (const role of r.roles!) expect(ROLES, r.id).toContain(role);
    }
  });

  it('grants follow rank: a role allowed implies every stronger role is (admin can call everything)', () => {
    for (const r of all.filter(roleBearing)) {
      expect([...r.roles!].sort(), r.id).toEqual(ROLES.slice(0, r.roles!.length).sort());
    }
  });

  it('credentials, money and whole-account deletion are admin only', () => {
    const adminOnly = [
      'listApiKeys',
      'createApiKey',
      'rotateApiKey',
      'createTelephonyAccount',
      'updateTelephonyAccount',
      'putWebhookEndpoint',
      'deleteWebhookEndpoint',
      'rotateWebhookSecret',
      'createReceptionistPurchase',
      'liftSuppression',
      'createAccountDeletionRequest',
      'cancelAccountDeletionRequest',
      'createAccountDeletionEmailConfirmation',
    ];
    for (const id of adminOnly) expect(rolesOf(id), id).toEqual(['admin']);
  });

  it('a member changes nothing a live call does, no compliance or integration setting, and reads no billing or carrier account', () => {
    const notMember = [
      // What the next live call says and whom it may call.
      'instantiateTemplate',
      'updateAgent',
      'publishAgent',
      'createComplianceProfile',
      'updateComplianceProfile',
      'createNumberPool',
      'updateNumberPool',
      'createPhoneNumber',
      'updatePhoneNumber',
      'putAnsweringPolicy',
      'createCampaign',
      'startCampaign',
      'pauseCampaign',
      'resumeCampaign',
      'cancelCampaign',
      // Carrier accounts (their reads included) and integrations.
      'listTelephonyAccounts',
      'getTelephonyAccount',
      'verifyTelephonyAccount',
      'getInboundVoiceWebhook',
      'getInboundMessagingWebhook',
      'getWebhookEndpoint',
      'testWebhookEndpoint',
      'listWebhookEvents',
      'getWebhookEvent',
      'redeliverWebhookEvent',
      'listReceptionistActionTargets',
      'createIntegrationConnection',
      'startIntegrationOAuth',
      'updateIntegrationConnection',
      'deleteIntegrationConnection',
    ];
    for (const id of notMember) {
      expect(rolesOf(id), id).toBeDefined();
      expect(rolesOf(id), id).not.toContain('member');
    }
    // Every API-key billing route: reading billing is admin/manager, as for the mobile billing summary.
    for (const r of all.filter((x) => x.tag === 'Billing' && x.auth === 'bearer')) expect(r.roles, r.id).not.toContain('member');
  });

  it('a member still does the day-to-day work: contacts, calls, texts, suppressions, the mobile receptionist', () => {
    for (const id of [
      'createContact',
      'createContactImport',
      'queueCall',
      'cancelCall',
      'preflightCall',
      'createMessage',
      'createSuppression',
      'createFitReview',
      'bookHandoff',
      'mobileActivityPage',
      'getMe',
    ]) {
      expect(rolesOf(id), id).toContain('member');
    }
  });

  it("the OpenAPI document shows each operation's roles (x-roles and a sentence), and a 403 where a role is refused", async () => {
    type Op = { 'x-roles'?: string[]; description?: string; responses: Record<string, { description: string }> };
    const doc = (await buildOpenApi()) as { paths: Record<string, Record<string, Op>> };
    for (const r of all) {
      const op = doc.paths[r.path]![r.method.toLowerCase()]!;
      expect(op['x-roles'], r.id).toEqual(r.roles);
      if (!r.roles) continue;
      expect(op.description, r.id).toContain(`Roles allowed: `);
      if (r.roles.length < ROLES.length) expect(op.responses['403']?.description, r.id).toMatch(new RegExp(`Requires role ${r.roles.join(' or ')}`));
    }
  });
});
