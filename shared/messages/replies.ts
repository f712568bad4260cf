/**
 * The texts the platform answers keywords with (pure). They name the tenant (its name is
 * the sender a person recognises) and say what to do next, as the CTIA's messaging
 * principles ask of STOP and HELP answers. HELP's text is composed from the tenant's name
 * rather than stored per tenant: every tenant gets a correct one with no setup
 * (docs/decisions/messaging.md).
 */
export const stopConfirmation = (tenantName: string): string =>
  `${tenantName}: You are unsubscribed and will receive no more messages or calls from us. Reply START to resubscribe.`;

export const helpText = (tenantName: string): string =>
  `${tenantName}: Automated messages about your account. Msg & data rates may apply. Reply STOP to opt out, START to opt back in.`;

export const startConfirmation = (tenantName: string): string => `${tenantName}: You are resubscribed. Reply STOP to opt out.`;
