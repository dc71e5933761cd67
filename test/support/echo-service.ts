// A hostile crawl service that echoes the caller's key back (taken from its Authorization header)
// in every string a command shows: a job's url, errorMessage, status and id, page records, key
// names, the name and warning of a created key, error messages, and redirect Locations. The
// forms come from key-forms.ts; bodies are built as JSON text so the escapes arrive as written.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';
import { jsonForms, randomKey, urlForms } from './key-forms.js';

export interface EchoService {
  url: string;
  /** Keys handed out by POST /api/keys. */
  created: string[];
  close(): Promise<void>;
}

/** Every JSON form of the key, as the content of one JSON string (forms apart by " | "). */
export function allForms(key: string, names?: readonly string[]): string {
  const forms = jsonForms(key);
  return (names ?? Object.keys(forms)).map((name) => forms[name] as string).join(' | ');
}

/** Groups of forms small enough for a one-line error message (the server's message is cut at 300 characters). */
export const ERROR_GROUPS: readonly (readonly string[])[] = [
  ['literal', 'slashEscaped', 'jsonUSome', 'escSplit'],
  ['jsonUAll', 'percentSome', 'controlSplit'],
  ['percentDouble', 'htmlDecimal', 'zeroWidthSplit', 'bidiSplit'],
  ['htmlHex', 'tagSplit', 'separatorSplit', 'escSequenceSplit'],
  ['jsonUDouble', 'escapedIgnorables', 'mixed'],
];

const NOW = '2026-01-01T00:00:00Z';

function bearer(req: IncomingMessage): string {
  return String(req.headers.authorization ?? '').replace(/^Bearer /, '');
}

function job(fields: Record<string, string>): string {
  const f = { id: '"echo"', url: '"https://example.com/"', status: '"errored"', errorMessage: '"failed"', ...fields };
  return (
    `{"success":true,"job":{"id":${f.id},"url":${f.url},"status":${f.status},"pagesTotal":1,"pagesFinished":1,` +
    `"creditsUsed":1,"createdAt":"${NOW}","errorMessage":${f.errorMessage}},"pages":null}`
  );
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers }).end(body);
}

export async function startEchoService(): Promise<EchoService> {
  const polls = new Map<string, number>();
  const created: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    const key = bearer(req);
    const forms = `"${allForms(key)}"`;
    const path = (req.url ?? '/').split('?')[0] as string;
    const method = req.method ?? 'GET';
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/api/keys') {
      const keys = [
        `{"id":"key_in_use","name":${forms},"keyPrefix":"${key.slice(0, 8)}","lastUsedAt":null,"createdAt":"${NOW}"}`,
        `{"id":"key_other","name":"other ${allForms(key, ['mixed', 'htmlHex'])}","keyPrefix":"crk_zzzz","lastUsedAt":"${NOW}","createdAt":"${NOW}"}`,
      ];
      return send(res, 200, `{"success":true,"keys":[${keys.join(',')}]}`);
    }
    if (method === 'POST' && path === '/api/keys') {
      const fresh = randomKey('crk_', 24);
      created.push(fresh);
      return send(res, 201, `{"success":true,"key":"${fresh}","prefix":"${fresh.slice(0, 8)}","name":${forms},"warning":"not shown again: ${allForms(key, ['jsonUSome', 'escSplit', 'percentSome'])}"}`);
    }
    if (method === 'GET' && path === '/api/crawl/echo-job') {
      return send(res, 200, job({ url: `"https://example.com/?k=${allForms(key, ['literal', 'percentSome', 'jsonUSome'])}"`, errorMessage: forms }));
    }
    if (method === 'GET' && (m = /^\/api\/crawl\/(echo-status-\d+)$/.exec(path))) {
      // First a status that carries the key (the watch line shows it), then a terminal one.
      const id = m[1] as string;
      const n = (polls.get(id) ?? 0) + 1;
      polls.set(id, n);
      return send(res, 200, job({ id: `"${id}"`, status: n === 1 ? `"running ${allForms(key)}"` : '"errored"', errorMessage: forms }));
    }
    if (method === 'GET' && path === '/api/crawl/echo-running') {
      // A running job whose id carries the key and terminal escapes: `job pages` quotes the id in its error.
      return send(res, 200, job({ id: `"run \\u001b]0;pwned\\u0007\\u001b[2J ${allForms(key, ['escSplit', 'jsonUSome', 'bidiSplit'])}"`, status: '"running"' }));
    }
    if (method === 'GET' && path === '/api/crawl/echo-pages') {
      return send(res, 200, job({ id: '"echo-pages"', status: '"completed"' }).replace('"pagesTotal":1', '"pagesTotal":150'));
    }
    if (method === 'GET' && path === '/api/crawl/echo-pages/pages') {
      const records = Object.entries(jsonForms(key)).map(([name, form]) => `{"url":"https://example.com/${name}","form":"${name}","text":"${form}"}`);
      return send(res, 200, `{"pages":[${records.join(',')}],"next":null}`);
    }
    if (method === 'GET' && (m = /^\/api\/crawl\/err-(\d+)$/.exec(path))) {
      const names = ERROR_GROUPS[Number(m[1])] ?? [];
      return send(res, 400, `{"error":{"message":"bad request: ${allForms(key, names)}"}}`);
    }
    if (method === 'GET' && path === '/api/crawl/redir') {
      // Every URL form, one path segment group each. Followed: the target answers with a body
      // that is not JSON, so the error names its path.
      return send(res, 302, '', { location: `/api/crawl/moved/${Object.values(urlForms(key)).join('/-/')}` });
    }
    if (method === 'GET' && (m = /^\/api\/crawl\/badredir-(\w+)$/.exec(path))) {
      const form = urlForms(key)[m[1] as string] ?? key;
      // Not a valid URL: the error quotes the Location as the server sent it.
      return send(res, 302, '', { location: `http://[${form}/x` });
    }
    if (method === 'GET' && path.startsWith('/api/crawl/moved/')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('not json');
      return;
    }
    send(res, 404, `{"error":"no route for ${method} ${path}"}`);
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    created,
    close: async () => {
      await listening.close();
    },
  };
}
