// The request body reader of every JSON route: a body is required, sent as application/json (415 otherwise), within
// the size limit, and valid JSON; the API's own 400/413/415 tests run it over HTTP (test/integration/api-contract).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/errors';
import { type HttpEvent, isJsonMediaType, jsonBody } from '../../functions/http/http-route';

const event = (body: string | undefined, contentType?: string) =>
  ({
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
  }) as unknown as HttpEvent;

const codeOf = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (err) {
    return err instanceof ApiError ? `${err.status} ${err.code}` : String(err);
  }
};

describe('jsonBody', () => {
  it('parses a JSON body sent as application/json', () => {
    expect(jsonBody(event('{"a":1}', 'application/json; charset=utf-8'), 100)).toEqual({ a: 1 });
  });

  it('refuses in order: no body 400, another media type 415, too large 413, not JSON 400', () => {
    expect(codeOf(() => jsonBody(event(undefined), 100))).toBe('400 validation_error');
    expect(codeOf(() => jsonBody(event('{"a":1}'), 100))).toBe('415 unsupported_media_type');
    expect(codeOf(() => jsonBody(event('{"a":1}', 'text/plain;charset=UTF-8'), 100))).toBe(
      '415 unsupported_media_type',
    );
    expect(codeOf(() => jsonBody(event('{"a":1}', 'application/json'), 3))).toBe('413 payload_too_large');
    expect(codeOf(() => jsonBody(event('{"a":', 'application/json'), 100))).toBe('400 validation_error');
  });

  it('names the media type it got', () => {
    expect(() => jsonBody(event('{}', 'text/plain'), 100)).toThrow(/got 'text\/plain'/);
    expect(() => jsonBody(event('{}'), 100)).toThrow(/got none/);
  });
});

describe('isJsonMediaType', () => {
  const casings = (s: string) =>
    fc
      .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
      .map((upper) => [...s].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
  const space = fc.constantFrom('', ' ', '  ');

  it('takes application/json in any letter case, with no charset or UTF-8 (quoted or not), and other parameters', () => {
    fc.assert(
      fc.property(
        casings('application/json'),
        fc.option(fc.tuple(casings('charset'), casings('utf-8'), fc.boolean())),
        space,
        (type, charset, sp) => {
          const param = charset ? `;${sp}${charset[0]}=${charset[2] ? `"${charset[1]}"` : charset[1]}` : '';
          expect(isJsonMediaType(`${sp}${type}${sp}${param}`)).toBe(true);
        },
      ),
    );
    expect(isJsonMediaType('application/json; profile=x')).toBe(true);
  });

  it('refuses anything else', () => {
    for (const t of [
      undefined,
      '',
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'application/merge-patch+json',
      'application/vnd.api+json',
      'application/jsonx',
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
    ]) {
      expect(isJsonMediaType(t), String(t)).toBe(false);
    }
  });
});
