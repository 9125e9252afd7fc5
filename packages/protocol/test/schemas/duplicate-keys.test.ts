// Repeated member names, which JSON.parse resolves silently to the last one, found with the path of their object.
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../src/schemas/duplicate-keys.js';

describe('repeated member names in a JSON text', () => {
  it('finds the first, at any depth, with the path of its object', () => {
    expect(firstDuplicateKey('{"a":1,"a":2}')).toEqual({ path: '$', key: 'a' });
    expect(firstDuplicateKey('{"keys":[{"keyId":"x"},{"keyId":"y","validUntil":null,"validUntil":"2027"}]}')).toEqual({
      path: '$.keys[1]',
      key: 'validUntil',
    });
    expect(firstDuplicateKey('{"o":{"p":{"q":1,"q":1}}}')).toEqual({ path: '$.o.p', key: 'q' });
    // Escapes name the same member: "\\u0061" is "a".
    expect(firstDuplicateKey('{"a":1,"\\u0061":2}')).toEqual({ path: '$', key: 'a' });
  });

  it('passes names repeated only across objects, inside strings, or as values', () => {
    expect(firstDuplicateKey('{"a":{"a":1},"b":[{"a":1},{"a":2}]}')).toBeNull();
    expect(firstDuplicateKey('{"a":"\\"a\\":1,\\"a\\":2","b":"a"}')).toBeNull();
    expect(firstDuplicateKey('[1,2,{"x":[{"y":1}],"y":2}]')).toBeNull();
    expect(firstDuplicateKey('"just a string"')).toBeNull();
  });
});
