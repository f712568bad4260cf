import { describe, expect, it } from 'vitest';
import { asOfProblem, DncFileProblem, isListed, parseDncFile } from '../../shared/policy/dnc/snapshot-file.js';

describe('a National DNC download', () => {
  it('becomes one bitmap per exchange; blank lines and CRLF are fine; a number listed twice counts once', () => {
    const parsed = parseDncFile('4155550100\r\n4155550199\n\n  4155550100  \n4152229999\n', '415');
    expect(parsed.numbers).toBe(3);
    expect([...parsed.exchanges.keys()].sort()).toEqual(['222', '555']);
    const x555 = parsed.exchanges.get('555')!;
    expect([100, 199].map((l) => isListed(x555, l))).toEqual([true, true]);
    expect([0, 101, 9999].map((l) => isListed(x555, l))).toEqual([false, false, false]);
    expect(isListed(parsed.exchanges.get('222')!, 9999)).toBe(true);
  });

  it('refuses the whole file for any bad line, naming each line (first ten) and the exact count', () => {
    const lines = ['4155550100', '415555010', '6505550100', '415-555-0100', ...Array.from({ length: 12 }, () => 'x')];
    const run = () => parseDncFile(lines.join('\n'), '415');
    expect(run).toThrow(DncFileProblem);
    const msg = (() => {
      try {
        run();
      } catch (err) {
        return (err as Error).message;
      }
    })()!;
    expect(msg).toContain('15 bad lines; nothing was loaded');
    expect(msg).toContain("line 2: '415555010' is not a ten-digit number");
    expect(msg).toContain("line 3: '6505550100' is not in area code 415");
    expect(msg).toContain("line 4: '415-555-0100' is not a ten-digit number");
    expect(msg).toContain('… and 5 more');
  });

  it('refuses a bad area code, an empty file, and an as-of date that is malformed, unreal or in the future', () => {
    expect(() => parseDncFile('4155550100', '015')).toThrow(/area-code/);
    expect(() => parseDncFile('4155550100', '41')).toThrow(/area-code/);
    expect(() => parseDncFile('\n\n', '415')).toThrow(/no numbers/);
    const today = new Date('2026-11-23T12:00:00Z');
    expect(asOfProblem('2026-11-01', today)).toBeUndefined();
    expect(asOfProblem('2026-11-23', today)).toBeUndefined();
    expect(asOfProblem('2026-11-24', today)).toMatch(/future/);
    expect(asOfProblem('2026-02-30', today)).toMatch(/YYYY-MM-DD/);
    expect(asOfProblem('11/01/2026', today)).toMatch(/YYYY-MM-DD/);
  });
});
