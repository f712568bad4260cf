/**
 * The account deletion itself (see docs/decisions/account-deletion.md): run by the `accountDeletions` scheduled job (and
 * locally `npm run admin -- jobs run deletions --at …`) for every request whose grace period
 * has ended. Idempotent and resumable: every step can run again, and the long one (the
 * sweep) checkpoints its place on the request item after each page.
 *
 * Steps, in order (the request item records the step reached):
 *  1. `revoke`     — the tenant's API keys and dashboard sessions go first: from here every
 *                    route of the tenant answers 401, while the rest is cleared.
 *  2. `campaigns`  — campaigns that still dial are cancelled (their own move + event).
 *  2b. `calls`     — single calls not yet dialled (pending, scrubbed, scheduled) are cancelled
 *                    through the cancel route's transition, so nothing dials after the start.
 *  3. `numbers`    — every number we bought that the carrier still bills is released at the
 *                    carrier (a connected one, the customer's own, is left there); then
 *                    the sandbox carrier's account behind each mock telephony account is
 *                    deleted and its SID recorded, so the sweep also deletes that account's
 *                    sandbox calls and messages (bodies, numbers), which carry no tenant_id.
 *  4. `objects`    — the import bucket's objects under `imports/<tenant>/`.
 *  5. `sweep`      — a segmented, checkpointed Scan deletes every item whose pk is the
 *                    tenant's (`TENANT#<id>` or `TENANT#<id>#…`) or that names the tenant
 *                    (`tenant_id`, platform pointers such as login emails, number claims,
 *                    outbox markers), except the kept kinds of retention.ts; an active
 *                    suppression leaves its number's keyed hash behind first. A pass that
 *                    deleted anything is followed by another (up to MAX_SWEEP_PASSES): an
 *                    item written behind the first pass (an in-flight request, a worker) is
 *                    found by the next, and only a pass that finds nothing ends the sweep.
 *  6. `finish`     — the tenant record becomes a tombstone, the request `completed`, the
 *                    due item goes.
 * Generic over keys (not a list of repositories), so item types added later are deleted too.
 */

import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { cancelCampaign } from '../campaigns/actions.js';
import { env } from '../config.js';
import { deleteKeys } from '../db/batch-write.js';
import { belongsToTenant, collections, platformKeys } from '../db/keys.js';
import { transactWrite } from '../db/transact-write.js';
import { logger } from '../observability.js';
import { ACTIVE_CAMPAIGN_STATUSES, RELEASABLE_NUMBER_STATUSES } from '../policy/accounts/deletion-rules.js';
import {
  completeDeletion,
  type DeletionRequest,
  dropDeletionDue,
  dueDeletions,
  getDeletionRequest,
  saveDeletionProgress as saveProgress,
  startDeletionItem,
} from '../repositories/account-deletion.js';
import { cancelCall } from '../repositories/call-lifecycle.js';
import { callsInStates } from '../repositories/calls.js';
import { markNumberReleased } from '../repositories/phone-numbers.js';
import { revokeSessions } from '../repositories/sessions.js';
import { getTelephonyAccount, openSandboxCredentials, type TelephonyAccountRecord } from '../repositories/telephony-accounts.js';
import { putRetainedItem, SANDBOX_ITEMS_PREFIX, sweepPage, tenantCollection as tenantItems } from '../repositories/tenant-data.js';
import { getTenant, markTenantDeleting, putTenantTombstone, tenantDeletingItem } from '../repositories/tenants.js';
import { appSecrets } from '../secrets.js';
import { providerFor } from '../telephony/carrier-for.js';
import { isRetained, numberHash, suppressedNumber, suppressionHashItem, suppressionHashKey, tenantTombstone } from './retention.js';

export const DELETION_STEPS = ['revoke', 'campaigns', 'calls', 'numbers', 'objects', 'sweep', 'finish'] as const;
export type DeletionStep = (typeof DELETION_STEPS)[number];
/** Parallel Scan segments of the sweep (each checkpointed on its own). */
export const SWEEP_SEGMENTS = 4;
const SWEEP_PAGE = 200;
/** A sweep pass that still finds items is followed by another, at most this many in one run. */
export const MAX_SWEEP_PASSES = 5;

/** Test hook: throw after this many items were deleted by the sweep (a crash half-way). */
export interface DeletionFaults {
  crashAfterDeletes?: number;
  /** Test hook: runs after each complete sweep pass (e.g. writes an item behind it). */
  afterSweepPass?: (pass: number) => Promise<void>;
}

export class InjectedCrash extends Error {}

interface Progress {
  step: DeletionStep;
  /** Per sweep segment: the Scan's next start key, null before the first page, 'done' after the last. */
  segments: (Record<string, unknown> | null | 'done')[];
  /** The sweep pass (1-based) and how many items it deleted so far (resumable with the segments). */
  pass?: number;
  pass_deleted?: number;
  /** The sandbox carrier accounts (AC…) of the tenant's mock telephony accounts: the sweep deletes their calls and messages. */
  sandbox_accounts?: string[];
}

async function revoke(tenantId: string): Promise<void> {
  await deleteKeys((await tenantItems(tenantId, collections.apiKeys)) as { pk: string; sk: string }[]);
  await revokeSessions(tenantId);
}

async function cancelCampaigns(tenantId: string): Promise<void> {
  for (const c of await tenantItems(tenantId, collections.campaigns)) {
    if (!(ACTIVE_CAMPAIGN_STATUSES as readonly string[]).includes(c.status as string)) continue;
    await cancelCampaign(tenantId, c.id as string).catch((err: unknown) => {
      // A campaign that finished or was cancelled meanwhile is what we wanted.
      if ((err as { status?: number }).status !== 409) throw err;
    });
  }
}

const NOT_YET_DIALLED = ['pending', 'scrubbed', 'scheduled'];

/** Single calls not yet dialled are cancelled by the cancel route's own transition (event + analysis watch as usual). */
async function cancelUndialledCalls(tenantId: string, at: Date): Promise<void> {
  for await (const calls of callsInStates(tenantId, NOT_YET_DIALLED)) {
    for (const c of calls) {
      // Raced by dispatch: whichever commits first wins; a dialled call ends as calls do.
      if (c.direction === 'outbound') await cancelCall(tenantId, c.id as string, at);
    }
  }
}

async function releaseNumbers(tenantId: string, at: Date): Promise<void> {
  for (const n of await tenantItems(tenantId, collections.phoneNumbers)) {
    if (!(RELEASABLE_NUMBER_STATUSES as readonly string[]).includes(n.status as string)) continue;
    // Only a number we bought goes back to the carrier. A connected one is the customer's own
    // (released, it would be lost to them): it stays at their carrier account as it is.
    const account = await getTelephonyAccount(tenantId, n.telephony_account_id as string);
    if (account && n.provider_sid && n.acquired === 'bought') {
      await (await providerFor(account)).releaseNumber(n.provider_sid as string);
    } else if (n.acquired !== 'connected') {
      logger.warn('number of unknown origin kept at the carrier', { tenant_id: tenantId, number_id: n.id });
    }
    await markNumberReleased(tenantId, n.id as string, at);
  }
}

/** The sandbox carrier accounts behind the tenant's mock telephony accounts; each account item goes (after the numbers were released through it). */
async function deleteSandboxAccounts(tenantId: string): Promise<string[]> {
  const sids: string[] = [];
  for (const a of await tenantItems(tenantId, collections.telephonyAccounts)) {
    const creds = await openSandboxCredentials(a as unknown as TelephonyAccountRecord);
    if (creds?.account_sid) sids.push(creds.account_sid);
  }
  await deleteKeys(sids.map((sid) => platformKeys.sandboxAccount(sid)));
  return sids;
}

let s3: S3Client | undefined;
async function deleteObjects(tenantId: string): Promise<void> {
  const bucket = process.env.IMPORT_BUCKET;
  if (!bucket) throw new Error('environment variable IMPORT_BUCKET is not set');
  s3 ??= new S3Client({ region: env.region, ...(env.s3Endpoint ? { endpoint: env.s3Endpoint, forcePathStyle: true } : {}) });
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `imports/${tenantId}/`, ContinuationToken: token }));
    const objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
    if (objects.length) await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** Items the sweep must leave for the finish step (the job's own bookkeeping). */
const bookkeeping = (item: { pk: string }) => item.pk === platformKeys.deletionsDuePartition;

async function sweepSegment(
  tenantId: string,
  progress: Progress,
  segment: number,
  counter: { deleted: number },
  faults: DeletionFaults,
  hashKey: Buffer,
  at: Date,
): Promise<void> {
  while (progress.segments[segment] !== 'done') {
    const start = progress.segments[segment] as Record<string, unknown> | null;
    // The sandbox carrier's calls and messages name their account, not the tenant.
    const sandbox = progress.sandbox_accounts ?? [];
    const page = await sweepPage(tenantId, { segment, totalSegments: SWEEP_SEGMENTS, limit: SWEEP_PAGE, start, sandboxAccounts: sandbox });
    const doomed: { pk: string; sk: string }[] = [];
    for (const raw of page.items) {
      const item = raw as { pk: string; sk: string; tenant_id?: string; account_sid?: string };
      // begins_with(pk, 'TENANT#ten_1#') cannot match another tenant; tenant_id must be exact.
      const sandboxItem = item.pk.startsWith(SANDBOX_ITEMS_PREFIX) && sandbox.includes(item.account_sid ?? '');
      if (!belongsToTenant(item.pk, tenantId) && item.tenant_id !== tenantId && !sandboxItem) continue;
      if (isRetained(item, tenantId) || bookkeeping(item)) continue;
      const suppressed = suppressedNumber(item, tenantId);
      if (suppressed) await putRetainedItem(suppressionHashItem(tenantId, numberHash(hashKey, suppressed), at));
      doomed.push({ pk: item.pk, sk: item.sk });
    }
    for (let i = 0; i < doomed.length; i += 25) {
      const chunk = doomed.slice(i, i + 25);
      if (faults.crashAfterDeletes !== undefined && counter.deleted + chunk.length > faults.crashAfterDeletes) {
        const room = Math.max(0, faults.crashAfterDeletes - counter.deleted);
        await deleteKeys(chunk.slice(0, room));
        counter.deleted += room;
        throw new InjectedCrash(`injected crash after ${counter.deleted} deletes`);
      }
      await deleteKeys(chunk);
      counter.deleted += chunk.length;
    }
    progress.pass_deleted = (progress.pass_deleted ?? 0) + doomed.length;
    progress.segments[segment] = page.next ?? 'done';
    await saveProgress(tenantId, progress);
  }
}

export interface DeletionOutcome {
  tenant_id: string;
  outcome: 'completed' | 'skipped' | 'failed';
  deleted_items?: number;
  reason?: string;
}

/** Delete one tenant whose request is due at `at` (or resume its run). */
export async function deleteTenant(tenantId: string, at: Date, faults: DeletionFaults = {}): Promise<DeletionOutcome> {
  let request = await getDeletionRequest(tenantId);
  if (!request || (request.status !== 'pending' && request.status !== 'deleting'))
    return { tenant_id: tenantId, outcome: 'skipped', reason: `request is ${request?.status ?? 'missing'}` };
  if (request.status === 'pending') {
    if (Date.parse(request.scheduled_for) > at.getTime()) return { tenant_id: tenantId, outcome: 'skipped', reason: 'not due yet' };
    const progress: Progress = { step: 'revoke', segments: Array.from({ length: SWEEP_SEGMENTS }, () => null) };
    // The point of no return: from here a cancellation is refused (409).
    // The tenant turns `deleting` in the same transaction: from here bearer keys (even one
    // minted during the run), sessions and sign-in are refused (401).
    await transactWrite([startDeletionItem(tenantId, request.revision, progress, at), tenantDeletingItem(tenantId)]);
    request = (await getDeletionRequest(tenantId))!;
  }
  const progress = (request as DeletionRequest & { progress: Progress }).progress;
  const stepIndex = (s: DeletionStep) => DELETION_STEPS.indexOf(s);
  const advance = async (to: DeletionStep) => {
    progress.step = to;
    await saveProgress(tenantId, progress);
  };
  const counter = { deleted: 0 };
  if (stepIndex(progress.step) <= stepIndex('revoke')) {
    // A run started before the tenant status existed resumes here: mark it now.
    await markTenantDeleting(tenantId);
    await revoke(tenantId);
    await advance('campaigns');
  }
  if (progress.step === 'campaigns') {
    await cancelCampaigns(tenantId);
    await advance('calls');
  }
  if (progress.step === 'calls') {
    await cancelUndialledCalls(tenantId, at);
    await advance('numbers');
  }
  if (progress.step === 'numbers') {
    await releaseNumbers(tenantId, at);
    progress.sandbox_accounts = await deleteSandboxAccounts(tenantId);
    await advance('objects');
  }
  if (progress.step === 'objects') {
    await deleteObjects(tenantId);
    await advance('sweep');
  }
  if (progress.step === 'sweep') {
    // Kept suppression hashes are keyed by a key derived (HKDF, its own label) from the server secret.
    const hashKey = suppressionHashKey((await appSecrets()).apiKeyPepper);
    // Segments run one after another when a crash is injected (a deterministic half-way point).
    for (;;) {
      progress.pass ??= 1;
      if (faults.crashAfterDeletes !== undefined) {
        for (let s = 0; s < SWEEP_SEGMENTS; s++) await sweepSegment(tenantId, progress, s, counter, faults, hashKey, at);
      } else {
        await Promise.all(Array.from({ length: SWEEP_SEGMENTS }, (_, s) => sweepSegment(tenantId, progress, s, counter, faults, hashKey, at)));
      }
      await faults.afterSweepPass?.(progress.pass);
      // Only a pass that found nothing proves nothing was written behind the sweep.
      if (!progress.pass_deleted) break;
      if (progress.pass >= MAX_SWEEP_PASSES) throw new Error(`items keep appearing after ${progress.pass} sweep passes; the next run sweeps again`);
      progress.pass += 1;
      progress.pass_deleted = 0;
      progress.segments = Array.from({ length: SWEEP_SEGMENTS }, () => null);
      await saveProgress(tenantId, progress);
    }
    await advance('finish');
  }
  const tenant = await getTenant(tenantId);
  await putTenantTombstone(tenantTombstone(tenantId, tenant?.created_at, at));
  await completeDeletion(request, at);
  logger.info('account deleted', { tenant_id: tenantId, deleted_items: counter.deleted });
  return { tenant_id: tenantId, outcome: 'completed', deleted_items: counter.deleted };
}

/** Every deletion due at `at` (the scheduled job and `admin jobs run deletions --at`). */
export async function runDueDeletions(at: Date, faults: DeletionFaults = {}): Promise<{ at: string; due: number; results: DeletionOutcome[] }> {
  const due = await dueDeletions(at);
  // One tenant's failure (a carrier that does not answer, a crash) does not hold the others up:
  // it is reported, and the next run resumes it from its checkpoint.
  const results: DeletionOutcome[] = [];
  for (const { tenantId, key } of due) {
    try {
      const outcome = await deleteTenant(tenantId, at, faults);
      // A due item whose request is gone, cancelled or completed (a run that stopped right after completing) is cleared.
      if (outcome.outcome === 'skipped' && outcome.reason !== 'not due yet') await dropDeletionDue(key);
      results.push(outcome);
    } catch (err) {
      logger.error('account deletion failed; the next run resumes it', { tenant_id: tenantId, error: (err as Error).message });
      results.push({ tenant_id: tenantId, outcome: 'failed', reason: (err as Error).message });
    }
  }
  return { at: at.toISOString(), due: due.length, results };
}
