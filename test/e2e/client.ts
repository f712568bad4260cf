/** A tiny API client for e2e tests: JSON in, {status, headers, body} out. */
import { createTenant } from '../../shared/admin/bootstrap.js';
import type { TestStack } from '../support/stack.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export function client(stack: TestStack, token?: string) {
  return async <T = any>(method: string, path: string, opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await stack.fetch(path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
}

/** A fresh tenant with its admin user and admin key, made the way the operator CLI does. */
export async function newTenant(name = 'Acme') {
  const t = await createTenant({ name, adminEmail: `ops+${Math.random().toString(36).slice(2)}@acme.test` });
  return { tenantId: t.tenant_id, userId: t.user_id, keyId: t.api_key.id, token: t.api_key.secret };
}
