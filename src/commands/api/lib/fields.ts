// The fields of `crawl api` (-f, -F) made into the request's parameters as `gh api` makes them:
// `key[sub]=value` builds an object, `key[]=value` appends to an array, `key[]` alone is an empty
// array, and the forms nest (`labels[][name]=bug`). Then either the JSON body or the query string.
// Pure: the values (a file, stdin) are read by the caller.
import { UsageError } from '../../../errors.js';

/** A number from -F, kept as written (it matched JSON's grammar): its digits are sent as given. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type Scalar = string | boolean | null | JsonNumber;
/** An object is a Map: its keys are the user's (`__proto__` too), in the order first given. */
export type Param = Scalar | Param[] | Params;
export type Params = Map<string, Param>;

/** One -f or -F as given, its key split: `a[b][]` is ['a', 'b', ''] ('' for each `[]`). */
export interface FieldPath {
  /** -f or -F, and the field as given, for messages. */
  flag: string;
  given: string;
  path: readonly string[];
}

/**
 * `name`, then any `[sub]` and `[]` (not two `[]` in a row: gh has no arrays of arrays). A key
 * without a value only as `key[]`, the empty array. Anything else is a usage error.
 */
export function fieldPath(flag: string, key: string, value: string | undefined): FieldPath {
  const given = value === undefined ? key : `${key}=${value}`;
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  const path = match ? [match[1] ?? '', ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? '')] : [];
  const arrayOfArrays = path.some((segment, i) => i > 0 && segment === '' && path[i + 1] === '');
  if (path.length === 0 || arrayOfArrays) throw new UsageError(`invalid ${flag} "${given}": give key=value, key[sub]=value or key[]=value (key[] alone for an empty array)`);
  if (value === undefined && path.at(-1) !== '') throw new UsageError(`invalid ${flag} "${given}": give key=value (key[] alone is an empty array)`);
  return { flag, given, path };
}

/**
 * The fields in the order given, placed as gh places them: `key[]=v` appends (a new element of an
 * array of objects begins when the last one already has that member), `key[]` alone makes the
 * array (leaving one that has items as it is). A key given twice without `[]` is refused, as gh
 * refuses it, rather than one value silently dropped; so is a key used as two shapes.
 */
export function buildParams(fields: ReadonlyArray<FieldPath & { value: Scalar | undefined }>): Params {
  const params: Params = new Map();
  for (const field of fields) place(params, field);
  return params;
}

function place(params: Params, field: FieldPath & { value: Scalar | undefined }): void {
  const fail = (message: string): UsageError => new UsageError(`${field.flag} ${field.given}: ${message}`);
  let dest = params;
  let key: string | undefined;
  let shown = '';
  let isArray = false;
  for (const segment of field.path) {
    if (segment === '') {
      isArray = true;
      continue;
    }
    if (key !== undefined) {
      dest = isArray ? elementOf(dest, key, segment, shown, fail) : objectAt(dest, key, shown, fail);
      shown += isArray ? '[]' : '';
      isArray = false;
    }
    key = segment;
    shown += shown === '' ? segment : `[${segment}]`;
  }
  if (key === undefined) throw fail('the key has no name');
  const existing = dest.get(key);
  if (isArray) {
    if (existing !== undefined && !Array.isArray(existing)) throw fail(`"${shown}" is ${shapeOf(existing)}, not an array`);
    if (field.value === undefined) {
      if (existing === undefined) dest.set(key, []);
    } else if (existing === undefined) {
      dest.set(key, [field.value]);
    } else {
      existing.push(field.value);
    }
    return;
  }
  if (existing !== undefined) throw fail(`"${shown}" is given twice; for an array give ${shown}[]=... for each value`);
  dest.set(key, field.value ?? null);
}

/** `key` as an object in `dest`, made when missing. */
function objectAt(dest: Params, key: string, shown: string, fail: (message: string) => UsageError): Params {
  const existing = dest.get(key);
  if (existing === undefined) {
    const made: Params = new Map();
    dest.set(key, made);
    return made;
  }
  if (existing instanceof Map) return existing;
  throw fail(`"${shown}" is ${shapeOf(existing)}, not an object`);
}

/** The object of the array `key` that `next` goes in: its last, unless that has `next` already (but as an array). */
function elementOf(dest: Params, key: string, next: string, shown: string, fail: (message: string) => UsageError): Params {
  const existing = dest.get(key);
  const made: Params = new Map();
  if (existing === undefined) {
    dest.set(key, [made]);
    return made;
  }
  if (!Array.isArray(existing)) throw fail(`"${shown}" is ${shapeOf(existing)}, not an array`);
  const last = existing.at(-1);
  if (last instanceof Map) {
    const there = last.get(next);
    if (there === undefined || Array.isArray(there)) return last;
  }
  existing.push(made);
  return made;
}

function shapeOf(param: Param): string {
  return Array.isArray(param) ? 'an array' : param instanceof Map ? 'an object' : 'a value';
}

/** The JSON body: objects in the order their keys were first given, numbers as written. */
export function paramsJson(param: Param): string {
  if (param === null) return 'null';
  if (typeof param === 'string') return JSON.stringify(param);
  if (typeof param === 'boolean') return String(param);
  if (param instanceof JsonNumber) return param.text;
  if (Array.isArray(param)) return `[${param.map(paramsJson).join(',')}]`;
  return `{${[...param].map(([key, value]) => `${JSON.stringify(key)}:${paramsJson(value)}`).join(',')}}`;
}

/**
 * The query string's pairs, as gh encodes them: an array as `key[]` once per item (an empty one
 * not at all), null as an empty value. An object as `key[sub]`, the form it was given in (gh drops
 * the outer key there, so `a[x]` and `b[x]` would both be `x`).
 */
export function queryPairs(params: Params): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const add = (key: string, param: Param): void => {
    if (Array.isArray(param)) for (const item of param) add(`${key}[]`, item);
    else if (param instanceof Map) for (const [sub, value] of param) add(`${key}[${sub}]`, value);
    else pairs.push([key, param === null ? '' : param instanceof JsonNumber ? param.text : String(param)]);
  };
  for (const [key, value] of params) add(key, value);
  return pairs;
}
