/**
 * Fields whose value is a secret: a 422 names them (loc, msg, type) but never echoes their
 * `input`, whatever the schema or the error (too long, wrong type, bad pattern…). Matched on
 * any string segment of the path, so `credentials.auth_token` and `secrets[0]` are covered.
 * A leaf module: both the zod conversion and the hand-made 422s ask it.
 */
const SENSITIVE_FIELD = /(password|passphrase|token|secret|credential|api_?key|private_?key|signing_?key)/i;
export const isSensitivePath = (path: readonly (string | number)[]) => path.some((p) => typeof p === 'string' && SENSITIVE_FIELD.test(p));
