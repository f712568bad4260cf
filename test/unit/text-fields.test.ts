/**
 * Text fields hold what a reader sees: no C0/C1 control characters (multi-line fields keep
 * line feed and tab) and no bidirectional override or isolate characters, in every
 * request body field built from the shared builders, in list filters and in CSV rows.
 */
import { fc, it as prop } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/validation.js';
import type { CsvRecord } from '../../shared/imports/csv-rows.js';
import { mapRow } from '../../shared/imports/row-mapping.js';
import { parseFilters } from '../../shared/pagination/filters.js';
import { complianceProfileCreateRequest } from '../../shared/schemas/compliance-profiles.js';
import { forbiddenCharacter, multiLineText, singleLineText } from '../../shared/schemas/text.js';
import { webhookEndpointPutRequest } from '../../shared/schemas/webhooks.js';

const FORBIDDEN = [
  '\u0000',
  '\u0007',
  '\u0008',
  '\u000b',
  '\u000c',
  '\r',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u009f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];
const issuesOf = (schema: { safeParse: (v: unknown, o?: object) => { success: boolean; error?: { issues: unknown[] } } }, value: unknown) => {
  const r = schema.safeParse(value, { reportInput: true });
  return r.success ? [] : toValidationIssues('body', r.error!.issues as never).map((i) => `${i.loc.join('.')}:${i.type}`);
};

describe('singleLineText / multiLineText', () => {
  it.each(FORBIDDEN.map((c) => [c.codePointAt(0)!.toString(16)] as const))('U+%s is refused in both', (hex) => {
    const c = String.fromCodePoint(Number.parseInt(hex, 16));
    expect(issuesOf(singleLineText(), `Acme${c}Corp`)).toEqual(['body:value_error.control_character']);
    expect(issuesOf(multiLineText(), `Acme${c}Corp`)).toEqual(['body:value_error.control_character']);
  });

  it('line feed and tab are refused on one line and kept across lines', () => {
    for (const c of ['\n', '\t']) {
      expect(issuesOf(singleLineText(), `a${c}b`)).toEqual(['body:value_error.control_character']);
      expect(multiLineText().parse(`a${c}b`)).toBe(`a${c}b`);
    }
  });

  it('names the character and where it is', () => {
    expect(forbiddenCharacter('Acme\u0000\u0007')).toEqual({ codePoint: 'U+0000', index: 4 });
    expect(forbiddenCharacter('ab\u202e')).toEqual({ codePoint: 'U+202E', index: 2 });
  });

  prop.prop([fc.string({ unit: 'grapheme', maxLength: 40 })])('ordinary text (any script, emoji) passes unchanged', (s) => {
    const clean = s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
    expect(singleLineText().parse(clean)).toBe(clean);
  });

  it('a trimming field outputs the trimmed text (what is validated is what is stored)', () => {
    expect(singleLineText({ min: 1, trim: true }).parse('  Acme  ')).toBe('Acme');
  });
});

describe('the request schemas', () => {
  it('the webhook URL is trimmed on output, and refused with control characters inside', () => {
    expect(webhookEndpointPutRequest.parse({ url: '  https://hooks.example.com/x  ' }).url).toBe('https://hooks.example.com/x');
    expect(issuesOf(webhookEndpointPutRequest, { url: '\t http://hooks.example.com/x\n\u0000' })).toEqual(['body.url:value_error.control_character']);
  });

  it('a compliance profile seller_name with NUL and BEL is refused at its field', () => {
    expect(issuesOf(complianceProfileCreateRequest, { seller_name: 'Acme\u0000\u0007' })).toContain('body.seller_name:value_error.control_character');
  });
});

describe('list filters (query parameters)', () => {
  it('a string filter value with a control or bidi character is a 422 at the parameter', () => {
    for (const value of ['+1415\u0000', 'a\u202eb']) {
      const { issues } = parseFilters({ phone_e164: value }, { phone_e164: { kind: 'string' } });
      expect(issues).toEqual([expect.objectContaining({ loc: ['query', 'phone_e164'], type: 'value_error.control_character' })]);
    }
  });
});

describe('CSV import rows', () => {
  const columns = new Map<string, number>([
    ['phone_e164', 0],
    ['first_name', 1],
    ['tags', 2],
  ]);
  const rec = (cells: string[]): CsvRecord => ({ row: 1, line: 2, cells });
  it("a first_name 'a\\u0000b' or a tag with a right-to-left override rejects the row, naming the field", () => {
    const result = mapRow(rec(['+15550000001', 'a\u0000b', 'vip;\u202egro']), columns);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reasons.map((r) => `${r.field}:${r.type}`)).toEqual(['first_name:value_error.control_character', 'tags:value_error.control_character']);
  });
});
