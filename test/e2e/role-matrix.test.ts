/**
 * The role matrix end to end: every route whose caller holds a role (API keys, dashboard
 * sessions) is called by every role, straight from the manifest. A role the route does not
 * name is 403 `forbidden` before anything is read — an unknown id and an empty body still
 * get the 403, not the 404 or 422 an allowed role gets; an allowed role gets past the check.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser } from '../../shared/admin/bootstrap.js';
import { now } from '../../shared/clock.js';
import { ROLES, type Role } from '../../shared/policy/auth/roles.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { createSession } from '../../shared/sessions/session-cookie.js';
import { useTestStack } from '../support/stack.js';
import { profileBody } from './agent-fixtures.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

/** A concrete URL for a manifest path: every {param} gets an id nothing has. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'xyz_01JZZZZZZZZZZZZZZZZZZZZZZZ');
const roleRefusal = (res: { status: number; body: { code?: string } }) => res.status === 403 && res.body?.code === 'forbidden';

const withRoles = (routes as readonly RouteDefinition[]).filter((r) => r.roles !== undefined);

describe('the role matrix: every role-bearing route × every role', () => {
  let tenantId = '';
  const keys = {} as Record<Role, string>;
  const users = {} as Record<Role, string>;

  beforeAll(async () => {
    const t = await newTenant('Matrix');
    tenantId = t.tenantId;
    for (const role of ROLES) {
      keys[role] = role === 'admin' ? t.token : (await createApiKey({ tenantId, name: role, role })).api_key.secret;
      users[role] = role === 'admin' ? t.userId : (await createUser({ tenantId, email: `${role}@matrix.test`, role })).user_id;
    }
  });

  /** The route called as `role`: a fresh session for cookie routes (sign-out would end a shared one). */
  async function callAs(route: RouteDefinition, role: Role) {
    const body = route.method === 'GET' ? {} : { body: {} };
    if (route.auth === 'bearer') return client(stack, keys[role])(route.method, concrete(route.path), body);
    const session = await createSession(tenantId, users[role], now());
    return client(stack)(route.method, concrete(route.path), {
      ...body,
      headers: { cookie: `__Host-vac_session=${session.cookieValue}`, origin: stack.baseUrl },
    });
  }

  it('covers the API-key and the session routes', () => {
    expect(withRoles.filter((r) => r.auth === 'bearer').length).toBeGreaterThan(50);
    expect(withRoles.filter((r) => r.auth === 'session').length).toBeGreaterThan(2);
  });

  it.each(withRoles.map((r) => [r.id, r] as const))('%s', async (_id, route) => {
    for (const role of ROLES) {
      const res = await callAs(route, role);
      const allowed = (route.roles as readonly string[]).includes(role);
      if (allowed) expect(roleRefusal(res), `${role} is allowed: ${res.status} ${JSON.stringify(res.body)}`).toBe(false);
      else {
        expect(res.status, `${role} is not allowed`).toBe(403);
        expect(res.body).toEqual({ detail: `This operation requires the ${route.roles!.join(' or ')} role`, code: 'forbidden' });
      }
    }
  });

  it('a member cannot change what a live call says nor bill the tenant: the agent draft stays as it was', async () => {
    const admin = client(stack, keys.admin);
    const member = client(stack, keys.member);
    const profile = (await admin('POST', '/v1/compliance-profiles', { body: profileBody() })).body;
    const agent = (
      await admin('POST', '/v1/templates/tpl_sdr_outbound/instantiate', { body: { name: 'Matrix SDR', disclosure_config: { business_name: 'Matrix Solar' } } })
    ).body;
    if (!agent.id) return expect.fail(`instantiate: ${JSON.stringify(agent)}`);
    const before = (await admin('GET', `/v1/agents/${agent.id}`)).body;
    const patch = await member('PATCH', `/v1/agents/${agent.id}`, {
      body: { compliance_profile_id: profile.id, disclosure_config: { business_name: 'Not Matrix' } },
    });
    expect(patch.status).toBe(403);
    expect((await member('POST', `/v1/agents/${agent.id}/publish`)).status).toBe(403);
    expect((await admin('GET', `/v1/agents/${agent.id}`)).body).toEqual(before);
    expect((await admin('GET', `/v1/agents/${agent.id}/versions`)).body.data).toEqual([]);
    for (const path of ['/v1/invoices', '/v1/usage/summary']) expect((await member('GET', path)).status).toBe(403);
  });
});
