import { describe, expect, it } from 'vitest';
import { isFormMediaType, isJsonMediaType } from '../../shared/http/body.js';
import { numberProblem, unholdableJson } from '../../shared/schemas/json-limits.js';

describe('numbers DynamoDB can store exactly', () => {
  it.each([
    [1e-200, 'number_too_small'],
    [5e-324, 'number_too_small'],
    [-1e-131, 'number_too_small'],
    [2 ** 53, 'number_too_large'],
    [-1e300, 'number_too_large'],
    [Infinity, 'finite_number'],
    [NaN, 'finite_number'],
  ])('%s → %s', (n, type) => {
    expect(numberProblem(n)?.type).toBe(type);
  });

  it.each([0, -0, 1e-130, -1e-130, 1.5e-100, 2 ** 53 - 1, -(2 ** 53 - 1), 0.1, 123456.789, 1.7976931348623157e-100])('%s is storable', (n) => {
    expect(numberProblem(n)).toBeUndefined();
  });
});

describe('unholdableJson', () => {
  it('names every __proto__ key, lone surrogate and unstorable number with its path', () => {
    const body = JSON.parse('{"a":{"__proto__":1},"b":[1,{"c":1e-200}],"d":"\\ud800","\\udc00":1,"ok":{"constructor":1,"":2}}');
    expect(unholdableJson(body)).toEqual([
      { loc: ['body', 'a', '__proto__'], msg: expect.any(String), type: 'key_reserved' },
      { loc: ['body', 'b', 1, 'c'], msg: expect.any(String), type: 'number_too_small' },
      { loc: ['body', 'd'], msg: expect.any(String), type: 'string_unicode' },
      { loc: ['body', '\udc00'], msg: expect.any(String), type: 'key_unicode' },
    ]);
  });

  it('accepts ordinary JSON, including keys named after Object.prototype members', () => {
    expect(unholdableJson({ constructor: 1, toString: 'x', valueOf: { hasOwnProperty: [1, 2] }, '😀': '𝄞', n: null })).toEqual([]);
  });

  it('reports at most 20 problems', () => {
    expect(unholdableJson(Array.from({ length: 50 }, () => 1e-200))).toHaveLength(20);
  });
});

describe('isJsonMediaType', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset="UTF-8"',
    'application/merge-patch+json',
    'application/vnd.api+json; charset=utf-8',
    'application/json; charset=utf8',
    'application/json; charset=UTF8',
    'application/json; charset="Utf8"',
  ])('%s is JSON', (h) => {
    expect(isJsonMediaType(h)).toBe(true);
  });
  it.each([
    undefined,
    '',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset=utf_8',
    'application/json; charset=utf-8; charset=latin1',
    'text/json',
    'application/jsonp',
    'application/+json',
  ])('%s is not', (h) => {
    expect(isJsonMediaType(h)).toBe(false);
  });
});

describe('isFormMediaType', () => {
  it.each(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=UTF-8', 'application/x-www-form-urlencoded; charset=utf8'])(
    '%s is a form',
    (h) => {
      expect(isFormMediaType(h)).toBe(true);
    },
  );
  it.each([undefined, 'application/json', 'application/x-www-form-urlencoded; charset=latin1', 'multipart/form-data'])('%s is not', (h) => {
    expect(isFormMediaType(h)).toBe(false);
  });
});
