/**
 * The pages the sign-in and account-deletion emails link to (pure: HTML text and headers).
 * The one-use token rides in the URL fragment, which browsers never send to a server or in a
 * Referer; the page reads it, drops it from the address bar, and on a click posts it to the
 * confirm route of the service's own origin — the trusted origin those routes require
 * (dashboard_origin, portal_origin), which a page served from there is by construction.
 * A click rather than an automatic post: a mail scanner that opens the link spends nothing.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { ok, type RouteResult } from '../http/responses.js';

interface EmailLinkPage {
  readonly title: string;
  readonly intro: string;
  readonly button: string;
  /** The confirm route the token is posted to (same origin). */
  readonly confirmPath: string;
  /** The status that means it worked. */
  readonly okStatus: number;
  readonly success: string;
  readonly failure: string;
}

export const SIGN_IN_PAGE: EmailLinkPage = {
  title: 'Sign in',
  intro: 'Sign in to the dashboard with the link from your email.',
  button: 'Sign in',
  confirmPath: '/v1/sessions/email-link/confirm',
  okStatus: 204,
  success: 'You are signed in. You can close this page.',
  failure: 'This sign-in link cannot be used: it was already used, it expired, a newer link replaced it, or it was altered. Ask for a new one.',
};

export const ACCOUNT_DELETION_PAGE: EmailLinkPage = {
  title: 'Confirm the account deletion',
  intro: 'Confirm that this account is to be deleted. It is deleted when the grace period ends; an admin can cancel it until then.',
  button: 'Confirm the deletion',
  confirmPath: '/v1/account-deletion/email-confirmations/confirm',
  okStatus: 200,
  success: 'The deletion is confirmed.',
  failure:
    'This confirmation link cannot be used: it was already used, it expired, a newer link replaced it, or it was altered. Ask for a new one from the dashboard.',
};

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}[data-state=success]{color:#0a6b2b}[data-state=failure]{color:#a11}';

// The page's whole behaviour. Reads its settings from data attributes, so the script is the
// same bytes on every page and one CSP hash allows it.
const SCRIPT = `(() => {
  const main = document.querySelector('main');
  const status = document.getElementById('status');
  const button = document.getElementById('confirm');
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  history.replaceState(null, '', location.pathname);
  const show = (state, text) => { status.dataset.state = state; status.textContent = text; };
  if (!token) { button.hidden = true; show('failure', main.dataset.failure); return; }
  button.addEventListener('click', async () => {
    button.disabled = true;
    show('working', 'One moment…');
    try {
      const res = await fetch(main.dataset.confirm, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      button.hidden = true;
      if (res.status === Number(main.dataset.ok)) {
        const body = res.status === 204 ? null : await res.json().catch(() => null);
        const when = body && body.request && body.request.scheduled_for;
        show('success', main.dataset.success + (when ? ' It runs at ' + when + '.' : ''));
      } else show('failure', main.dataset.failure);
    } catch {
      button.disabled = false;
      show('failure', 'The service could not be reached. Try again.');
    }
  });
})();`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; script-src ${sha256(SCRIPT)}; style-src ${sha256(STYLE)}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function emailLinkPageHtml(page: EmailLinkPage): string {
  const attr = (name: string, value: string | number) => `data-${name}="${escapeHtml(String(value))}"`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="robots" content="noindex"><title>${escapeHtml(page.title)}</title><style>${STYLE}</style></head>`,
    `<body><main ${attr('confirm', page.confirmPath)} ${attr('ok', page.okStatus)} ${attr('success', page.success)} ${attr('failure', page.failure)}>`,
    `<h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.intro)}</p>`,
    `<button id="confirm" type="button">${escapeHtml(page.button)}</button>`,
    '<p id="status" role="status" aria-live="polite"></p>',
    `</main><script>${SCRIPT}</script></body></html>`,
  ].join('\n');
}

/** The OpenAPI shape of a page. */
export const htmlDocument = z.string().meta({ id: 'HtmlPage', description: 'An HTML page (text/html)' });

/** A 200 with the page and its headers. */
export const pageResult = (html: string): RouteResult<string> => ({ ...ok(html), headers: { ...PAGE_HEADERS } });
