/** The mails the dashboard sends (see docs/decisions/auth-and-sessions.md), pure: subject and text; links carry the token in the fragment (never sent to a server log). */
import type { Mail } from './mailer.js';

export function signInLinkMail(to: string, dashboardOrigin: string, token: string, minutes: number): Mail {
  return {
    to,
    subject: 'Your sign-in link',
    text: [
      `Sign in to the dashboard: ${dashboardOrigin}/sign-in/email-link#token=${token}`,
      '',
      `The link works once, for ${minutes} minutes. If you did not ask for it, ignore this mail.`,
    ].join('\n'),
  };
}

export function deletionProofMail(to: string, portalOrigin: string, token: string, tenantName: string, minutes: number): Mail {
  return {
    to,
    subject: `Confirm the deletion of ${tenantName}`,
    text: [
      `Someone signed in as you asked to delete the account "${tenantName}" and everything in it.`,
      `To confirm, open: ${portalOrigin}/account-deletion/confirm#token=${token}`,
      '',
      `The link works once, for ${minutes} minutes; a newer link replaces it. The deletion then runs after the grace period and can be cancelled until then.`,
      'If this was not you, ignore this mail and change how you sign in.',
    ].join('\n'),
  };
}
