/** A state change as the SET clauses it makes on a call (shared/repositories/call-state-update.ts). */
import { describe, expect, it } from 'vitest';
import { addStateChange } from '../../../shared/repositories/call-state-update.js';

describe('a state change as update clauses', () => {
  it('sets the state, only the outcome fields the change decides, and stamps once', () => {
    const parts = addStateChange(
      { sets: ['updated_at = :now'], names: {}, values: { ':now': 'T' } },
      { state: 'completed', disposition: 'completed', disposition_set_by: 'carrier', stamp: 'ended_at' },
    );
    expect(parts.sets).toEqual([
      'updated_at = :now',
      '#state = :to',
      'disposition = :disposition',
      'disposition_set_by = :disposition_set_by',
      'ended_at = if_not_exists(ended_at, :now)',
    ]);
    expect(parts.names).toEqual({ '#state': 'state' });
    expect(parts.values).toEqual({ ':now': 'T', ':to': 'completed', ':disposition': 'completed', ':disposition_set_by': 'carrier' });
  });

  it('a bare move sets the state alone', () => {
    expect(addStateChange({ sets: [], names: {}, values: {} }, { state: 'dialing' }).sets).toEqual(['#state = :to']);
  });
});
