/**
 * The words of telephony: a phone number's states and capabilities, a telephony account's
 * carrier and verification. Stored records, their schemas, the call record and the rules that
 * choose or refuse a number share them; here, not in the schemas, so what carries only the
 * words (the call path's reads) carries no schema with them.
 */
export const NUMBER_STATUSES = ['provisioning', 'active', 'quarantined', 'resting', 'releasing', 'released'] as const;
export const REPUTATION_STATES = ['clean', 'at_risk', 'flagged', 'burned'] as const;
export const INBOUND_ROUTE_MODES = ['agent', 'voicemail', 'policy'] as const;
export const NUMBER_CAPABILITIES = ['voice', 'sms'] as const;
export type NumberStatus = (typeof NUMBER_STATUSES)[number];
export type ReputationState = (typeof REPUTATION_STATES)[number];
export type InboundRouteMode = (typeof INBOUND_ROUTE_MODES)[number];
export type NumberCapability = (typeof NUMBER_CAPABILITIES)[number];
export const TELEPHONY_PROVIDERS = ['twilio', 'mock'] as const;
export const VERIFICATION_STATUSES = ['pending', 'verifying', 'mock_verified', 'verified', 'failed', 'suspended'] as const;
export type TelephonyProviderName = (typeof TELEPHONY_PROVIDERS)[number];
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];
