/**
 * What a parsed JSON request body may contain so that whatever the server keeps of it is
 * stored exactly or refused, never altered (pure module).
 *
 * Checked once for every body, before schema validation, so each route and each future
 * free-form object inherits the rule instead of re-implementing it:
 *  - a key `__proto__` cannot be an own property of the objects zod and the DynamoDB
 *    marshaller build (assigning it sets the prototype): the key would silently vanish;
 *  - a string (value or key) with a lone UTF-16 surrogate has no UTF-8 form: the SDK would
 *    store U+FFFD instead;
 *  - numbers must be finite, integers exact (|n| ≤ 2^53 − 1; the marshaller refuses others)
 *    and non-zero magnitudes at least 1e-130 (DynamoDB's smallest; its largest, 1e126, is
 *    beyond 2^53, and a double never carries more than DynamoDB's 38 significant digits).
 * Free-form objects add their own rules (empty keys, depth, size): storableObject.
 */
import type { ValidationIssue } from './errors.js';

/** DynamoDB's smallest non-zero magnitude. */
const MIN_NUMBER_MAGNITUDE = 1e-130;
/** At most this many problems are reported for one body (the rest would only repeat them). */
const MAX_ISSUES = 20;

type Path = (string | number)[];

export function numberProblem(n: number): { msg: string; type: string } | undefined {
  if (!Number.isFinite(n)) return { msg: 'numbers must be finite', type: 'finite_number' };
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return { msg: 'integers must be within ±(2^53 − 1) to be stored exactly', type: 'number_too_large' };
  if (n !== 0 && Math.abs(n) < MIN_NUMBER_MAGNITUDE) return { msg: 'numbers other than 0 must have a magnitude of at least 1e-130', type: 'number_too_small' };
  return undefined;
}

/** Every place in a parsed JSON value that cannot be held exactly, as 422 issues under `root`. */
export function unholdableJson(value: unknown, root: Path = ['body']): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const walk = (v: unknown, path: Path): void => {
    if (issues.length >= MAX_ISSUES) return;
    if (typeof v === 'number') {
      const p = numberProblem(v);
      if (p) issues.push({ loc: path, ...p });
      return;
    }
    if (typeof v === 'string') {
      if (!v.isWellFormed()) issues.push({ loc: path, msg: 'String contains a lone UTF-16 surrogate, which has no UTF-8 form', type: 'string_unicode' });
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...path, i]));
      return;
    }
    for (const key of Object.keys(v)) {
      if (key === '__proto__') issues.push({ loc: [...path, key], msg: "'__proto__' cannot be used as a key", type: 'key_reserved' });
      else if (!key.isWellFormed()) issues.push({ loc: [...path, key], msg: 'Key contains a lone UTF-16 surrogate, which has no UTF-8 form', type: 'key_unicode' });
      else walk((v as Record<string, unknown>)[key], [...path, key]);
    }
  };
  walk(value, root);
  return issues;
}
