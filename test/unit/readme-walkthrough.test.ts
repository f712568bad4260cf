import { describe, expect, it } from 'vitest';
import { lastJsonLine, mismatches, walkthroughSteps } from '../support/readme-walkthrough.js';

describe('README walkthrough comparison', () => {
  it('matches key fields, wildcards and prefixes, and reports what differs', () => {
    expect(mismatches({ a: '…', b: 'ten_…', c: [1, '…'], d: null }, { a: 5, b: 'ten_01', c: [1, 2, 3], d: null, extra: true })).toEqual([]);
    expect(mismatches({ a: '…' }, {})).toEqual(['$.a: missing']);
    expect(mismatches({ b: 'ten_…' }, { b: 'usr_1' })).toHaveLength(1);
    expect(mismatches({ c: [1, 2] }, { c: [1, 2, 3] })).toHaveLength(1);
    expect(mismatches({ s: 'completed' }, { s: 'failed' })).toEqual(['$.s: "failed", the README shows "completed"']);
  });

  it('reads blocks in order and pairs each shown output with the block before it', () => {
    const md = ['```bash walkthrough', 'echo 1', '```', 'text', '```json walkthrough-output', '{"a":1}', '```', '```bash walkthrough', 'echo 2', '```'].join(
      '\n',
    );
    const steps = walkthroughSteps(md);
    expect(steps.map((s) => [s.script.trim(), s.expected])).toEqual([
      ['echo 1', { a: 1 }],
      ['echo 2', undefined],
    ]);
    expect(() => walkthroughSteps('```json walkthrough-output\n{}\n```')).toThrow(/must follow/);
    expect(lastJsonLine('progress\n{"a":1}\ndone')).toEqual({ a: 1 });
  });
});
