/**
 * The disclosure opener: the first thing every answered call hears, composed from the pinned
 * version's disclosure_config. Twilio speaks it as ConversationRelay's `welcomeGreeting`
 * (never interruptible), and the runtime reports it as the `disclosure` event and the first
 * agent turn, so the words said and the words scored are the same string. Pure.
 */
export interface DisclosureSource {
  disclosure_config: Record<string, unknown>;
  conversation_settings?: { default_language?: string } | null;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** An `opener` the tenant wrote wins; otherwise the business name and that the caller is an automated assistant. */
export function disclosureGreeting(source: DisclosureSource): string {
  const config = source.disclosure_config ?? {};
  const opener = text(config.opener);
  if (opener) return opener;
  const business = text(config.business_name) ?? 'our company';
  return `Hello, this is an automated assistant calling on behalf of ${business}. This call may be recorded.`;
}
