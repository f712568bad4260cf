/**
 * The pages the sign-in and account-deletion emails link to, in a real browser (Debian's
 * Chromium driven by playwright-core): the link from the mail sink opened as a person would,
 * the button clicked, the success state shown and the action done; a spent or tampered
 * token shows the failure state and changes nothing.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { verifyEmailAction } from '../../shared/admin/users.js';
import { lastMail } from '../../shared/mail/mailer.js';
import { useTestStack } from '../support/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const stack = useTestStack({ workers: false });
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does it), or set CHROMIUM_PATH`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
});

const uniqueEmail = () => `nopass+${Math.random().toString(36).slice(2)}@acme.test`;

async function passwordlessAdmin() {
  const email = uniqueEmail();
  const t = await createTenant({ name: `Beta ${Math.random().toString(36).slice(2, 6)}`, adminEmail: email });
  await verifyEmailAction({ tenantId: t.tenant_id, userId: t.user_id });
  return email;
}

/** The link in the newest mail to `email`. */
async function linkIn(email: string): Promise<string> {
  const mail = await lastMail(email);
  const link = /https?:\/\/\S+#token=\S+/.exec(mail?.text ?? '')?.[0];
  if (!link) throw new Error(`no link in the mail to ${email}: ${mail?.text}`);
  return link;
}

async function askSignInLink(email: string): Promise<string> {
  const res = await stack.fetch('/v1/sessions/email-link', {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: stack.baseUrl },
    body: JSON.stringify({ email }),
  });
  expect(res.status).toBe(202);
  return linkIn(email);
}

/** Opens the link, clicks the page's button, answers the state it settles in and its text. */
async function follow(page: Page, link: string, click = true) {
  await page.goto(link);
  if (click) await page.click('#confirm');
  const status = page.locator('#status[data-state="success"], #status[data-state="failure"]');
  await status.waitFor({ timeout: 10_000 });
  return { state: await status.getAttribute('data-state'), text: (await status.textContent()) ?? '', url: page.url() };
}

describe('email link pages in a browser', () => {
  it('the sign-in page spends the link on the dashboard origin and signs in; spent or tampered links fail', async () => {
    const email = await passwordlessAdmin();
    const link = await askSignInLink(email);
    expect(link.startsWith(`${stack.baseUrl}/sign-in/email-link#token=`)).toBe(true);

    const context = await browser.newContext();
    const page = await context.newPage();
    const first = await follow(page, link);
    expect(first.state, first.text).toBe('success');
    expect(first.text).toContain('You are signed in');
    expect(first.url).not.toContain('token=');
    expect((await context.cookies(stack.baseUrl)).map((c) => c.name)).toContain('__Host-vac_session');

    const spent = await follow(await context.newPage(), link);
    expect(spent.state).toBe('failure');
    expect(spent.text).toContain('cannot be used');

    const fresh = await askSignInLink(email);
    const tampered = await follow(await context.newPage(), `${fresh.slice(0, -3)}xyz`);
    expect(tampered.state).toBe('failure');
    const noToken = await follow(await context.newPage(), `${stack.baseUrl}/sign-in/email-link`, false);
    expect(noToken.state).toBe('failure');
    // The tampered attempt did not spend the real link.
    const real = await follow(await context.newPage(), fresh);
    expect(real.state).toBe('success');
    await context.close();
  });

  it('the deletion page confirms the deletion on the portal origin; a second use fails', async () => {
    const email = await passwordlessAdmin();
    const signIn = await stack.fetch('/v1/sessions/email-link/confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.baseUrl },
      body: JSON.stringify({ token: new URL(await askSignInLink(email)).hash.replace('#token=', '') }),
    });
    expect(signIn.status).toBe(204);
    const cookie = /^(__Host-vac_session=[^;]+);/.exec(signIn.headers.get('set-cookie') ?? '')![1]!;
    const sent = await stack.fetch('/v1/account-deletion/email-confirmations', { method: 'POST', headers: { cookie, origin: stack.baseUrl } });
    expect(sent.status).toBe(200);
    const link = await linkIn(email);
    expect(link.startsWith(`${stack.baseUrl}/account-deletion/confirm#token=`)).toBe(true);

    const context = await browser.newContext();
    const done = await follow(await context.newPage(), link);
    expect(done.state, done.text).toBe('success');
    expect(done.text).toMatch(/The deletion is confirmed\. It runs at \d{4}-/);
    const status = (await (await stack.fetch('/v1/account-deletion', { headers: { cookie } })).json()) as { request: { status: string; confirmed_by: string } };
    expect(status.request).toMatchObject({ status: 'pending', confirmed_by: 'email' });

    const again = await follow(await context.newPage(), link);
    expect(again.state).toBe('failure');
    await context.close();
  });

  it('serves the pages as text/html with a policy that allows only their own script and same-origin calls', async () => {
    for (const path of ['/sign-in/email-link', '/account-deletion/confirm']) {
      const res = await stack.fetch(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'sha256-[^']+'.*connect-src 'self'/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await res.text()).toMatch(/^<!doctype html>/);
    }
  });
});
