/** The pre-dial compliance engine (see docs/decisions/calls-and-compliance.md): one pure function and the types around it. */
export { evaluate } from './evaluate.js';
export { isUsJurisdiction, placeOf } from './numbering.js';
export {
  type AttemptFacts,
  BLOCK_CODES,
  type ComplianceDecision,
  type ComplianceInputs,
  type ComplianceReason,
  type ConsentFacts,
  DEFER_CODES,
  type Disposition,
  type DncSnapshotFacts,
  type ProfileFacts,
  RULE_SET_VERSION,
  type SanRefFacts,
} from './types.js';
