import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/validation.js';
import { contactImportRequest, IMPORT_LIMITS } from '../../shared/schemas/imports.js';

const attestation = { signer_name: 'Dana Cruz', signer_title: 'COO', affirmation: 'These people opted in on our web form.', consent_basis: 'pewc' };
const valid = { file_name: 'leads.csv', content: 'phone\n+15550000001\n', column_mapping: { phone: 'phone_e164' }, consent_attestation: attestation };

const issues = (body: unknown) => {
  const result = contactImportRequest.safeParse(body, { reportInput: true });
  return result.success ? [] : toValidationIssues('body', result.error.issues).map((i) => [i.loc, i.type]);
};

describe('contact import request', () => {
  it('accepts the minimal request and defaults on_duplicate to reject', () => {
    const parsed = contactImportRequest.parse(valid);
    expect(parsed.on_duplicate).toBe('reject');
    expect(parsed.consent_scope).toBeUndefined();
  });

  it('accepts every target and attributes.<key> targets', () => {
    const mapping = {
      p: 'phone_e164',
      a: 'first_name',
      b: 'last_name',
      c: 'company',
      d: 'title',
      e: 'email',
      f: 'timezone',
      g: 'lead_status',
      h: 'owner_user_id',
      i: 'tags',
      j: 'jurisdictions',
      k: 'attributes.crm id',
      l: 'attributes.source',
    };
    expect(issues({ ...valid, column_mapping: mapping })).toEqual([]);
  });

  it('requires a phone_e164 target, at ["body","column_mapping"]', () => {
    expect(issues({ ...valid, column_mapping: { name: 'first_name' } })).toEqual([[['body', 'column_mapping'], 'import_phone_target_missing']]);
  });

  it('refuses unknown and repeated targets at ["body","column_mapping",<header>]', () => {
    expect(issues({ ...valid, column_mapping: { phone: 'phone_e164', Mobile: 'phone_e164', x: 'favourite_colour', y: 'attributes.' } })).toEqual([
      [['body', 'column_mapping', 'Mobile'], 'import_target_duplicate'],
      [['body', 'column_mapping', 'x'], 'import_target_unknown'],
      [['body', 'column_mapping', 'y'], 'import_target_unknown'],
    ]);
  });

  it('requires consent_attestation and refuses a client-sent signer_ip or signed_at', () => {
    const { consent_attestation: _, ...without } = valid;
    expect(issues(without)).toEqual([[['body', 'consent_attestation'], 'missing']]);
    expect(issues({ ...valid, consent_attestation: { ...attestation, signer_ip: '203.0.113.9', signed_at: '2020-01-01T00:00:00Z' } })).toEqual([
      [['body', 'consent_attestation', 'signer_ip'], 'extra_forbidden'],
      [['body', 'consent_attestation', 'signed_at'], 'extra_forbidden'],
    ]);
  });

  it('checks the attestation field rules', () => {
    expect(issues({ ...valid, consent_attestation: { signer_name: '', signer_title: 'x'.repeat(201), affirmation: '', consent_basis: 'verbal' } })).toEqual([
      [['body', 'consent_attestation', 'signer_name'], 'string_too_short'],
      [['body', 'consent_attestation', 'signer_title'], 'string_too_long'],
      [['body', 'consent_attestation', 'affirmation'], 'string_too_short'],
      [['body', 'consent_attestation', 'consent_basis'], 'enum'],
    ]);
  });

  it('refuses target_list_id together with list_name, a bad on_duplicate and an empty consent_scope', () => {
    expect(issues({ ...valid, target_list_id: 'lst_1', list_name: 'Spring', on_duplicate: 'merge', consent_scope: {} })).toEqual([
      [['body', 'on_duplicate'], 'enum'],
      [['body', 'consent_scope'], 'too_short'],
    ]);
    expect(issues({ ...valid, target_list_id: 'lst_1', list_name: 'Spring' })).toEqual([[['body', 'list_name'], 'mutually_exclusive']]);
  });

  it('refuses content over 4 MiB of UTF-8 without echoing it back', () => {
    const big = `phone\n${'é'.repeat(IMPORT_LIMITS.maxContentBytes / 2)}`;
    const result = contactImportRequest.safeParse({ ...valid, content: big }, { reportInput: true });
    const found = toValidationIssues('body', result.success ? [] : result.error.issues);
    expect(found).toEqual([expect.objectContaining({ loc: ['body', 'content'], type: 'content_too_large', ctx: { max_bytes: 4 * 1024 * 1024 } })]);
    expect(found[0]).not.toHaveProperty('input');
  });
});
