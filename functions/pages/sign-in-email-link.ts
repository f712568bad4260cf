import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { emailLinkPageHtml, htmlDocument, pageResult, SIGN_IN_PAGE } from '../../shared/pages/email-link-pages.js';

const page = emailLinkPageHtml(SIGN_IN_PAGE);

/** GET /sign-in/email-link — the page the sign-in mail links to (`#token=…`): spends the token on the dashboard origin. */
export const handler = defineRoute('signInEmailLinkPage', handlerChecked, { successMediaType: 'text/html', responses: { 200: htmlDocument } }, async () =>
  pageResult(page),
);
