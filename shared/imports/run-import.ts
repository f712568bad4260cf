/**
 * CSV contact import, end to end (the contract "Contact import"; docs/imports.md).
 *
 *   prepareImport  parse + check EVERYTHING that can make the request a 422 (the CSV, the
 *                  mapped headers, the target list) and look up the list named by
 *                  list_name — no writes;
 *   runImport      1. store the original CSV in S3 (evidence; file_uri + SHA-256),
 *                  2. write the job (`running`, with a lease), its attestation and the
 *                     list list_name creates (if it does not exist yet) in ONE
 *                     transaction, before the first row; if that fails, the S3 object is
 *                     deleted again, so a refused request leaves nothing behind,
 *                  3. process rows: each row is one transaction (contact + phone guard +
 *                     consent + list membership + the number's suppression check, or the
 *                     update of an existing contact + a new consent + membership; a
 *                     do_not_call = true row also adds the suppression entry); rows sharing a phone run in file order,
 *                     other rows concurrently (bounded),
 *                  4. finish with a conditional update running → completed (exact counts).
 * A row-level problem rejects the row, never the file — including a write DynamoDB or the
 * SDK refuses for the row's own sake (write-failures.ts). An infrastructure fault stops the run
 * and marks the job failed; a run that dies outright leaves a running job whose lease
 * expires, which every read presents as failed. Re-running the same file with
 * on_duplicate=skip then imports the rest: every row already imported is a duplicate.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { contactKeys } from '../db/keys.js';
import { transactWrite } from '../db/transact-write.js';
import { ValidationError, type ValidationIssue } from '../errors.js';
import { ID_PREFIX, newId } from '../ids.js';
import { logger } from '../observability.js';
import type { Attestation } from '../repositories/attestations.js';
import { type ContactList, findListByName, getList, ListNameTaken, newList } from '../repositories/contact-lists.js';
import {
  buildConsent,
  type ConsentInput,
  type ContactFields,
  DuplicatePhone,
  getContactRecord,
  newContactItems,
  type SuppressionAtCreate,
  SuppressionChanged,
  type TransactItem,
  UnknownOwner,
  updateContactItems,
  writeNewContact,
} from '../repositories/contacts.js';
import {
  completeImportJob,
  type FailureReason,
  failImportJob,
  getImportJob,
  heartbeatImportJob,
  type ImportJobRecord,
  type ImportProgress,
  LeaseLost,
  startImportJob,
} from '../repositories/import-jobs.js';
import { isSuppressed } from '../repositories/suppression-state.js';
import { newSuppression, suppressedAmong, touchesActiveSuppression } from '../repositories/suppressions.js';
import { backoff, mayRetry, RACE } from '../retry.js';
import { type ContactImportRequest, IMPORT_LIMITS, type ImportRowError } from '../schemas/imports.js';
import type { Suppression } from '../schemas/suppressions.js';
import { deleteImportFile, storeImportFile } from '../storage/evidence-store.js';
import { FileProblem, parseCsv, resolveColumns } from './csv-rows.js';
import { type ImportPlan, type PhoneGroup, planImport } from './plan.js';
import { type MappedRow, type RowReason, reason } from './row-mapping.js';
import { isInfrastructureFault, RowRefused, refusingRow } from './write-failures.js';

export interface PreparedImport {
  tenantId: string;
  request: ContactImportRequest;
  plan: ImportPlan;
  /** The list target_list_id names, or the existing list list_name names (created by runImport when absent). */
  list: ContactList | undefined;
}

/** Validate everything that can make the request a 422. Writes nothing. */
export async function prepareImport(tenantId: string, request: ContactImportRequest): Promise<PreparedImport> {
  const issues: ValidationIssue[] = [];
  let plan: ImportPlan | undefined;
  try {
    const csv = parseCsv(request.content, { maxRows: IMPORT_LIMITS.maxDataRows });
    plan = planImport(csv.records, resolveColumns(csv.header, request.column_mapping));
  } catch (err) {
    if (!(err instanceof FileProblem)) throw err;
    issues.push(...err.issues);
  }
  let list: ContactList | undefined;
  if (request.target_list_id !== undefined) {
    list = await getList(tenantId, request.target_list_id);
    if (!list)
      issues.push({
        loc: ['body', 'target_list_id'],
        msg: 'target_list_id must name a contact list of this tenant',
        type: 'list_not_found',
        input: request.target_list_id,
      });
  } else if (request.list_name !== undefined) {
    list = await findListByName(tenantId, request.list_name);
  }
  if (issues.length || !plan) throw new ValidationError(issues);
  return { tenantId, request, plan, list };
}

export interface RunOptions {
  /** Stamped as consent_attestation.signer_ip (from the request, never from the body). */
  sourceIp: string | undefined;
  /** Stop processing rows after this instant and end the job failed ("time_limit"). */
  deadline?: Date;
  /** Rows in flight at once (default 32). */
  concurrency?: number;
  /** Lease length; the run renews it as it makes progress (default 60 s). */
  leaseMs?: number;
  /** Minimum interval between progress writes (default 5 s). */
  heartbeatMs?: number;
  /** Test seam: called after each row is settled (a throw stops the run like any error). */
  afterRow?: (row: number) => void | Promise<void>;
  /**
   * Test seam: called once the evidence is stored, just before the job (and a list it
   * creates) is written. A throw stands for that write failing; a write made here races it.
   */
  beforeJobStart?: (importId: string) => void | Promise<void>;
}

export const DEFAULT_CONCURRENCY = 32;
/** DynamoDB's cap on items in one TransactWriteItems. */
const MAX_TRANSACTION_ITEMS = 100;
/** Rows per batched transaction: large enough to amortise a round trip, small enough that a cancelled batch is cheap to replay. */
const MAX_ROWS_PER_TRANSACTION = 10;
const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_HEARTBEAT_MS = 5_000;
/** Bytes of row errors kept on the job item (a DynamoDB item holds at most 400 KB). */
const MAX_ERROR_BYTES = 150_000;

/** The first reasons in row order that fit the caps; counts stay exact regardless. */
export function capErrors(reasons: readonly RowReason[], maxCount: number = IMPORT_LIMITS.maxStoredErrors): { errors: ImportRowError[]; truncated: boolean } {
  const sorted = [...reasons].sort((a, b) => a.row - b.row);
  const errors: ImportRowError[] = [];
  let bytes = 0;
  for (const r of sorted) {
    const e: ImportRowError = { row: r.row, line: r.line, field: r.field, type: r.type, msg: r.msg };
    const size = Buffer.byteLength(JSON.stringify(e), 'utf8');
    if (errors.length >= maxCount || bytes + size > MAX_ERROR_BYTES) return { errors, truncated: true };
    errors.push(e);
    bytes += size;
  }
  return { errors, truncated: false };
}

/** Run a prepared import to a terminal job. Returns the job as stored. */
export async function runImport(prepared: PreparedImport, opts: RunOptions): Promise<ImportJobRecord> {
  const { tenantId, request, plan } = prepared;
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const started = new Date();
  const signedAt = started.toISOString();
  const importId = newId('imp');

  // 1. Evidence first: the job's file_uri must point at a stored object.
  const evidence = await storeImportFile(tenantId, importId, request.content);

  // 2. The job, its attestation and a list to create, in one transaction, before the first row.
  const attestation: Attestation = {
    id: newId(ID_PREFIX.attestation),
    source: 'import',
    import_id: importId,
    signer_name: request.consent_attestation.signer_name,
    signer_title: request.consent_attestation.signer_title,
    affirmation: request.consent_attestation.affirmation,
    created_at: signedAt,
  };
  const scope = request.consent_scope ?? { source: 'import', affirmation: request.consent_attestation.affirmation };
  const job: ImportJobRecord = {
    id: importId,
    tenant_id: tenantId,
    status: 'running',
    file_name: request.file_name,
    file_uri: evidence.fileUri,
    file_sha256: evidence.sha256,
    column_mapping: request.column_mapping,
    target_list_id: prepared.list?.id ?? null,
    consent_attestation: { ...request.consent_attestation, signer_ip: opts.sourceIp ?? null, signed_at: signedAt },
    attestation_id: attestation.id,
    consent_scope: scope,
    on_duplicate: request.on_duplicate,
    rows_total: plan.rowsTotal,
    rows_accepted: 0,
    rows_rejected: 0,
    rows_skipped: 0,
    errors: [],
    errors_truncated: false,
    failure_reason: null,
    lease_expires_at: new Date(Date.now() + leaseMs).toISOString(),
    created_at: signedAt,
    updated_at: signedAt,
  };
  let listId: string | undefined;
  try {
    await opts.beforeJobStart?.(importId);
    listId = await startJob(prepared, job, attestation, started);
  } catch (err) {
    await undoEvidence(tenantId, importId);
    throw err;
  }
  const attestationSk = contactKeys.attestation(tenantId, attestation.id).sk;

  // 3. Rows.
  const counts = { rows_accepted: 0, rows_rejected: 0, rows_skipped: 0 };
  const reasons: RowReason[] = [];
  const reject = (rs: RowReason[]) => {
    counts.rows_rejected++;
    reasons.push(...rs);
  };
  for (const bad of plan.invalid) reject(bad.reasons);

  const progress = (): ImportProgress => {
    const { errors, truncated } = capErrors(reasons);
    return { ...counts, errors, errors_truncated: truncated };
  };

  const consentFor = (row: MappedRow): ConsentInput => ({
    consent_basis: request.consent_attestation.consent_basis,
    captured_at: signedAt,
    scope,
    evidence: { artifact_type: 'contact_import', artifact_ref: `${evidence.fileUri}#row=${row.row}`, content_hash: evidence.sha256 },
  });

  /** Set when the run must stop early: its lease was lost, or its deadline passed. */
  let stop: FailureReason | undefined;
  let failure: unknown;
  let lastBeat = Date.now();
  let beat: Promise<void> | undefined;
  const heartbeat = () => {
    if (beat || Date.now() - lastBeat < heartbeatMs) return;
    lastBeat = Date.now();
    const now = new Date();
    beat = heartbeatImportJob(tenantId, importId, progress(), now, new Date(now.getTime() + leaseMs))
      .catch((err) => {
        if (err instanceof LeaseLost) stop ??= 'interrupted';
        else logger.warn('import heartbeat failed', { import_id: importId, error: (err as Error).message });
      })
      .finally(() => {
        beat = undefined;
      });
  };

  /** The entry a do_not_call = true row adds for a number not yet suppressed. */
  const importSuppression = (row: MappedRow, now: string): Suppression =>
    newSuppression(
      {
        phone_e164: row.phone,
        reason: 'manual',
        note: `do_not_call in contact import ${importId} (${request.file_name}), row ${row.row}`,
        source: 'import',
        source_id: importId,
      },
      now,
    );

  /** A new contact's items; do_not_call follows the number's suppression (`suppressed`, as read), or the entry the row adds. */
  const newRowItems = (row: MappedRow, now: string, suppressed: boolean) => {
    const suppression: SuppressionAtCreate = row.doNotCall && !suppressed ? { add: importSuppression(row, now) } : { suppressed };
    const created = newContactItems(tenantId, { phone_e164: row.phone, ...row.fields }, consentFor(row), attestation, {
      now,
      suppression,
      ...(listId ? { listId } : {}),
    });
    // This run wrote the (immutable) attestation with the job, before the first row: the
    // per-row existence check would only cost an item (and 2 WCU) per row.
    return { contactId: created.contact.id, items: created.items.filter((i) => i.ConditionCheck?.Key?.sk !== attestationSk) };
  };

  /**
   * Create the contact a row describes, under the number's suppression state as read (read
   * again if it changes before the write, as every lost race is: shared/retry.ts RACE; a
   * transaction cancelled only by a concurrent one is resent by the shared client itself,
   * the conflict retry in shared/db/client.ts). Undefined when the row is rejected; else the
   * contact it created, or the one already holding its phone.
   */
  const createFromRow = async (row: MappedRow): Promise<{ created: string } | { duplicateOf: string } | undefined> => {
    for (let attempt = 1; ; attempt++) {
      const { contactId, items } = newRowItems(row, new Date().toISOString(), await isSuppressed(tenantId, row.phone));
      try {
        await refusingRow(items, () => writeNewContact(items));
        return { created: contactId };
      } catch (err) {
        if (err instanceof SuppressionChanged && mayRetry(RACE, attempt)) {
          await backoff(RACE, attempt);
          continue;
        }
        // Nothing was written: the phone stays unclaimed, the next row with it is judged as if first.
        if (err instanceof UnknownOwner || err instanceof RowRefused) {
          reject([rowFailureReason(row, err)]);
          return undefined;
        }
        if (err instanceof DuplicatePhone) return { duplicateOf: err.contactId };
        throw err;
      }
    }
  };

  /** One row against the contact its phone already names (if known). Returns what it names after. */
  const processRow = async (row: MappedRow, existing: Existing | undefined): Promise<Existing | undefined> => {
    const now = new Date().toISOString();
    if (!existing) {
      const outcome = await createFromRow(row);
      if (!outcome) return undefined;
      if ('created' in outcome) {
        counts.rows_accepted++;
        return { contactId: outcome.created, row: row.row };
      }
      existing = { contactId: outcome.duplicateOf };
    }
    switch (request.on_duplicate) {
      case 'reject':
        reject([
          reason(
            row,
            'phone_e164',
            'duplicate',
            existing.row
              ? `Duplicate of row ${existing.row} of this file (phone ${row.phone})`
              : `A contact with phone ${row.phone} already exists (${existing.contactId})`,
          ),
        ]);
        break;
      case 'skip':
        counts.rows_skipped++;
        break;
      case 'update':
        try {
          await updateExisting(tenantId, existing.contactId, row.fields, buildConsent(tenantId, existing.contactId, consentFor(row), attestation, now), {
            now,
            listId,
            ...(row.doNotCall ? { suppression: () => importSuppression(row, now) } : {}),
          });
          counts.rows_accepted++;
        } catch (err) {
          if (!(err instanceof UnknownOwner || err instanceof RowRefused)) throw err;
          reject([rowFailureReason(row, err)]);
        }
        break;
    }
    return existing;
  };

  const processGroup = async (group: PhoneGroup) => {
    let existing: Existing | undefined;
    for (const row of group.rows) {
      if (stop || failure) return;
      if (opts.deadline && Date.now() > opts.deadline.getTime()) {
        stop ??= 'time_limit';
        return;
      }
      existing = await processRow(row, existing);
      await opts.afterRow?.(row.row);
      heartbeat();
    }
  };

  /**
   * Rows whose phone appears once in the file are written several to a transaction (each
   * row stays atomic: a transaction is all-or-nothing). If the batch fails for any reason
   * but an infrastructure fault — cancelled (a phone already exists, an owner is unknown,
   * a race), refused (one row too large or unstorable), or not even sent (a value the SDK
   * cannot marshal) — its rows are replayed one by one through processRow, which decides
   * each exactly: a row's own failure rejects that row alone, a real fault stops the run.
   * Fewer round trips: measured ~2× rows/s on DynamoDB Local.
   */
  const processBatch = async (groups: PhoneGroup[]) => {
    if (stop || failure) return;
    if (opts.deadline && Date.now() > opts.deadline.getTime()) {
      stop ??= 'time_limit';
      return;
    }
    const rows = groups.map((g) => g.rows[0]!);
    const suppressed = await suppressedAmong(
      tenantId,
      rows.map((r) => r.phone),
    );
    const now = new Date().toISOString();
    const items = rows.flatMap((row) => newRowItems(row, now, suppressed.has(row.phone)).items);
    try {
      await transactWrite(items);
    } catch (err) {
      if (isInfrastructureFault(err)) throw err;
      for (const group of groups) await processGroup(group);
      return;
    }
    counts.rows_accepted += rows.length;
    for (const row of rows) await opts.afterRow?.(row.row);
    heartbeat();
  };

  let next = 0;
  const worker = async () => {
    while (!stop && !failure && next < plan.groups.length) {
      const batch: PhoneGroup[] = [];
      const owners = new Set<string>();
      let batchItems = 0;
      // Take consecutive single-row groups while they fit one transaction. A transaction may
      // touch an item once only, so two rows checking the same owner never share one.
      while (next < plan.groups.length && plan.groups[next]!.rows.length === 1 && batch.length < MAX_ROWS_PER_TRANSACTION) {
        const row = plan.groups[next]!.rows[0]!;
        const cost = itemsPerNewRow(row);
        const owner = row.fields.owner_user_id;
        if (batchItems + cost > MAX_TRANSACTION_ITEMS || (owner !== undefined && owners.has(owner))) break;
        if (owner !== undefined) owners.add(owner);
        batchItems += cost;
        batch.push(plan.groups[next++]!);
      }
      try {
        if (batch.length > 1) await processBatch(batch);
        else await processGroup(batch[0] ?? plan.groups[next++]!);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  /**
   * Items one new row writes: phone guard, contact, consent, the suppression check (or, for
   * do_not_call = true, the suppression's ACTIVE item and entry), (+ owner check) (+ list membership).
   */
  const itemsPerNewRow = (row: MappedRow) => 4 + (row.doNotCall ? 1 : 0) + (row.fields.owner_user_id ? 1 : 0) + (listId ? 1 : 0);
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? DEFAULT_CONCURRENCY, plan.groups.length) }, worker));
  await beat;

  // 4. A terminal state, conditionally on the job still running under our lease.
  const log = { import_id: importId, ...counts, rows_total: plan.rowsTotal, ms: Date.now() - started.getTime() };
  if (failure || stop) {
    const why: FailureReason = failure ? 'internal_error' : stop!;
    logger.error('import failed', { ...log, reason: why, ...(failure ? { error: (failure as Error)?.message } : {}) });
    const failed = await failImportJob(tenantId, importId, progress(), why, new Date());
    if (!failed && failure) throw failure;
    return failed ?? job;
  }
  try {
    const done = await completeImportJob(tenantId, importId, progress(), new Date());
    logger.info('import completed', log);
    return done;
  } catch (err) {
    if (!(err instanceof LeaseLost)) throw err;
    logger.error('import finished after its lease expired', log);
    return (await failImportJob(tenantId, importId, progress(), 'interrupted', new Date())) ?? job;
  }
}

/**
 * Write the job (with the list list_name creates when there is none yet). When another
 * request creates a list of that name meanwhile, its list is used, as findOrCreateListByName
 * would. Returns the target list id.
 */
async function startJob(prepared: PreparedImport, job: ImportJobRecord, attestation: Attestation, at: Date): Promise<string | undefined> {
  const name = prepared.request.list_name;
  let list = prepared.list;
  for (let attempt = 1; ; attempt++) {
    const created = name !== undefined && !list ? newList(name, at) : undefined;
    job.target_list_id = (list ?? created)?.id ?? null;
    try {
      await startImportJob(job, attestation, created);
      return job.target_list_id ?? undefined;
    } catch (err) {
      if (!(err instanceof ListNameTaken) || attempt >= 3) throw err;
      list = await findListByName(prepared.tenantId, name!);
    }
  }
}

/**
 * Undo step 1 for a request that failed before its job was written: nothing refers to the
 * evidence object, so it is deleted. Should the job write have committed after all (an
 * error with an unknown outcome, e.g. a timeout), the job refers to the file: the file is
 * kept and the job, which has no rows, is ended failed.
 */
async function undoEvidence(tenantId: string, importId: string): Promise<void> {
  try {
    if (await getImportJob(tenantId, importId)) {
      await failImportJob(
        tenantId,
        importId,
        { rows_accepted: 0, rows_rejected: 0, rows_skipped: 0, errors: [], errors_truncated: false },
        'internal_error',
        new Date(),
      );
      return;
    }
    await deleteImportFile(tenantId, importId);
  } catch (err) {
    logger.error('a refused import could not undo its evidence write', { import_id: importId, error: (err as Error).message });
  }
}

interface Existing {
  contactId: string;
  /** The row of this file that created the contact, if one did. */
  row?: number;
}

/** The reason a row whose write failed for its own sake is rejected. */
const rowFailureReason = (row: MappedRow, err: UnknownOwner | RowRefused) =>
  err instanceof RowRefused
    ? reason(row, err.field, err.type, err.message)
    : reason(row, 'owner_user_id', 'user_not_found', `owner_user_id '${row.fields.owner_user_id}' is not an active user of this tenant`);

class ContactChanged extends Error {}

/**
 * What one contact's attributes may total (JSON, UTF-8) after an update merges a row's
 * attributes.<key> cells into them. A single row's cells are at most 64 KiB (plus keys), so
 * only accumulation over many imports can reach it; with the other fields and at most four
 * consent grants, the contact item stays far below DynamoDB's 400 KB.
 */
export const MAX_MERGED_ATTRIBUTES_BYTES = 128 * 1024;

/**
 * on_duplicate=update: the mapped fields of the existing contact, a new consent record and
 * the list membership, in one transaction. The contact is read first and written back on
 * the condition that it has not changed in between (retried if it has): mapped
 * attributes.<key> columns set those keys only (the contact's other attributes stay), and
 * the consent grants are compacted (at most one per basis), so no import — however often
 * repeated — makes the contact item grow without bound.
 */
async function updateExisting(
  tenantId: string,
  contactId: string,
  fields: ContactFields,
  consent: ReturnType<typeof buildConsent>,
  opts: { now: string; listId: string | undefined; suppression?: () => Suppression },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const entry = opts.suppression?.();
    const [current, suppressed] = await Promise.all([getContactRecord(tenantId, contactId), entry ? isSuppressed(tenantId, entry.phone_e164) : false]);
    if (!current) throw new Error(`contact ${contactId} vanished during an import update`);
    let merged = fields;
    if (fields.attributes) {
      merged = { ...fields, attributes: { ...(current.attributes ?? {}), ...fields.attributes } };
      const bytes = Buffer.byteLength(JSON.stringify(merged.attributes), 'utf8');
      if (bytes > MAX_MERGED_ATTRIBUTES_BYTES) {
        throw new RowRefused(
          'attributes_too_large',
          `The contact's attributes would total ${bytes} bytes with this row's; at most ${MAX_MERGED_ATTRIBUTES_BYTES} are kept on a contact`,
          'attributes',
        );
      }
    }
    // Already suppressed: the contact's do_not_call is already true and stays so; no second entry.
    const addSuppression = entry && !suppressed ? entry : undefined;
    const items = updateContactItems(tenantId, contactId, merged, consent, {
      now: opts.now,
      current,
      ...(opts.listId ? { listId: opts.listId } : {}),
      ...(addSuppression ? { addSuppression } : {}),
    });
    try {
      await refusingRow(items, () => writeUpdate(items));
      return;
    } catch (err) {
      if (err instanceof ContactChanged && mayRetry(RACE, attempt)) {
        await backoff(RACE, attempt);
        continue;
      }
      throw err;
    }
  }
}

async function writeUpdate(items: TransactItem[]): Promise<void> {
  try {
    await transactWrite(items);
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    const reasons = err.CancellationReasons ?? [];
    // The contact changed, or the number was suppressed meanwhile: read both again.
    if (reasons[0]?.Code === 'ConditionalCheckFailed') throw new ContactChanged();
    if (items.some((item, i) => touchesActiveSuppression(item) && reasons[i]?.Code === 'ConditionalCheckFailed')) throw new ContactChanged();
    const ownerIndex = items.findIndex((i) => i.ConditionCheck?.Key?.sk?.toString().startsWith('USER#'));
    if (ownerIndex >= 0 && reasons[ownerIndex]?.Code === 'ConditionalCheckFailed') throw new UnknownOwner();
    throw err;
  }
}
