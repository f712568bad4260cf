/**
 * Import jobs. A job is written as `running` with a lease (lease_expires_at) together with
 * its attestation, BEFORE the first row; the run extends the lease as it makes progress
 * (heartbeat) and ends with a conditional update to `completed` (or `failed`) on the
 * expected source state. A job whose process died keeps `running` in the table, but its
 * lease runs out, and every read presents a `running` job with an expired lease as
 * `failed` (failure_reason "interrupted"): a job that died midway never reads completed.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { collections, contactKeys } from '../db/keys.js';
import { isId } from '../ids.js';
import { type FilterCondition, filterScope } from '../pagination/filters.js';
import { type Page, queryPage } from '../pagination/page.js';
import type { ConsentBasis } from '../policy/consent-strength.js';
import {
  IMPORT_STATUSES,
  type ImportJobResource,
  type ImportJobSummaryResource,
  type ImportRowError,
  type ImportStatus,
  type OnDuplicate,
} from '../schemas/imports.js';
import { type Attestation, attestationItem } from './attestations.js';
import { type ContactList, nameTakenOrSelf, newListItems } from './contact-lists.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

interface StoredAttestation {
  signer_name: string;
  signer_title: string;
  affirmation: string;
  consent_basis: ConsentBasis;
  signer_ip: string | null;
  signed_at: string;
}

export interface ImportProgress {
  rows_accepted: number;
  rows_rejected: number;
  rows_skipped: number;
  errors: ImportRowError[];
  errors_truncated: boolean;
}

export interface ImportJobRecord extends ImportProgress {
  id: string;
  tenant_id: string;
  status: ImportStatus;
  file_name: string;
  file_uri: string;
  file_sha256: string;
  column_mapping: Record<string, string>;
  target_list_id: string | null;
  consent_attestation: StoredAttestation;
  attestation_id: string;
  consent_scope: Record<string, unknown>;
  on_duplicate: OnDuplicate;
  rows_total: number;
  failure_reason: string | null;
  /** Present while running: past this instant, a running job is presented as failed. */
  lease_expires_at?: string;
  created_at: string;
  updated_at: string;
}

/** interrupted: the run stopped renewing its lease (it died); time_limit: it ran out of time; internal_error: an unexpected error. */
export type FailureReason = 'interrupted' | 'time_limit' | 'internal_error';

/** The job's lease ran out before the run could finish it: the job reads `failed`. */
export class LeaseLost extends Error {}

const T = () => tableName();

/**
 * Write the running job and its attestation in one transaction (before the first row),
 * together with the list the import creates, if any (`newList`): the list exists exactly
 * when the job does. ListNameTaken when another request took the list's name meanwhile.
 */
export async function startImportJob(job: ImportJobRecord, attestation: Attestation, newList?: ContactList): Promise<void> {
  const jobItems: TransactItem[] = [
    {
      Put: {
        TableName: T(),
        Item: { ...contactKeys.importJob(job.tenant_id, job.id), type: 'import_job', ...job },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: T(),
        // The attestation record also keeps what the server stamped (who signed, from where, when).
        Item: {
          ...attestationItem(job.tenant_id, attestation),
          consent_basis: job.consent_attestation.consent_basis,
          signer_ip: job.consent_attestation.signer_ip,
          signed_at: job.consent_attestation.signed_at,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  try {
    await db().send(new TransactWriteCommand({ TransactItems: [...jobItems, ...(newList ? newListItems(job.tenant_id, newList) : [])] }));
  } catch (err) {
    throw newList ? nameTakenOrSelf(err, newList, jobItems.length) : err;
  }
}

const progressValues = (p: ImportProgress) => ({
  ':acc': p.rows_accepted,
  ':rej': p.rows_rejected,
  ':skp': p.rows_skipped,
  ':errs': p.errors,
  ':trunc': p.errors_truncated,
});
const PROGRESS_SET = 'rows_accepted = :acc, rows_rejected = :rej, rows_skipped = :skp, #errors = :errs, errors_truncated = :trunc, updated_at = :now';

const isConditionFailure = (err: unknown) => err instanceof ConditionalCheckFailedException;

/** Persist progress and extend the lease, only while this run still holds a live lease. */
export async function heartbeatImportJob(tenantId: string, id: string, p: ImportProgress, now: Date, leaseUntil: Date): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: T(),
        Key: contactKeys.importJob(tenantId, id),
        UpdateExpression: `SET ${PROGRESS_SET}, lease_expires_at = :lease`,
        ConditionExpression: '#status = :running AND lease_expires_at > :now',
        ExpressionAttributeNames: { '#status': 'status', '#errors': 'errors' },
        ExpressionAttributeValues: { ...progressValues(p), ':now': now.toISOString(), ':lease': leaseUntil.toISOString(), ':running': 'running' },
      }),
    );
  } catch (err) {
    if (isConditionFailure(err)) throw new LeaseLost();
    throw err;
  }
}

/** running → completed with the exact counts, only while the lease is live. */
export async function completeImportJob(tenantId: string, id: string, p: ImportProgress, now: Date): Promise<ImportJobRecord> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: T(),
        Key: contactKeys.importJob(tenantId, id),
        UpdateExpression: `SET ${PROGRESS_SET}, #status = :completed REMOVE lease_expires_at`,
        ConditionExpression: '#status = :running AND lease_expires_at > :now',
        ExpressionAttributeNames: { '#status': 'status', '#errors': 'errors' },
        ExpressionAttributeValues: { ...progressValues(p), ':now': now.toISOString(), ':running': 'running', ':completed': 'completed' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as ImportJobRecord;
  } catch (err) {
    if (isConditionFailure(err)) throw new LeaseLost();
    throw err;
  }
}

/** running → failed (with the progress so far). Undefined when the job is no longer running. */
export async function failImportJob(tenantId: string, id: string, p: ImportProgress, reason: FailureReason, now: Date): Promise<ImportJobRecord | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: T(),
        Key: contactKeys.importJob(tenantId, id),
        UpdateExpression: `SET ${PROGRESS_SET}, #status = :failed, failure_reason = :reason REMOVE lease_expires_at`,
        ConditionExpression: '#status = :running',
        ExpressionAttributeNames: { '#status': 'status', '#errors': 'errors' },
        ExpressionAttributeValues: { ...progressValues(p), ':now': now.toISOString(), ':running': 'running', ':failed': 'failed', ':reason': reason },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as ImportJobRecord;
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

export async function getImportJob(tenantId: string, id: string): Promise<ImportJobRecord | undefined> {
  if (!isId(id)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: T(), Key: contactKeys.importJob(tenantId, id), ConsistentRead: true }));
  return out.Item?.type === 'import_job' ? (out.Item as ImportJobRecord) : undefined;
}

/** The status a reader sees: a running job whose lease has expired has died → failed. */
export function effectiveStatus(
  job: Pick<ImportJobRecord, 'status' | 'lease_expires_at' | 'failure_reason'>,
  now: Date,
): { status: ImportStatus; failure_reason: string | null } {
  if (job.status === 'running' && (!job.lease_expires_at || job.lease_expires_at <= now.toISOString())) {
    return { status: 'failed', failure_reason: 'interrupted' };
  }
  return { status: job.status, failure_reason: job.failure_reason ?? null };
}

function presentImportJobSummary(job: ImportJobRecord, now: Date): ImportJobSummaryResource {
  return {
    id: job.id,
    ...effectiveStatus(job, now),
    file_name: job.file_name,
    file_uri: job.file_uri,
    file_sha256: job.file_sha256,
    column_mapping: job.column_mapping,
    target_list_id: job.target_list_id ?? null,
    consent_attestation: {
      signer_name: job.consent_attestation.signer_name,
      signer_title: job.consent_attestation.signer_title,
      affirmation: job.consent_attestation.affirmation,
      consent_basis: job.consent_attestation.consent_basis,
      signer_ip: job.consent_attestation.signer_ip ?? null,
      signed_at: job.consent_attestation.signed_at,
    },
    attestation_id: job.attestation_id,
    consent_scope: job.consent_scope,
    on_duplicate: job.on_duplicate,
    rows_total: job.rows_total,
    rows_accepted: job.rows_accepted ?? 0,
    rows_rejected: job.rows_rejected ?? 0,
    rows_skipped: job.rows_skipped ?? 0,
    errors_truncated: job.errors_truncated ?? false,
    created_at: job.created_at,
    updated_at: job.updated_at,
  };
}

export function presentImportJob(job: ImportJobRecord, now: Date): ImportJobResource {
  return {
    ...presentImportJobSummary(job, now),
    errors: (job.errors ?? []).map((e) => ({ row: e.row, line: e.line ?? null, field: e.field ?? null, type: e.type, msg: e.msg })),
  };
}

// ---------------------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------------------

/** Everything a list item needs: the (possibly long) errors array is not read. */
const SUMMARY_ATTRIBUTES = [
  'pk',
  'sk',
  'id',
  'tenant_id',
  'status',
  'file_name',
  'file_uri',
  'file_sha256',
  'column_mapping',
  'target_list_id',
  'consent_attestation',
  'attestation_id',
  'consent_scope',
  'on_duplicate',
  'rows_total',
  'rows_accepted',
  'rows_rejected',
  'rows_skipped',
  'errors_truncated',
  'failure_reason',
  'lease_expires_at',
  'created_at',
  'updated_at',
] as const;

const compare = (a: string, op: FilterCondition['op'], b: string) =>
  op === 'eq' ? a === b : op === 'gte' ? a >= b : op === 'lte' ? a <= b : op === 'gt' ? a > b : a < b;

/** The effective statuses the status conditions select (AND across conditions). */
export function selectedStatuses(conditions: readonly FilterCondition[]): Set<ImportStatus> {
  let selected = new Set<ImportStatus>(IMPORT_STATUSES);
  for (const c of conditions) {
    const values = c.values.map(String);
    const match = IMPORT_STATUSES.filter((s) => (c.op === 'eq' ? values.includes(s) : compare(s, c.op, values[0]!)));
    selected = new Set([...selected].filter((s) => match.includes(s)));
  }
  return selected;
}

/**
 * A FilterExpression over the STORED status and lease that selects jobs by their
 * EFFECTIVE status (a running job with an expired lease counts as failed).
 */
export function statusFilter(
  selected: ReadonlySet<ImportStatus>,
  now: string,
): { expression: string; names: Record<string, string>; values: Record<string, string> } | undefined {
  if (selected.size === IMPORT_STATUSES.length) return undefined;
  const names: Record<string, string> = { '#st': 'status' };
  const values: Record<string, string> = {};
  const clauses: string[] = [];
  const eq = (s: ImportStatus) => {
    values[`:st_${s}`] = s;
    return `#st = :st_${s}`;
  };
  for (const s of ['queued', 'completed'] as const) if (selected.has(s)) clauses.push(eq(s));
  const running = selected.has('running');
  const failed = selected.has('failed');
  if (running && failed) clauses.push(eq('running'), eq('failed'));
  else if (failed || running) {
    names['#lease'] = 'lease_expires_at';
    values[':st_now'] = now;
    if (failed) clauses.push(eq('failed'), `(${eq('running')} AND (attribute_not_exists(#lease) OR #lease <= :st_now))`);
    else clauses.push(`(${eq('running')} AND #lease > :st_now)`);
  }
  if (clauses.length === 0) return { expression: '#st = :st_none', names, values: { ':st_none': '' } };
  return { expression: clauses.length === 1 ? clauses[0]! : `(${clauses.join(' OR ')})`, names, values };
}

/**
 * GET /v1/contact-imports: newest first, filters created_at and status. The status filter
 * is judged on the effective status (an expired lease reads as failed), and list items
 * leave out the errors array (a projection).
 */
export async function listImportJobs(
  tenantId: string,
  opts: { limit: number; cursor?: string; filters: FilterCondition[] },
  now: Date,
): Promise<Page<ImportJobSummaryResource>> {
  const statusConditions = opts.filters.filter((c) => c.field === 'status');
  const status = statusConditions.length ? statusFilter(selectedStatuses(statusConditions), now.toISOString()) : undefined;
  return queryPage({
    tenantId,
    scope: 'imports',
    skPrefix: collections.imports,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters.filter((c) => c.field !== 'status'),
    ...(status ? { extraFilter: { ...status, scope: filterScope(statusConditions) } } : {}),
    projection: SUMMARY_ATTRIBUTES,
    map: (item) => presentImportJobSummary(item as unknown as ImportJobRecord, now),
  });
}
