/**
 * DynamoDB refuses an expression that names a reserved word (`timezone`, `status`, `name`,
 * `count`…) as an attribute without an `#alias`: the request fails at run time (a 500), not
 * at compile time. This reads every expression our code writes — the values of
 * Update/Condition/KeyCondition/Filter/Projection expressions and the string fragments they
 * are assembled from — and fails on a bare reserved word. The list is AWS's
 * (test/fixtures/dynamodb-reserved-words.txt, from the DynamoDB developer guide).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const reserved = new Set(
  readFileSync(join(root, 'test/fixtures/dynamodb-reserved-words.txt'), 'utf8')
    .split('\n')
    .map((w) => w.trim().toUpperCase())
    .filter(Boolean),
);
// Functions of the expression grammar (lower case, as written) are not attribute names.
const FUNCTIONS = new Set(['attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains', 'size', 'if_not_exists', 'list_append']);

/** Bare lower-case words of an expression that DynamoDB reserves (placeholders `:v`, `#n` and `${…}` removed). */
function bareReservedWords(expression: string): string[] {
  const text = expression.replace(/\$\{[^}]*(?:\}|$)/g, ' ').replace(/[:#][A-Za-z0-9_]+/g, ' ');
  const words = text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  // Grammar keywords are written in upper case (SET, AND, REMOVE…); attributes are snake_case.
  return words.filter((w) => w === w.toLowerCase() && !FUNCTIONS.has(w) && reserved.has(w.toUpperCase()));
}

const EXPRESSION_KEY =
  /(?:UpdateExpression|ConditionExpression|KeyConditionExpression|FilterExpression|ProjectionExpression)\s*:\s*(['`])((?:\\.|(?!\1).)*)\1/g;
// A fragment an expression is assembled from: "name = :value", "#n = :v", "attribute_exists(pk)", "REMOVE x".
const FRAGMENT =
  /(['`])((?:[A-Za-z_#][\w.#]*\s*(?:=|<>|<=|>=|<|>)\s*[:#][^'`]*)|(?:(?:SET|REMOVE|ADD|DELETE)\s[^'`]*[:#][^'`]*)|(?:[^'`]*attribute_(?:not_)?exists\([^'`]*))\1/g;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

describe('DynamoDB expressions name reserved words only through #aliases', () => {
  it('recognises a bare reserved word, and not a placeholder, an alias or a function', () => {
    expect(bareReservedWords('SET updated_at = :at, timezone = :tz')).toEqual(['timezone']);
    expect(bareReservedWords('SET #status = :s, #tz = :tz REMOVE sealed_tokens')).toEqual([]);
    expect(bareReservedWords('attribute_exists(pk) AND size(#items) > :n AND begins_with(sk, :p)')).toEqual([]);
    expect(bareReservedWords('SET ${sets.join(", ")}, count = count + :one')).toEqual(['count', 'count']);
  });

  it('no expression in shared/ or functions/ names one bare', () => {
    const offenders: string[] = [];
    for (const file of [...sourceFiles(join(root, 'shared')), ...sourceFiles(join(root, 'functions'))]) {
      // Comments describe keys and expressions in prose; only code is sent to DynamoDB (line numbers kept).
      const text = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
        .replace(/(^|\s)\/\/.*$/gm, '$1');
      for (const pattern of [EXPRESSION_KEY, FRAGMENT]) {
        for (const m of text.matchAll(pattern)) {
          const bad = bareReservedWords(m[2]!);
          if (bad.length)
            offenders.push(`${relative(root, file)}:${text.slice(0, m.index).split('\n').length}: ${[...new Set(bad)].join(', ')} in ${m[0].slice(0, 120)}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
