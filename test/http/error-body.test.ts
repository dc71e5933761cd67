import { describe, expect, it } from 'vitest';
import { serverMessage } from '../../src/http/error-body.js';

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
