/**
 * The errors a domain rule throws, wherever it runs. A domain error carries a *kind* (what went
 * wrong, in the domain's words), a stable `code` and a human `detail`; it knows no HTTP status.
 * The route factory maps each kind to its status in one table (shared/http/responses.ts):
 * 422 → {detail: [...]}, everything else → {detail, code, ...extra}.
 */

/**
 * Fields whose value is a secret: a 422 names them (loc, msg, type) but never echoes their
 * `input`, whatever the schema or the error (too long, wrong type, bad pattern…). Matched on
 * any string segment of the path, so `credentials.auth_token` and `secrets[0]` are covered.
 */
const SENSITIVE_FIELD = /(password|passphrase|token|secret|credential|api_?key|private_?key|signing_?key)/i;
export const isSensitivePath = (path: readonly (string | number)[]) => path.some((p) => typeof p === 'string' && SENSITIVE_FIELD.test(p));

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'upstream_failed'
  | 'unavailable';

/** What the caller may do next: the scheme of the credential to send, when to try again. */
export interface ErrorHints {
  challenge?: 'Bearer';
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly hints: ErrorHints = {},
  ) {
    super(detail);
  }
}

export class ValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

export const unauthorized = (detail = 'Missing or invalid API key') => new DomainError('unauthorized', 'unauthorized', detail, {}, { challenge: 'Bearer' });
export const forbidden = (detail = 'This credential may not perform this operation') => new DomainError('forbidden', 'forbidden', detail);
export const notFound = (what = 'Resource') => new DomainError('not_found', 'not_found', `${what} not found`);
export const conflict = (code: string, detail: string, extra: Record<string, unknown> = {}) => new DomainError('conflict', code, detail, extra);
export const gone = (detail: string) => new DomainError('gone', 'gone', detail);

/** One 422 issue, for rules checked outside zod (e.g. a referenced id that does not exist). */
export const invalid = (loc: ValidationIssue['loc'], msg: string, type = 'value_error', input?: unknown) =>
  new ValidationError([{ loc, msg, type, ...(input === undefined || isSensitivePath(loc) ? {} : { input }) }]);
