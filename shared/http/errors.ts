/**
 * Errors a handler may throw. The route factory turns each into the JSON body the
 * spec and issue describe: 422 → {detail: [...]}, everything else → {detail, code}.
 */
import { isSensitivePath } from './sensitive-path.js';

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export class ValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

export const unauthorized = (detail = 'Missing or invalid API key') =>
  new HttpError(401, 'unauthorized', detail, { 'www-authenticate': 'Bearer' });
export const forbidden = (detail = 'This credential may not perform this operation') =>
  new HttpError(403, 'forbidden', detail);
export const notFound = (what = 'Resource') => new HttpError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, detail: string, extra: Record<string, unknown> = {}) =>
  new HttpError(409, code, detail, {}, extra);
export const gone = (detail: string) => new HttpError(410, 'gone', detail);

/** One 422 issue, for rules checked outside zod (e.g. a referenced id that does not exist). */
export const invalid = (loc: ValidationIssue['loc'], msg: string, type = 'value_error', input?: unknown) =>
  new ValidationError([{ loc, msg, type, ...(input === undefined || isSensitivePath(loc) ? {} : { input }) }]);
