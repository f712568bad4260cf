import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { ACCOUNT_DELETION_PAGE, emailLinkPageHtml, htmlDocument, pageResult } from '../../shared/pages/email-link-pages.js';

const page = emailLinkPageHtml(ACCOUNT_DELETION_PAGE);

/** GET /account-deletion/confirm — the page the deletion mail links to (`#token=…`): spends the proof on the portal origin. */
export const handler = defineRoute(
  'accountDeletionConfirmPage',
  handlerChecked,
  { successMediaType: 'text/html', responses: { 200: htmlDocument } },
  async () => pageResult(page),
);
