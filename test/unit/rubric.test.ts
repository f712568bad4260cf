import { describe, expect, it } from 'vitest';
import { buildRubric, rubric } from '../../shared/policy/rubric.js';

describe('agent version rubric', () => {
  const objectives = [{ id: 'book', description: 'Book a meeting', required: true }];
  const r = buildRubric('agv_01JZZZZZZZZZZZZZZZZZZZZZZZ', objectives);

  it('pins the version and names the five call-detail dimensions in order', () => {
    expect(r.rubric_version).toBe('agv_01JZZZZZZZZZZZZZZZZZZZZZZZ');
    expect(r.dimensions.map((d) => d.name)).toEqual(['goal_completion', 'disclosure_given', 'optout_honored', 'pack_grounded', 'latency']);
    expect(rubric.parse(r)).toEqual(r);
  });

  it('scores goals against the objectives and makes disclosure and opt-out the only floors', () => {
    expect(r.dimensions[0]).toMatchObject({ name: 'goal_completion', criteria: objectives, floor: false });
    expect(r.dimensions.filter((d) => d.floor).map((d) => d.name)).toEqual(['disclosure_given', 'optout_honored']);
    expect(r.dimensions.find((d) => d.name === 'pack_grounded')?.applies).toBe('with_knowledge_pack');
  });
});
