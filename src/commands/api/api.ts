import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import type { Method } from '../../http/client.js';
import { withExamples, withNotes } from '../shared/examples.js';
import type { ApiOptions } from './lib/call.js';

export type { ApiOptions };

const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
/** Headers the HTTP layer owns: the key (never on a command line), and the message's framing. */
const OWN_HEADERS = new Set(['authorization', 'host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive']);

export function command(runF: (options: ApiOptions) => Promise<void>) {
  // -f and -F share one count, so their fields keep the order they were given in.
  const given = { count: 0 };
  const command = new Command('api')
    .description('make an authenticated request to any path of the service, as gh api does; the answer as received')
    .argument('<path>', 'a path under the base URL, such as api/keys or /api/crawl/<id>')
    // choices: what help lists and Tab offers; the parser also takes them in lower case.
    .addOption(new Option('-X, --method <method>', 'the HTTP method (default: GET, or POST with -f, -F or --input)').choices(METHODS).argParser(parseMethod))
    .addOption(new Option('-f, --raw-field <key=value>', 'a string field (repeatable; see Fields)').argParser(collect(false, given)))
    .addOption(new Option('-F, --field <key=value>', 'a typed field: true, false, null and numbers as JSON, @file or @- for a file or stdin (repeatable; see Fields)').argParser(collect(true, given)))
    .addOption(new Option('-H, --header <name:value>', 'a request header (repeatable; never Authorization: the key is sent for you)').argParser(collectHeader))
    .addOption(new Option('--input <file>', 'the request body as it is, from a file or - for stdin (fields then go to the query string)'))
    .addOption(new Option('-i, --include', 'print the status and the response headers before the body'))
    .addOption(new Option('--paginate', 'follow next / nextCursor as job pages does, one value a line (GET only)'))
    .action((path, flags) => {
      if (path.trim() === '') throw new UsageError('give a path, such as api/keys');
      // -f and -F in the order given: commander keeps each flag's own list, so they are merged by position.
      const fields = [...(flags.rawField ?? []), ...(flags.field ?? [])].sort((a, b) => a.order - b.order).map(({ key, value, typed }) => ({ key, value, typed }));
      return runF({
        path: path.trim(),
        method: flags.method,
        fields,
        headers: Object.fromEntries(flags.header ?? []),
        input: flags.input,
        include: flags.include === true,
        paginate: flags.paginate === true,
      });
    });
  withNotes(command, 'Fields', [
    '-f key=value is a string; -F key=value is typed: true, false, null and numbers are sent as JSON, @file and @- as the text of a file or of stdin. Fields make a POST with a JSON body, as in gh api; with -X GET they are the query string instead (as they are beside --input, and with --paginate).',
    'key[sub]=value builds an object, key[]=value appends to an array (a field per item), key[] alone is an empty array, and they nest: labels[][name]=bug with labels[][color]=red is one label. A key given twice without [] is refused, as gh does. In a query string an array is key[]= once per item.',
  ]);
  return withExamples(command, [
    ['the key list, filtered with jq', "crawl api api/keys | jq -r '.keys[].id'"],
    ['the first 10 pages of a job: with -X GET, fields are the query string', 'crawl api api/crawl/demo-large/pages -X GET -F limit=10'],
    ['every page of a job, one batch a line', 'crawl api api/crawl/demo-large/pages --paginate'],
    ['cancel a job, showing the status line and headers of the answer', 'crawl api api/crawl/demo-running -X DELETE -i'],
  ]);
}

interface Field {
  key: string;
  /** None for `key[]` alone: an empty array, as in gh. */
  value: string | undefined;
  typed: boolean;
  order: number;
}

/** key=value split at the first `=`; the key's form (`a[b][]`) is checked when the command runs. */
function collect(typed: boolean, given: { count: number }): (value: string, previous: Field[] | undefined) => Field[] {
  const flag = typed ? '-F' : '-f';
  return (value, previous) => {
    const at = value.indexOf('=');
    if (at === 0 || (at === -1 && !value.endsWith('[]'))) throw new UsageError(`invalid ${flag} "${value}": give key=value (key[] alone is an empty array)`);
    const field = at === -1 ? { key: value, value: undefined } : { key: value.slice(0, at), value: value.slice(at + 1) };
    return [...(previous ?? []), { ...field, typed, order: given.count++ }];
  };
}

function collectHeader(value: string, previous: Array<[string, string]> | undefined): Array<[string, string]> {
  const at = value.indexOf(':');
  const name = at === -1 ? '' : value.slice(0, at).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`invalid -H "${value}": give Name: value`);
  const text = value.slice(at + 1).trim();
  // eslint-disable-next-line no-control-regex -- a line break would start another header
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(text)) throw new UsageError(`invalid -H ${name}: its value holds a control character`);
  if (OWN_HEADERS.has(name.toLowerCase())) {
    throw new UsageError(
      name.toLowerCase() === 'authorization' ? '-H Authorization: the key is sent for you, and never belongs on a command line' : `-H ${name}: crawl's HTTP layer sets this header itself`,
    );
  }
  return [...(previous ?? []), [name, text]];
}

function parseMethod(value: string): Method {
  const method = value.trim().toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) throw new UsageError(`invalid --method "${value}": give one of ${METHODS.join(', ')}`);
  return method as Method;
}
