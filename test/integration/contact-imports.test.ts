/**
 * CSV contact import through the local runtime (real HTTP, API Gateway v2 events, DynamoDB
 * Local, the emulator's S3): the 202 terminal job, row outcomes and reasons, the three
 * duplicate modes, consent evidence, lists, every 422 writing nothing, crash safety,
 * tenant isolation and the list filters.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { localS3Client } from '../../infra/local/provision.js';
import { createTenant, createUser } from '../../shared/admin/bootstrap.js';
import { prepareImport, runImport } from '../../shared/imports/run-import.js';
import { createList, findListByName, findOrCreateListByName, listMemberIds } from '../../shared/repositories/contact-lists.js';
import { contactImportRequest, IMPORT_LIMITS } from '../../shared/schemas/imports.js';
import { useTestStack, waitFor } from '../support/index.js';

// Before the shared modules below create their Powertools Metrics instance.
vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

const stack = useTestStack({ workers: false, seed: false });

interface Tenant {
  id: string;
  userId: string;
  token: string;
}
const newTenant = async (): Promise<Tenant> => {
  const t = await createTenant({ name: 'Importer', adminEmail: `admin-${Math.random().toString(36).slice(2)}@example.com` });
  return { id: t.tenant_id, userId: t.user_id, token: t.api_key.secret };
};

const api = async (t: Tenant, method: string, path: string, body?: unknown) => {
  const res = await stack.fetch(path, {
    method,
    headers: { authorization: `Bearer ${t.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

const attestation = {
  signer_name: 'Dana Cruz',
  signer_title: 'Chief Operating Officer',
  affirmation: 'Every person in this file gave prior express written consent on our web form.',
  consent_basis: 'pewc',
};
const importBody = (content: string, extra: Record<string, unknown> = {}) => ({
  file_name: 'leads.csv',
  content,
  column_mapping: { Phone: 'phone_e164', First: 'first_name' },
  consent_attestation: attestation,
  ...extra,
});
const phone = (n: number) => `+1555${String(n).padStart(7, '0')}`;

async function allContacts(t: Tenant) {
  const out: Record<string, any>[] = [];
  let cursor: string | undefined;
  do {
    const page = await api(t, 'GET', `/v1/contacts?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    out.push(...page.body.data);
    cursor = page.body.next_cursor ?? undefined;
  } while (cursor);
  return out;
}
const byPhone = async (t: Tenant) => new Map((await allContacts(t)).map((c) => [c.phone_e164 as string, c]));

async function listMembers(tenantId: string, listId: string): Promise<string[]> {
  return (await listMemberIds(tenantId, listId)).sort();
}

async function readEvidence(fileUri: string) {
  const [, bucket, key] = /^s3:\/\/([^/]+)\/(.+)$/.exec(fileUri)!;
  const s3 = localS3Client(stack.sqsEndpoint, stack.region);
  try {
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return { head, bytes: Buffer.from(await out.Body!.transformToByteArray()) };
  } finally {
    s3.destroy();
  }
}

async function evidenceObjects(tenantId: string): Promise<string[]> {
  const s3 = localS3Client(stack.sqsEndpoint, stack.region);
  try {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: stack.importBucket, Prefix: `imports/${tenantId}/` }));
    return (out.Contents ?? []).map((o) => o.Key!);
  } finally {
    s3.destroy();
  }
}

describe('POST /v1/contact-imports', () => {
  it('imports an RFC 4180 file (BOM, CRLF, quoted commas, quotes and newlines) into a terminal 202 job', async () => {
    const t = await newTenant();
    const csv =
      '\uFEFFPhone,First,Company,Tags,Regions,CRM Id,Ignored\r\n' +
      `${phone(1)},Ann,"Acme, Inc.","vip; west",US-CA|US-NV,A-1,x\r\n` +
      `"+1 (555) 000-0002",Bob,"The ""Best"" Co","multi; line",,"B-\r\n2",y\r\n` +
      `${phone(3)},Cy,,,,,\r\n`;
    const before = Date.now();
    const res = await api(t, 'POST', '/v1/contact-imports', {
      ...importBody(csv, { list_name: 'Spring Leads' }),
      column_mapping: { Phone: 'phone_e164', First: 'first_name', Company: 'company', Tags: 'tags', Regions: 'jurisdictions', 'CRM Id': 'attributes.crm_id' },
    });
    expect(res.status).toBe(202);
    const job = res.body;
    expect(job).toMatchObject({
      status: 'completed',
      file_name: 'leads.csv',
      on_duplicate: 'reject',
      rows_total: 3,
      rows_accepted: 3,
      rows_rejected: 0,
      rows_skipped: 0,
      errors: [],
      errors_truncated: false,
      failure_reason: null,
    });
    expect(job.id).toMatch(/^imp_/);

    const contacts = await byPhone(t);
    expect(contacts.size).toBe(3);
    expect(contacts.get(phone(1))).toMatchObject({
      first_name: 'Ann',
      company: 'Acme, Inc.',
      tags: ['vip', 'west'],
      jurisdictions: ['US-CA', 'US-NV'],
      attributes: { crm_id: 'A-1' },
      best_consent_class: 'pewc',
    });
    expect(contacts.get(phone(2))).toMatchObject({
      first_name: 'Bob',
      company: 'The "Best" Co',
      tags: ['multi', 'line'],
      jurisdictions: [],
      attributes: { crm_id: 'B-\r\n2' },
    });
    expect(contacts.get(phone(3))).toMatchObject({ first_name: 'Cy', company: null, tags: [] });

    // Server-stamped attestation: the caller's address and the server's clock.
    expect(job.consent_attestation).toEqual({ ...attestation, signer_ip: '127.0.0.1', signed_at: expect.any(String) });
    expect(Date.parse(job.consent_attestation.signed_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(job.consent_attestation.signed_at)).toBeLessThanOrEqual(Date.now());

    // The original file is kept, byte for byte, and its SHA-256 is each row's evidence hash.
    expect(job.file_uri).toBe(`s3://${stack.importBucket}/imports/${t.id}/${job.id}.csv`);
    const { head, bytes: stored } = await readEvidence(job.file_uri);
    expect(stored.equals(Buffer.from(csv, 'utf8'))).toBe(true);
    expect(head.ContentType).toBe('text/csv; charset=utf-8');
    const sha = createHash('sha256').update(stored).digest('hex');
    expect(job.file_sha256).toBe(sha);

    const consents = await api(t, 'GET', `/v1/contacts/${contacts.get(phone(2))!.id}/consents`);
    expect(consents.body.data).toEqual([
      expect.objectContaining({
        consent_basis: 'pewc',
        captured_at: job.consent_attestation.signed_at,
        scope: { source: 'import', affirmation: attestation.affirmation },
        evidence: { artifact_type: 'contact_import', artifact_ref: `${job.file_uri}#row=2`, content_hash: sha },
        expires_at: null,
        attestation: expect.objectContaining({
          id: job.attestation_id,
          source: 'import',
          import_id: job.id,
          signer_name: 'Dana Cruz',
          signer_title: 'Chief Operating Officer',
          affirmation: attestation.affirmation,
        }),
      }),
    ]);

    // list_name created the list; every accepted row joined it.
    const list = await findListByName(t.id, 'spring leads');
    expect(list).toMatchObject({ name: 'Spring Leads' });
    expect(job.target_list_id).toBe(list!.id);
    expect(await listMembers(t.id, list!.id)).toEqual([...contacts.values()].map((c) => c.id).sort());

    // GET returns the same job.
    const read = await api(t, 'GET', `/v1/contact-imports/${job.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(job);
  });

  it('uses an explicit consent_scope when given, and finds an existing list by name case-insensitively', async () => {
    const t = await newTenant();
    const first = await api(t, 'POST', '/v1/contact-imports', importBody(`Phone,First\n${phone(1)},A\n`, { list_name: 'Renewals' }));
    const second = await api(
      t,
      'POST',
      '/v1/contact-imports',
      importBody(`Phone,First\n${phone(2)},B\n`, { list_name: '  RENEWALS ', consent_scope: { purpose: 'renewal_reminders' } }),
    );
    expect(second.status).toBe(202);
    expect(second.body.target_list_id).toBe(first.body.target_list_id);
    expect(second.body.consent_scope).toEqual({ purpose: 'renewal_reminders' });
    const contact = (await byPhone(t)).get(phone(2))!;
    const consents = await api(t, 'GET', `/v1/contacts/${contact.id}/consents`);
    expect(consents.body.data[0].scope).toEqual({ purpose: 'renewal_reminders' });
    expect(await listMembers(t.id, first.body.target_list_id)).toHaveLength(2);
  });

  it('adds accepted rows to an existing list named by target_list_id', async () => {
    const t = await newTenant();
    const list = await createList(t.id, 'Existing', new Date());
    const res = await api(t, 'POST', '/v1/contact-imports', importBody(`Phone,First\n${phone(1)},A\n${phone(2)},B\nbad,C\n`, { target_list_id: list.id }));
    expect(res.body).toMatchObject({ status: 'completed', target_list_id: list.id, rows_accepted: 2, rows_rejected: 1 });
    const contacts = await byPhone(t);
    expect(await listMembers(t.id, list.id)).toEqual([contacts.get(phone(1))!.id, contacts.get(phone(2))!.id].sort());
  });

  it('rejects bad rows, never the file, and keeps each reason with its row, line and field', async () => {
    const t = await newTenant();
    const csv = [
      'Phone,First,Email,Status,Owner,Zone',
      `${phone(1)},Ok,ok@example.com,New,${t.userId},Europe/Paris`,
      `5550000002,NoPlus,,,,`,
      `${phone(3)},BadEmail,not-an-email,,,`,
      `${phone(4)},BadEnum,,hot,,Mars/Base`,
      `${phone(5)},"Quoted`,
      `line",,,,`,
      `${phone(6)},Ghost owner,,,usr_01J00000000000000000000000,`,
      `${phone(7)},Short`,
      `,NoPhone,,,,`,
    ].join('\n');
    const res = await api(t, 'POST', '/v1/contact-imports', {
      ...importBody(csv),
      column_mapping: { Phone: 'phone_e164', First: 'first_name', Email: 'email', Status: 'lead_status', Owner: 'owner_user_id', Zone: 'timezone' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'completed', rows_total: 8, rows_accepted: 1, rows_rejected: 7, rows_skipped: 0, errors_truncated: false });
    expect(res.body.errors.map((e: Record<string, unknown>) => [e.row, e.line, e.field, e.type])).toEqual([
      [2, 3, 'phone_e164', 'string_pattern_mismatch'],
      [3, 4, 'email', 'value_error'],
      [4, 5, 'lead_status', 'enum'],
      [4, 5, 'timezone', 'timezone_invalid'],
      // A quoted line break parses (RFC 4180), but a name is one line: the row is refused at its field.
      [5, 6, 'first_name', 'value_error.control_character'],
      [6, 8, 'owner_user_id', 'user_not_found'],
      [7, 9, null, 'column_count_mismatch'],
      [8, 10, 'phone_e164', 'missing'],
    ]);
    const contacts = await byPhone(t);
    expect([...contacts.keys()].sort()).toEqual([phone(1)]);
    expect(contacts.get(phone(1))).toMatchObject({ lead_status: 'new', owner_user_id: t.userId, timezone: 'Europe/Paris' });
  });

  describe('on_duplicate, against existing contacts and within the file', () => {
    // Row 1 and 5: an existing contact. Rows 2 and 3: the same new number. Row 4: new. Row 6: invalid.
    const csv = (ownerId: string) =>
      [
        'Phone,First,Owner,Note',
        `${phone(1)},First-1,,n1`,
        `${phone(2)},Second-2,,n2`,
        `${phone(2)},Second-3,${ownerId},n3`,
        `${phone(3)},Third-4,,n4`,
        `${phone(1)},First-5,,n5`,
        'not-a-phone,Bad-6,,n6',
      ].join('\n');
    const mapping = { Phone: 'phone_e164', First: 'first_name', Owner: 'owner_user_id', Note: 'attributes.note' };

    async function arrange() {
      const t = await newTenant();
      const existing = await api(t, 'POST', '/v1/contacts', {
        phone_e164: phone(1),
        first_name: 'Original',
        last_name: 'Kept',
        attributes: { crm: 'C-9' },
        consent: {
          consent_basis: 'ebr',
          captured_at: '2026-01-01T00:00:00Z',
          scope: { purpose: 'service' },
          evidence: { artifact_type: 'crm', artifact_ref: 'crm://1', content_hash: 'a'.repeat(64) },
        },
      });
      expect(existing.status).toBe(200);
      return { t, existingId: existing.body.id as string };
    }

    it('reject: duplicates count as rejected, with the first occurrence named', async () => {
      const { t, existingId } = await arrange();
      const res = await api(t, 'POST', '/v1/contact-imports', { ...importBody(csv(t.userId)), column_mapping: mapping, on_duplicate: 'reject' });
      expect(res.body).toMatchObject({ status: 'completed', rows_accepted: 2, rows_rejected: 4, rows_skipped: 0 });
      expect(res.body.errors.map((e: Record<string, unknown>) => [e.row, e.field, e.type])).toEqual([
        [1, 'phone_e164', 'duplicate'],
        [3, 'phone_e164', 'duplicate'],
        [5, 'phone_e164', 'duplicate'],
        [6, 'phone_e164', 'string_pattern_mismatch'],
      ]);
      expect(res.body.errors[0].msg).toContain(existingId);
      expect(res.body.errors[1].msg).toContain('row 2');
      const contacts = await byPhone(t);
      expect(contacts.size).toBe(3);
      expect(contacts.get(phone(1))!.first_name).toBe('Original');
      expect(contacts.get(phone(2))!.first_name).toBe('Second-2');
    });

    it('skip: duplicates count as skipped and change nothing', async () => {
      const { t } = await arrange();
      const res = await api(t, 'POST', '/v1/contact-imports', { ...importBody(csv(t.userId)), column_mapping: mapping, on_duplicate: 'skip' });
      expect(res.body).toMatchObject({ status: 'completed', rows_accepted: 2, rows_rejected: 1, rows_skipped: 3 });
      const contacts = await byPhone(t);
      expect(contacts.size).toBe(3);
      expect(contacts.get(phone(1))).toMatchObject({ first_name: 'Original', attributes: { crm: 'C-9' } });
      expect(contacts.get(phone(2))).toMatchObject({ first_name: 'Second-2', owner_user_id: null });
      const consents = await api(t, 'GET', `/v1/contacts/${contacts.get(phone(1))!.id}/consents`);
      expect(consents.body.data).toHaveLength(1);
    });

    it('update: duplicates update the mapped fields in file order, add a consent, and count as accepted', async () => {
      const { t } = await arrange();
      const res = await api(t, 'POST', '/v1/contact-imports', { ...importBody(csv(t.userId)), column_mapping: mapping, on_duplicate: 'update' });
      expect(res.body).toMatchObject({ status: 'completed', rows_accepted: 5, rows_rejected: 1, rows_skipped: 0 });
      const contacts = await byPhone(t);
      expect(contacts.size).toBe(3);
      // Mapped fields updated (the last row wins); unmapped fields and attribute keys kept.
      expect(contacts.get(phone(1))).toMatchObject({
        first_name: 'First-5',
        last_name: 'Kept',
        attributes: { crm: 'C-9', note: 'n5' },
        best_consent_class: 'pewc',
      });
      expect(contacts.get(phone(2))).toMatchObject({ first_name: 'Second-3', owner_user_id: t.userId, attributes: { note: 'n3' } });
      const consents1 = await api(t, 'GET', `/v1/contacts/${contacts.get(phone(1))!.id}/consents`);
      expect(consents1.body.data.map((c: Record<string, any>) => c.evidence.artifact_ref.split('#')[1] ?? c.evidence.artifact_type).sort()).toEqual([
        'crm',
        'row=1',
        'row=5',
      ]);
      const consents2 = await api(t, 'GET', `/v1/contacts/${contacts.get(phone(2))!.id}/consents`);
      expect(consents2.body.data).toHaveLength(2);
    });
  });

  describe('a bad request is a 422 and writes nothing', () => {
    const cases: [string, (t: Tenant) => unknown | Promise<unknown>, (string | number)[], string][] = [
      [
        'no phone_e164 target',
        () => ({ ...importBody('Phone,First\n+15550000001,A\n'), column_mapping: { First: 'first_name' } }),
        ['body', 'column_mapping'],
        'import_phone_target_missing',
      ],
      [
        'an unknown target',
        () => ({ ...importBody('Phone,First\n+15550000001,A\n'), column_mapping: { Phone: 'phone_e164', First: 'nickname' } }),
        ['body', 'column_mapping', 'First'],
        'import_target_unknown',
      ],
      [
        'a mapped header missing from the file',
        () => ({ ...importBody('Phone,Name\n+15550000001,A\n'), list_name: 'Never' }),
        ['body', 'column_mapping', 'First'],
        'csv_column_missing',
      ],
      [
        'no consent_attestation',
        () => {
          const { consent_attestation: _, ...body } = importBody('Phone,First\n+15550000001,A\n');
          return body;
        },
        ['body', 'consent_attestation'],
        'missing',
      ],
      [
        'a client-sent signer_ip',
        () => ({ ...importBody('Phone,First\n+15550000001,A\n'), consent_attestation: { ...attestation, signer_ip: '198.51.100.7' } }),
        ['body', 'consent_attestation', 'signer_ip'],
        'extra_forbidden',
      ],
      [
        'a client-sent signed_at',
        () => ({ ...importBody('Phone,First\n+15550000001,A\n'), consent_attestation: { ...attestation, signed_at: '2020-01-01T00:00:00Z' } }),
        ['body', 'consent_attestation', 'signed_at'],
        'extra_forbidden',
      ],
      [
        'an unparseable CSV (unclosed quote)',
        () => importBody('Phone,First\n+15550000001,"A\n+15550000002,B\n', { list_name: 'Never' }),
        ['body', 'content'],
        'csv_invalid',
      ],
      ['a CSV without a header row', () => importBody('\r\n\r\n'), ['body', 'content'], 'csv_header_missing'],
      [
        'more than IMPORT_LIMITS.maxDataRows data rows',
        () => importBody(['Phone,First', ...Array.from({ length: IMPORT_LIMITS.maxDataRows + 1 }, (_, i) => `${phone(i)},x`)].join('\n')),
        ['body', 'content'],
        'csv_too_many_rows',
      ],
      ['content over 4 MiB', () => importBody(`Phone,First\n${phone(1)},${'x'.repeat(4 * 1024 * 1024)}\n`), ['body', 'content'], 'content_too_large'],
      [
        'an unknown target_list_id',
        () => importBody('Phone,First\n+15550000001,A\n', { target_list_id: 'lst_01J00000000000000000000000' }),
        ['body', 'target_list_id'],
        'list_not_found',
      ],
      [
        'both target_list_id and list_name',
        () => importBody('Phone,First\n+15550000001,A\n', { target_list_id: 'lst_01J00000000000000000000000', list_name: 'X' }),
        ['body', 'list_name'],
        'mutually_exclusive',
      ],
      ['a bad on_duplicate', () => importBody('Phone,First\n+15550000001,A\n', { on_duplicate: 'merge' }), ['body', 'on_duplicate'], 'enum'],
    ];

    it.each(cases)('%s', async (_name, build, loc, type) => {
      const t = await newTenant();
      const res = await api(t, 'POST', '/v1/contact-imports', await build(t));
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type, msg: expect.any(String) })]));
      expect((await api(t, 'GET', '/v1/contacts')).body.data).toEqual([]);
      expect((await api(t, 'GET', '/v1/contact-imports')).body.data).toEqual([]);
      expect(await evidenceObjects(t.id)).toEqual([]);
      expect(await findListByName(t.id, 'Never')).toBeUndefined();
    });

    it("refuses another tenant's list as target_list_id", async () => {
      const owner = await newTenant();
      const t = await newTenant();
      const foreign = await createList(owner.id, 'Theirs', new Date());
      const res = await api(t, 'POST', '/v1/contact-imports', importBody(`Phone,First\n${phone(1)},A\n`, { target_list_id: foreign.id }));
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'target_list_id'], type: 'list_not_found' })]);
      expect(await allContacts(t)).toEqual([]);
    });
  });

  describe('crash safety', () => {
    const rows = 40;
    const csv = ['Phone,First', ...Array.from({ length: rows }, (_, i) => `${phone(100 + i)},R${i + 1}`)].join('\n');
    const prepare = async (t: Tenant, extra: Record<string, unknown> = {}) =>
      prepareImport(t.id, contactImportRequest.parse(importBody(csv, { list_name: 'Crash', ...extra })));

    it('an error midway ends the job failed (never completed) with its exact progress', async () => {
      const t = await newTenant();
      let settled = 0;
      const job = await runImport(await prepare(t), {
        sourceIp: '192.0.2.1',
        concurrency: 1,
        afterRow: () => {
          if (++settled === 10) throw new Error('simulated crash');
        },
      });
      expect(job).toMatchObject({ status: 'failed', failure_reason: 'internal_error', rows_accepted: 10 });
      const read = await api(t, 'GET', `/v1/contact-imports/${job.id}`);
      expect(read.body).toMatchObject({ status: 'failed', rows_accepted: 10, rows_rejected: 0, rows_skipped: 0 });
      expect(await allContacts(t)).toHaveLength(10);
    });

    it('a run that outlives its lease never turns completed', async () => {
      const t = await newTenant();
      const job = await runImport(await prepare(t), {
        sourceIp: '192.0.2.1',
        concurrency: 1,
        leaseMs: 200,
        heartbeatMs: 60_000,
        afterRow: (row) => (row === 1 ? new Promise<void>((r) => setTimeout(r, 400)) : undefined),
      });
      expect(job).toMatchObject({ status: 'failed', failure_reason: 'interrupted', rows_accepted: rows });
      expect((await api(t, 'GET', `/v1/contact-imports/${job.id}`)).body.status).toBe('failed');
    });

    it('a run that reaches its deadline stops and ends failed (time_limit)', async () => {
      const t = await newTenant();
      const job = await runImport(await prepare(t), { sourceIp: '192.0.2.1', concurrency: 1, deadline: new Date(Date.now() - 1) });
      expect(job).toMatchObject({ status: 'failed', failure_reason: 'time_limit', rows_total: rows, rows_accepted: 0 });
      expect(await allContacts(t)).toEqual([]);
    });

    it('a run that dies outright reads failed once its lease lapses; re-running with skip finishes without duplicates', async () => {
      const t = await newTenant();
      let settled = 0;
      // The "process" stops for good after 15 rows: no more rows, no heartbeat, no final write.
      void runImport(await prepare(t), {
        sourceIp: '192.0.2.1',
        concurrency: 1, // one batch in flight: the run dies with rows still to write
        leaseMs: 1_500,
        afterRow: () => (++settled >= 15 ? new Promise<void>(() => {}) : undefined),
      });
      const died = await waitFor(
        async () => {
          const page = await api(t, 'GET', '/v1/contact-imports');
          return page.body.data[0]?.status === 'failed' ? page.body.data[0] : undefined;
        },
        { timeoutMs: 10_000, message: 'the dead job reads failed' },
      );
      expect(died).toMatchObject({ status: 'failed', failure_reason: 'interrupted' });
      const read = await api(t, 'GET', `/v1/contact-imports/${died.id}`);
      expect(read.body.status).toBe('failed');
      expect((await api(t, 'GET', '/v1/contact-imports?status=failed')).body.data.map((j: Record<string, unknown>) => j.id)).toEqual([died.id]);
      expect((await api(t, 'GET', '/v1/contact-imports?status=running')).body.data).toEqual([]);

      const imported = (await allContacts(t)).length;
      expect(imported).toBeGreaterThanOrEqual(15);
      expect(imported).toBeLessThan(rows);

      const rerun = await api(t, 'POST', '/v1/contact-imports', { ...importBody(csv, { list_name: 'Crash' }), on_duplicate: 'skip' });
      expect(rerun.body).toMatchObject({ status: 'completed', rows_accepted: rows - imported, rows_skipped: imported, rows_rejected: 0 });
      const contacts = await allContacts(t);
      expect(contacts).toHaveLength(rows);
      expect(new Set(contacts.map((c) => c.phone_e164)).size).toBe(rows);
      expect(await listMembers(t.id, rerun.body.target_list_id)).toHaveLength(rows);
    });
  });
});

describe('contact lists', () => {
  it('find-or-create by name converges on one list when requests race (case-insensitively)', async () => {
    const t = await newTenant();
    const results = await Promise.all(['Q3 Push', 'q3 push', ' Q3 PUSH ', 'Q3 push', 'q3 PUSH'].map((n) => findOrCreateListByName(t.id, n, new Date())));
    expect(new Set(results.map((r) => r.list.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await findListByName(t.id, 'Q3 PUSH')).toEqual(results[0]!.list);
  });
});

describe('GET /v1/contact-imports', () => {
  let t: Tenant;
  let jobs: Record<string, any>[];
  beforeAll(async () => {
    t = await newTenant();
    jobs = [];
    for (let i = 0; i < 3; i++) {
      jobs.push((await api(t, 'POST', '/v1/contact-imports', importBody(`Phone,First\n${phone(i)},A\nbad,B\n`))).body);
    }
  });

  it('lists newest first in cursor pages, without the errors array', async () => {
    const first = await api(t, 'GET', '/v1/contact-imports?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((j: Record<string, unknown>) => j.id)).toEqual([jobs[2]!.id, jobs[1]!.id]);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data[0]).not.toHaveProperty('errors');
    expect(first.body.data[0]).toMatchObject({ status: 'completed', rows_accepted: 1, rows_rejected: 1, consent_attestation: { signer_ip: '127.0.0.1' } });
    const second = await api(t, 'GET', `/v1/contact-imports?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data.map((j: Record<string, unknown>) => j.id)).toEqual([jobs[0]!.id]);
    expect(second.body.has_more).toBe(false);
  });

  it('filters by status and created_at (with the suffixed forms)', async () => {
    const ids = async (q: string) => (await api(t, 'GET', `/v1/contact-imports?${q}`)).body.data.map((j: Record<string, unknown>) => j.id);
    expect(await ids('status=completed')).toEqual([jobs[2]!.id, jobs[1]!.id, jobs[0]!.id]);
    expect(await ids('status.in=failed,running')).toEqual([]);
    expect(await ids(`created_at.gt=${encodeURIComponent(jobs[0]!.created_at)}`)).toEqual([jobs[2]!.id, jobs[1]!.id]);
    expect(await ids(`created_at.lte=${encodeURIComponent(jobs[1]!.created_at)}&status=completed`)).toEqual([jobs[1]!.id, jobs[0]!.id]);
    const bad = await api(t, 'GET', '/v1/contact-imports?status=done&colour=red');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: Record<string, unknown>) => [d.loc, d.type])).toEqual(
      expect.arrayContaining([
        [['query', 'status'], 'enum'],
        [['query', 'colour'], 'extra_forbidden'],
      ]),
    );
  });

  it("answers 404 for another tenant's import exactly as for a missing one", async () => {
    const other = await newTenant();
    const foreign = await api(other, 'GET', `/v1/contact-imports/${jobs[0]!.id}`);
    const missing = await api(other, 'GET', '/v1/contact-imports/imp_01J00000000000000000000000');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await api(other, 'GET', '/v1/contact-imports')).body.data).toEqual([]);
  });

  it('a user may be created in one tenant and is not an owner in another', async () => {
    const other = await newTenant();
    const user = await createUser({ tenantId: t.id, email: `rep-${Date.now()}@example.com`, role: 'member' });
    const res = await api(other, 'POST', '/v1/contact-imports', {
      ...importBody(`Phone,First,Owner\n${phone(9)},A,${user.user_id}\n`),
      column_mapping: { Phone: 'phone_e164', First: 'first_name', Owner: 'owner_user_id' },
    });
    expect(res.body).toMatchObject({
      rows_accepted: 0,
      rows_rejected: 1,
      errors: [expect.objectContaining({ field: 'owner_user_id', type: 'user_not_found' })],
    });
  });
});
