/**
 * docs/openapi.json as third parties lint it: Redocly's `recommended` rules and Spectral's
 * `oas` ruleset, each with 0 errors. The rules are theirs, not ours; the warnings they still
 * raise (a health probe with no 4xx, a withdrawn route with no success) are true of the API.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import * as spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';

const file = resolve(import.meta.dirname, '..', '..', 'docs', 'openapi.json');
const source = readFileSync(file, 'utf8');

// Both Stoplight packages are CommonJS: under ESM their exports may sit on `default`.
const { Spectral, Document } = ((spectralCore as unknown as { default?: typeof spectralCore }).default ?? spectralCore) as typeof spectralCore;
const { Json } = ((spectralParsers as unknown as { default?: typeof spectralParsers }).default ?? spectralParsers) as typeof spectralParsers;

describe('docs/openapi.json, linted by third-party validators', () => {
  it("Redocly's recommended rules: 0 errors", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: file, config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  }, 60_000);

  it("Spectral's oas ruleset: 0 errors", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas] } as never);
    const results = await spectral.run(new Document(source, Json, file));
    // DiagnosticSeverity.Error is 0.
    const errors = results.filter((r) => r.severity === 0).map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`);
    expect(errors).toEqual([]);
  }, 60_000);

  it('the linters do fail a broken document (the check can fail)', async () => {
    // Two operations under one operationId: an error for both rule sets.
    const broken = JSON.parse(source) as { paths: Record<string, Record<string, { operationId: string }>> };
    const [a, b] = Object.values(broken.paths).flatMap((item) => Object.values(item));
    b!.operationId = a!.operationId;
    const text = JSON.stringify(broken);
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: file, config });
    expect(problems.some((p) => p.severity === 'error')).toBe(true);
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas] } as never);
    const results = await spectral.run(new Document(text, Json, file));
    expect(results.some((r) => r.severity === 0)).toBe(true);
  }, 60_000);
});
