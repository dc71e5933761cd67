// Bus addresses as the D-Bus specification ("Server Addresses") writes them, read as libdbus reads
// them: the specification's own examples, libdbus's table of escapes, and what both call malformed.
import { describe, expect, it } from 'vitest';
// Inside a property, node's assert: the checks expect makes, without what vitest's expect adds to
// every call (its state, copied each time), paid hundreds of times a property.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AddressError, endpointOf, escapeAddressValue, parseAddress, unescapeAddressValue, type AddressEntry } from '../../../src/platform/dbus/address.js';
import { anyString } from '../../support/arbitraries.js';
import { expectLinearReads } from '../../support/linear.js';

/** An entry's parameters as text, for comparing. */
const textOf = (entry: AddressEntry): Record<string, string> => Object.fromEntries([...entry.params].map(([k, v]) => [k, v.toString('utf8')]));

describe('parseAddress', () => {
  it("reads the specification's forms of every transport", () => {
    const cases: [string, { transport: string; params: Record<string, string> }[]][] = [
      ['unix:path=/tmp/dbus-test', [{ transport: 'unix', params: { path: '/tmp/dbus-test' } }]],
      [
        'unix:path=/tmp/dbus-test;unix:path=/tmp/dbus-test2',
        [
          { transport: 'unix', params: { path: '/tmp/dbus-test' } },
          { transport: 'unix', params: { path: '/tmp/dbus-test2' } },
        ],
      ],
      ['unix:abstract=/tmp/dbus-U8OSdmf7', [{ transport: 'unix', params: { abstract: '/tmp/dbus-U8OSdmf7' } }]],
      [
        'unix:runtime=yes;unix:tmpdir=/tmp',
        [
          { transport: 'unix', params: { runtime: 'yes' } },
          { transport: 'unix', params: { tmpdir: '/tmp' } },
        ],
      ],
      ['tcp:host=127.0.0.1,port=4242', [{ transport: 'tcp', params: { host: '127.0.0.1', port: '4242' } }]],
      ['tcp:host=127.0.0.1,port=30958,family=ipv4', [{ transport: 'tcp', params: { host: '127.0.0.1', port: '30958', family: 'ipv4' } }]],
      ['nonce-tcp:host=localhost,port=4242,noncefile=/tmp/dbus_nonce', [{ transport: 'nonce-tcp', params: { host: 'localhost', port: '4242', noncefile: '/tmp/dbus_nonce' } }]],
      ['launchd:env=DBUS_LAUNCHD_SESSION_BUS_SOCKET', [{ transport: 'launchd', params: { env: 'DBUS_LAUNCHD_SESSION_BUS_SOCKET' } }]],
      ['systemd:', [{ transport: 'systemd', params: {} }]],
      ['autolaunch:', [{ transport: 'autolaunch', params: {} }]],
      ['autolaunch:scope=*install-path', [{ transport: 'autolaunch', params: { scope: '*install-path' } }]],
      ['unixexec:path=ssh,argv1=-xT,argv2=host,argv3=systemd-stdio-bridge', [{ transport: 'unixexec', params: { path: 'ssh', argv1: '-xT', argv2: 'host', argv3: 'systemd-stdio-bridge' } }]],
      // What dbus-daemon prints: a path and the server's guid.
      ['unix:path=/tmp/dbus-3hX1,guid=6a1e4e7a0f2b7f4bc1d7f6a265f2a3b1', [{ transport: 'unix', params: { path: '/tmp/dbus-3hX1', guid: '6a1e4e7a0f2b7f4bc1d7f6a265f2a3b1' } }]],
      // libdbus's own test: a trailing ";" ends the list.
      [
        'unix:path=/tmp/foo;debug:name=test,sliff=sloff;',
        [
          { transport: 'unix', params: { path: '/tmp/foo' } },
          { transport: 'debug', params: { name: 'test', sliff: 'sloff' } },
        ],
      ],
      ['unix:path=/tmp/foo,', [{ transport: 'unix', params: { path: '/tmp/foo' } }]],
    ];
    for (const [address, entries] of cases) {
      expect(parseAddress(address).map((e) => ({ transport: e.transport, params: textOf(e) })), address).toEqual(entries);
    }
  });

  it("refuses what libdbus refuses: an empty address or entry, no \":\", a pair that is not key=value, a key given twice", () => {
    for (const address of ['', ';', ';unix:path=/a', 'unix:path=/a;;unix:path=/b', 'foo', 'foo:bar', 'foo:bar,baz', 'foo:bar=foo,baz', 'foo:bar=foo;baz', 'foo:=foo', 'foo:foo=', 'foo:foo,bar=baz', ':path=/a', 'unix:path=/a,path=/b', 'unix:,path=/a']) {
      expect(() => parseAddress(address), address).toThrow(AddressError);
    }
  });

  it("unescapes as libdbus's table does: %XX is a byte, in either case; an optionally-escaped byte stands for itself", () => {
    const table: [string, string][] = [
      ['abcde', 'abcde'],
      ['%20%20', '  '],
      ['%24', '$'],
      ['%25', '%'],
      ['abc%24', 'abc$'],
      ['%24abc', '$abc'],
      ['abc%24abc', 'abc$abc'],
      ['/', '/'],
      ['-', '-'],
      ['_', '_'],
      ['AIZaiz09.\\*', 'AIZaiz09.\\*'],
      ['%c3%b6', 'ö'],
      ['%C3%B6', 'ö'],
    ];
    for (const [escaped, value] of table) expect(unescapeAddressValue(escaped).toString('utf8'), escaped).toBe(value);
    for (const [escaped, value] of table.filter(([e]) => e !== '%C3%B6')) expect(escapeAddressValue(value), value).toBe(escaped);
    // GLib's example: a ":" in a folder's name.
    expect(escapeAddressValue('/run/bus-for-:0')).toBe('/run/bus-for-%3a0');
  });

  it("refuses libdbus's bad escapes, and a byte that should have been escaped", () => {
    for (const value of ['%a', '%q', '%az', '%%', '%$$', 'abc%a', '%axyz', '%', '$', ' ', 'ö', '🦀', ':', '=', '%g0']) {
      expect(() => unescapeAddressValue(value), value).toThrow(AddressError);
      expect(() => parseAddress(`unix:path=${value}`), value).toThrow(AddressError);
    }
  });

  it('decodes escapes as bytes, then a path as UTF-8: a folder named "bü🦀s;,%" reads back whole', () => {
    const path = '/run/user/1000/bü🦀s;,%/bus';
    const address = `unix:path=${escapeAddressValue(path)}`;
    expect(address).toBe('unix:path=/run/user/1000/b%c3%bc%f0%9f%a6%80s%3b%2c%25/bus');
    const [entry] = parseAddress(address) as [AddressEntry];
    expect(endpointOf(entry, { abstractSockets: false })).toEqual({ kind: 'socket', path, shown: path });
  });

  it('any bytes escaped read back as the same bytes, in an entry of a list of entries', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ minLength: 1, maxLength: 64 }), (before, value) => {
        const entries = parseAddress(`tcp:host=${escapeAddressValue(before)}x;unix:path=${escapeAddressValue(value)},guid=00;`);
        assert.equal(entries.length, 2);
        expect(entries[1]?.params.get('path')).toEqual(Buffer.from(value));
        assert.match(escapeAddressValue(value), /^[-0-9A-Za-z_/.\\*%]*$/);
      }),
    );
  });

  it('any text is read or refused with an AddressError, nothing else', () => {
    fc.assert(
      fc.property(fc.oneof(anyString({ maxLength: 80 }), fc.stringMatching(/^[a-z:=,;%/0-9A-F]{0,40}$/)), (text) => {
        try {
          const entries = parseAddress(text);
          assert.ok(entries.length > 0, 'no entries');
        } catch (error) {
          assert.ok(error instanceof AddressError, `expected an AddressError, got ${String(error)}`);
          assert.doesNotMatch(error.message, /[\n\r]/);
        }
      }),
    );
  });

  it('reads an address in time linear in its length', () => {
    expectLinearReads((n) => parseAddress('unix:path=/tmp/b%c3%bcs,guid=00;'.repeat(n)), 50);
    expectLinearReads((n) => parseAddress(`unix:path=${'%2c'.repeat(n)}`), 50);
  });
});

describe('endpointOf: the socket an entry names, or why crawl cannot use it', () => {
  const one = (address: string, abstractSockets = false) => endpointOf(parseAddress(address)[0] as AddressEntry, { abstractSockets });

  it('a path is a socket; an abstract name is one only where this Node can reach it', () => {
    expect(one('unix:path=/run/user/1000/bus')).toEqual({ kind: 'socket', path: '/run/user/1000/bus', shown: '/run/user/1000/bus' });
    expect(one('unix:abstract=/tmp/dbus-x', true)).toEqual({ kind: 'socket', path: '\0/tmp/dbus-x', shown: '@/tmp/dbus-x' });
    expect(one('unix:abstract=/tmp/dbus-x', false)).toEqual({ kind: 'unusable', reason: 'unix:abstract=, which this Node cannot reach (Node 22 and later can)' });
  });

  it('every other transport, a listening-only key, and a unix: entry without exactly one socket key are unusable', () => {
    for (const address of ['tcp:host=127.0.0.1,port=4242', 'nonce-tcp:host=localhost,port=1,noncefile=/n', 'autolaunch:', 'launchd:env=X', 'systemd:', 'unixexec:path=ssh', 'debug-pipe:name=x']) {
      expect(one(address), address).toEqual({ kind: 'unusable', reason: `the ${address.slice(0, address.indexOf(':'))}: transport, which crawl does not speak` });
    }
    for (const key of ['dir', 'tmpdir', 'runtime']) expect(one(`unix:${key}=/tmp`).kind).toBe('unusable');
    expect(one('unix:guid=00').kind).toBe('unusable');
    expect(one('unix:path=/a,abstract=b', true).kind).toBe('unusable');
  });

  it('a path that is not UTF-8, or holds a NUL byte, is unusable: Node cannot name it to the system', () => {
    expect(one('unix:path=/tmp/%ff')).toEqual({ kind: 'unusable', reason: 'a unix:path= name that is not UTF-8 (Node cannot pass it to the system)' });
    expect(one('unix:path=/tmp/a%00b')).toEqual({ kind: 'unusable', reason: 'a unix:path= name holding a NUL byte' });
  });
});
