/** The pre-dial compliance engine (issue 9): one pure function and the types around it. */
export { evaluate } from './evaluate.js';
export { placeOf, isUsJurisdiction, type NumberPlace, type AreaCodeInfo, type NanpRegion } from './numbering.js';
export { SEARCH_HORIZON_DAYS } from './next-permitted.js';
export { SNAPSHOT_MAX_AGE_DAYS } from './dnc.js';
export {
  RULE_SET_VERSION,
  BLOCK_CODES,
  DEFER_CODES,
  type ComplianceInputs,
  type ComplianceDecision,
  type ComplianceReason,
  type ContactFacts,
  type ConsentFacts,
  type ProfileFacts,
  type SanRefFacts,
  type DncSnapshotFacts,
  type AttemptFacts,
  type CallPurpose,
  type Channel,
  type Disposition,
  type ReasonCode,
} from './types.js';
