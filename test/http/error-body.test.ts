
// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid hundreds of times a property.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverMessage } from '../../src/http/error-body.js';
import { anyString, anyText } from '../support/arbitraries.js';

const JSON_TYPE = 'application/json';

describe('serverMessage', () => {
  it('reads every JSON error shape the contract names', () => {
    expect(serverMessage('{"success":false,"error":"Job not found"}', JSON_TYPE)).toBe('Job not found');
    expect(serverMessage('{"error":{"message":"Bad key","code":"E1"}}', JSON_TYPE)).toBe('Bad key');
    expect(serverMessage('{"errors":[{"message":"one"},{"message":"two"}]}', JSON_TYPE)).toBe('one; two');
    expect(serverMessage('{"errors":["plain"]}', JSON_TYPE)).toBe('plain');
    expect(serverMessage('{"message":"Too many requests"}', JSON_TYPE)).toBe('Too many requests');
    expect(serverMessage('{"detail":"Not allowed"}', undefined)).toBe('Not allowed');
  });

  it('says nothing for a JSON body without a message', () => {
    expect(serverMessage('{"success":false}', JSON_TYPE)).toBeUndefined();
    expect(serverMessage('{"error":true}', JSON_TYPE)).toBeUndefined();
    expect(serverMessage('[]', JSON_TYPE)).toBeUndefined();
    expect(serverMessage('   ', JSON_TYPE)).toBeUndefined();
  });

  it('takes the title of an HTML page, decoding entities', () => {
    const page = '<!DOCTYPE html><html><head><title>502 Bad Gateway &amp; co</title></head><body><h1>nginx</h1></body></html>';
    expect(serverMessage(page, 'text/html')).toBe('502 Bad Gateway & co');
    expect(serverMessage('<html><body><h1>Service   Unavailable</h1></body></html>', undefined)).toBe('Service Unavailable');
  });

  it('takes the first non-empty line of plain text', () => {
    expect(serverMessage('\n  upstream timed out\nmore detail', 'text/plain')).toBe('upstream timed out');
  });

  it('falls back to text handling when a JSON content type carries no JSON', () => {
    expect(serverMessage('gateway exploded', JSON_TYPE)).toBe('gateway exploded');
    expect(serverMessage('<html><title>Oops</title></html>', JSON_TYPE)).toBe('Oops');
  });

  it('removes control characters and keeps the message on one short line', () => {
    expect(serverMessage('{"error":"bad\\u001b[2J\\nthing\\u0007"}', JSON_TYPE)).toBe('bad[2J thing');
    const long = serverMessage('x'.repeat(5000), 'text/plain') ?? '';
    expect(long.length).toBeLessThanOrEqual(300);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('any body', () => {

  const DANGEROUS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

  describe('serverMessage (error bodies)', () => {
    const contentType = fc.option(fc.oneof(fc.constantFrom('application/json', 'text/html; charset=utf-8', 'text/plain', 'application/problem+json'), fc.string()), { nil: undefined });
    const htmlish = fc.tuple(anyString(), anyString()).map(([a, b]) => `<!DOCTYPE html><html><head><title>${a}</title></head><body><h1>${b}</h1>`);

    it('takes any body and content type, and gives one clean line of at most 300 characters or nothing', () => {
      fc.assert(
        fc.property(fc.oneof(anyText, htmlish, fc.anything().map((v) => JSON.stringify(v) ?? '')), contentType, (body, type) => {
          const message = serverMessage(body, type);
          if (message === undefined) return;
          assert.ok(message.length > 0, 'an empty message');
          assert.ok(message.length <= 300, `expected ${message.length} characters to be at most 300`);
          assert.doesNotMatch(message, DANGEROUS);
          assert.equal(message, message.trim());
        }),
        { numRuns: 300 },
      );
    });

    it('takes bodies nested any depth (a recursive walk would overflow the stack thousands deep)', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom('{"error":', '{"errors":[', '['), (depth, open) => {
          const close = open === '{"error":' ? '}' : open === '[' ? ']' : ']}';
          const body = open.repeat(depth) + '"deep"' + close.repeat(depth);
          const message = serverMessage(body, 'application/json');
          assert.ok(message === undefined || message === 'deep', `expected nothing or "deep", got ${JSON.stringify(message)}`);
        }),
        { numRuns: 20 },
      );
    });

    it('finds the message in {error}, {error:{message}} and {errors:[{message}]} alike', () => {
      const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 300 });
      fc.assert(
        fc.property(printable, fc.integer({ min: 0, max: 2 }), (text, shape) => {
          const body = [{ error: text }, { error: { message: text } }, { errors: [{ message: text }] }][shape];
          assert.equal(serverMessage(JSON.stringify(body), 'application/json'), text);
        }),
      );
    });
  });
});
