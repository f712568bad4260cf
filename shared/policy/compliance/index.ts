/** The pre-dial compliance engine (see docs/decisions/calls-and-compliance.md): one pure function and the types around it. */
export { evaluate } from './evaluate.js';
export { placeOf, isUsJurisdiction } from './numbering.js';
export {
  RULE_SET_VERSION,
  BLOCK_CODES,
  DEFER_CODES,
  type ComplianceInputs,
  type ComplianceDecision,
  type ComplianceReason,
  type ConsentFacts,
  type ProfileFacts,
  type SanRefFacts,
  type DncSnapshotFacts,
  type AttemptFacts,
  type Disposition,
} from './types.js';
