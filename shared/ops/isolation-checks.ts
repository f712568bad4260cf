/**
 * Tenant-isolation self-checks run by GET /readyz. Pure: they exercise the deployed
 * code's own key scheme and credential format, so a build that broke either is not
 * put into service.
 */
import { formatToken, hashSecret, parseToken } from '../auth/api-key-token.js';
import {
  agentKeys,
  answeringPolicyKeys,
  belongsToTenant,
  callKeys,
  contactKeys,
  isPlatformPartition,
  keys,
  platformKeys,
  suppressionKeys,
  tenantPk,
} from '../db/keys.js';

const A = 'ten_00000000000000000000000000';
const B = 'ten_00000000000000000000000001';
const K = 'key_00000000000000000000000000';

export function tenantIsolationHolds(): boolean {
  // Every tenant-reachable key lives in the tenant's own partition.
  const built: { pk: string; gsi1pk?: string }[] = [
    keys.tenant(A),
    keys.user(A, 'usr_x'),
    keys.apiKey(A, K),
    keys.idempotency(A, 'r', 'k'),
    keys.userEmail(A, 'a@b.c'),
    contactKeys.contact(A, 'con_x'),
    contactKeys.phone(A, '+15550001111'),
    contactKeys.consent(A, 'con_x', 'cns_x'),
    contactKeys.attempt(A, 'con_x', 'att_x'),
    contactKeys.placements(A, 'con_x', '2026-01-01'),
    contactKeys.listMember(A, 'lst_x', 'con_x'),
    contactKeys.importJob(A, 'imp_x'),
    agentKeys.agent(A, 'agt_x'),
    agentKeys.version(A, 'agt_x', 1),
    agentKeys.versionPointer(A, 'agv_x'),
    agentKeys.complianceProfile(A, 'cpr_x'),
    agentKeys.rep(A, 'rep_x'),
    keys.telephonyAccount(A, 'tac_x'),
    keys.phoneNumber(A, 'pnb_x'),
    answeringPolicyKeys.version(A, 'pnb_x', 1),
    { ...callKeys.call(A, 'cal_x'), ...callKeys.callIndex(A, 'cal_x') },
    suppressionKeys.active(A, '+15550001111'),
    { ...suppressionKeys.entry(A, '+15550001111', 'sup_x'), ...suppressionKeys.entryIndex(A, 'sup_x') },
  ];
  if (
    !built.every(
      (k) => belongsToTenant(k.pk, A) && !belongsToTenant(k.pk, B) && !isPlatformPartition(k.pk) && (k.gsi1pk === undefined || belongsToTenant(k.gsi1pk, A)),
    )
  )
    return false;
  // Platform-owned records (templates) sit in no tenant's partition.
  const platform = [
    platformKeys.template('tpl_x').pk,
    platformKeys.templateVersion('tpl_x', 1).pk,
    platformKeys.sandboxAccount('AC1').pk,
    platformKeys.sandboxNumber('+15550001111').pk,
    platformKeys.numberClaim('+15550001111').pk,
    platformKeys.carrierCall('CA1').pk,
    platformKeys.carrierAccountUse('AC1', A, 'tac_x').pk,
    platformKeys.dncPointer('415').pk,
    platformKeys.dncGeneration('415', 'dng_x').pk,
    platformKeys.dncExchange('415', 'dng_x', '555').pk,
  ];
  if (!platform.every((pk) => isPlatformPartition(pk) && !belongsToTenant(pk, A))) return false;
  // A tenant id that is a prefix of another's never matches it.
  if (belongsToTenant(tenantPk(`${A}1`), A)) return false;
  // An id carrying the separator cannot address another partition.
  try {
    tenantPk('ten_x#TENANT#other');
    return false;
  } catch {
    /* refused, as it must be */
  }
  // A credential names its tenant; swapping the tenant changes nothing it can unlock,
  // because the key record is read from the named tenant's partition only.
  const token = formatToken(A, K, 'a'.repeat(43));
  const parsed = parseToken(token);
  if (!parsed || parsed.tenantId !== A || keys.apiKey(parsed.tenantId, parsed.keyId).pk === tenantPk(B)) return false;
  // The hash is bound to the key id: the same secret under another key id does not match.
  return hashSecret('p'.repeat(32), K, 's') !== hashSecret('p'.repeat(32), 'key_00000000000000000000000001', 's');
}
