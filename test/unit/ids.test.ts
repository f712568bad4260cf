import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contactKeys } from '../../shared/db/keys.js';
import { ID_PREFIX, idPattern, newId } from '../../shared/ids.js';

const root = resolve(import.meta.dirname, '..', '..');
const files = (dir: string, out: string[] = []): string[] => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
};

describe('id prefixes', () => {
  it('attestations and contact attempts no longer share a prefix', () => {
    expect(ID_PREFIX.attestation).not.toBe(ID_PREFIX.attempt);
    expect(newId(ID_PREFIX.attestation)).toMatch(idPattern('ata'));
    expect(new Set(Object.values(ID_PREFIX)).size).toBe(Object.values(ID_PREFIX).length);
  });

  it('an attestation stored under the old att_ prefix is still addressable, as is a new ata_ one', () => {
    const old = `att_${newId('x').slice(2)}`;
    expect(contactKeys.attestation('ten_1', old).sk).toBe(`ATTESTATION#${old}`);
    const fresh = newId(ID_PREFIX.attestation);
    expect(contactKeys.attestation('ten_1', fresh).sk).toBe(`ATTESTATION#${fresh}`);
  });

  it('the shared prefixes are minted only through ID_PREFIX (no literal newId of them)', () => {
    const literal = new RegExp(`newId\\('(${Object.values(ID_PREFIX).join('|')})'\\)`);
    const offenders = [...files(join(root, 'shared')), ...files(join(root, 'functions'))]
      .filter((f) => literal.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });
});
