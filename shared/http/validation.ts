/**
 * zod issues → the contract entries, with Pydantic's loc and type vocabulary so clients
 * written against the reference implementation read our errors the same way.
 */
import type { core } from 'zod';
import { isSensitivePath, type ValidationIssue } from '../errors.js';

type Part = 'body' | 'query' | 'path' | 'header';

const TYPE_NAMES: Record<string, string> = {
  string: 'string_type',
  number: 'float_type',
  int: 'int_type',
  boolean: 'bool_type',
  object: 'dict_type',
  array: 'list_type',
  record: 'dict_type',
  date: 'date_type',
  bigint: 'int_type',
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

export function toValidationIssues(part: Part, issues: readonly core.$ZodIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) out.push(...convert(part, issue.path as (string | number)[], issue));
  return out;
}

function convert(part: Part, path: (string | number)[], issue: core.$ZodIssue): ValidationIssue[] {
  const loc = [part, ...path.map((p) => (typeof p === 'symbol' ? String(p) : p))] as (string | number)[];
  const input = (issue as { input?: unknown }).input;
  const sensitive = isSensitivePath(loc);
  const withInput = (e: ValidationIssue): ValidationIssue => (scalar(input) && !sensitive ? { ...e, input } : e);

  const absent = input === undefined && ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code);
  if (absent) return [{ loc, msg: 'Field required', type: 'missing' }];

  switch (issue.code) {
    case 'invalid_type': {
      // Query values arrive as text and every numeric query parameter is an integer.
      if (issue.expected === 'number' && typeof input === 'string' && part === 'query') {
        return [withInput({ loc, msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' })];
      }
      if (issue.expected === 'number' && typeof input === 'string') {
        return [withInput({ loc, msg: 'Input should be a valid number, unable to parse string as a number', type: 'float_parsing' })];
      }
      if (issue.expected === 'int' && typeof input === 'string') {
        return [withInput({ loc, msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' })];
      }
      const type = TYPE_NAMES[issue.expected] ?? `${issue.expected}_type`;
      return [withInput({ loc, msg: `Input should be a valid ${describe(issue.expected)}`, type })];
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string')
        return [
          withInput({ loc, msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`, type: 'string_too_short', ctx: { min_length: min } }),
        ];
      if (issue.origin === 'array' || issue.origin === 'set')
        return [{ loc, msg: `List should have at least ${min} item${min === 1 ? '' : 's'}`, type: 'too_short', ctx: { min_length: min } }];
      if (issue.origin === 'object')
        return [{ loc, msg: `Object should have at least ${min} propert${min === 1 ? 'y' : 'ies'}`, type: 'too_short', ctx: { min_length: min } }];
      return issue.inclusive
        ? [withInput({ loc, msg: `Input should be greater than or equal to ${min}`, type: 'greater_than_equal', ctx: { ge: min } })]
        : [withInput({ loc, msg: `Input should be greater than ${min}`, type: 'greater_than', ctx: { gt: min } })];
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string')
        return [
          withInput({ loc, msg: `String should have at most ${max} character${max === 1 ? '' : 's'}`, type: 'string_too_long', ctx: { max_length: max } }),
        ];
      if (issue.origin === 'array' || issue.origin === 'set')
        return [{ loc, msg: `List should have at most ${max} item${max === 1 ? '' : 's'}`, type: 'too_long', ctx: { max_length: max } }];
      if (issue.origin === 'object')
        return [{ loc, msg: `Object should have at most ${max} propert${max === 1 ? 'y' : 'ies'}`, type: 'too_long', ctx: { max_length: max } }];
      return issue.inclusive
        ? [withInput({ loc, msg: `Input should be less than or equal to ${max}`, type: 'less_than_equal', ctx: { le: max } })]
        : [withInput({ loc, msg: `Input should be less than ${max}`, type: 'less_than', ctx: { lt: max } })];
    }
    case 'invalid_format': {
      switch (issue.format) {
        case 'regex':
          return [
            withInput({
              loc,
              msg:
                issue.message && !issue.message.startsWith('Invalid')
                  ? issue.message
                  : `String should match pattern '${(issue as { pattern?: string }).pattern ?? ''}'`,
              type: 'string_pattern_mismatch',
              ctx: { pattern: (issue as { pattern?: string }).pattern ?? '' },
            }),
          ];
        case 'datetime':
          return [withInput({ loc, msg: 'Input should be a valid datetime (ISO 8601 with a timezone)', type: 'datetime_from_date_parsing' })];
        case 'date':
          return [withInput({ loc, msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_from_datetime_parsing' })];
        case 'email':
          return [withInput({ loc, msg: 'value is not a valid email address', type: 'value_error' })];
        case 'uuid':
          return [withInput({ loc, msg: 'Input should be a valid UUID', type: 'uuid_parsing' })];
        default:
          return [withInput({ loc, msg: `Input should be a valid ${issue.format}`, type: 'string_pattern_mismatch' })];
      }
    }
    case 'invalid_value': {
      const values = issue.values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
      if (values.length === 1) return [withInput({ loc, msg: `Input should be ${values[0]}`, type: 'literal_error', ctx: { expected: values[0] } })];
      const expected = `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
      return [withInput({ loc, msg: `Input should be ${expected}`, type: 'enum', ctx: { expected } })];
    }
    case 'unrecognized_keys':
      return issue.keys.map((k) => ({ loc: [...loc, k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
    case 'invalid_union': {
      const { discriminator: disc, options } = issue as { discriminator?: string; options?: unknown[] };
      if (disc) {
        // zod ≥ 4.1 already ends the path at the discriminator; earlier versions stopped at the object.
        const at = path.at(-1) === disc ? loc : [...loc, disc];
        const tags = (options ?? [])
          .filter((o): o is string => typeof o === 'string')
          .map((o) => `'${o}'`)
          .join(', ');
        const tag = scalar(input) ? input : isRecord(input) ? input[disc] : undefined;
        return [
          {
            loc: at,
            msg: `Input tag ${scalar(tag) ? `'${String(tag)}' ` : ''}found using '${disc}' does not match any of the expected tags: ${tags}`,
            type: 'union_tag_invalid',
            ...(scalar(tag) && !sensitive ? { input: tag } : {}),
            ctx: { discriminator: `'${disc}'`, expected_tags: tags },
          },
        ];
      }
      // Report the branch that got furthest: the one with the fewest issues.
      const branches = issue.errors.filter((b) => b.length > 0).sort((a, b) => a.length - b.length);
      const best = branches[0];
      if (best) return best.flatMap((i) => convert(part, [...path, ...(i.path as (string | number)[])], i));
      return [withInput({ loc, msg: 'Input does not match any allowed shape', type: 'union_error' })];
    }
    case 'invalid_key':
    case 'invalid_element':
      return issue.issues.flatMap((i) => convert(part, [...path, ...(i.path as (string | number)[])], i));
    case 'not_multiple_of':
      return [withInput({ loc, msg: `Input should be a multiple of ${issue.divisor}`, type: 'multiple_of', ctx: { multiple_of: issue.divisor } })];
    case 'custom': {
      const params = (issue.params ?? {}) as { type?: string; ctx?: Record<string, unknown> };
      return [withInput({ loc, msg: issue.message, type: params.type ?? 'value_error', ...(params.ctx ? { ctx: params.ctx } : {}) })];
    }
    default:
      return [withInput({ loc, msg: (issue as { message: string }).message, type: 'value_error' })];
  }
}

function describe(expected: string): string {
  switch (expected) {
    case 'object':
    case 'record':
      return 'dictionary or object';
    case 'array':
      return 'list';
    case 'int':
      return 'integer';
    case 'boolean':
      return 'boolean';
    default:
      return expected;
  }
}
