import http from 'node:http';
import fc from 'fast-check';
import { placementKind } from '../../rest-compat/route-table.js';

type Json = Record<string, any>;

/** One operation of the OpenAPI document, as a fuzzer needs it. */
export interface Operation {
  method: string;
  path: string;
  /** `current`: the parameter may be `@current`. */
  pathParams: { name: string; type: string; current: boolean }[];
  queryParams: { name: string; type: string }[];
  body?: Json;
}

/** What the generated requests draw their credentials and ids from. */
export interface FuzzWorld {
  key: string;
  /** A `*` key of another organization. */
  otherKey: string;
  projectApiKey: string;
  environmentId: number;
  otherEnvironmentId: number;
  organizationId: string;
  otherOrganizationId: string;
  userUuid: string;
  otherUserUuid: string;
  /** Ids of objects the tenant owns (a path's `{id}` sometimes names one). */
  objectIds: string[];
}

/** A request as it goes on the wire: a raw path, its method, headers and body bytes. */
export interface FuzzRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export function operationsOf(document: Json): Operation[] {
  return Object.entries<Json>(document.paths).flatMap(([path, operations]) =>
    Object.entries<Json>(operations).map(([method, operation]) => {
      const parameters: Json[] = operation.parameters ?? [];
      // An id that may also be `@current` is `anyOf` its type and that string.
      const typeOf = (schema: Json | undefined) => (schema?.type ?? schema?.anyOf?.[0]?.type ?? 'json') as string;
      const typed = (where: string) =>
        parameters.filter((p) => p.in === where).map((p) => ({ name: p.name as string, type: typeOf(p.schema), current: placementKind(path, p.name) !== undefined }));
      return { method: method.toUpperCase(), path, pathParams: typed('path'), queryParams: typed('query'), body: operation.requestBody?.content?.['application/json']?.schema };
    }),
  );
}

/** Path and query values that name nothing (`@me` and `@current` name the caller, so they are not here). */
const JUNK = ['0', '-1', '2147483648', '9007199254740993', '1.5', '1e3', 'abc', '%00', '..%2F..', '%F0%9F%92%A9', 'null', '%27%3B--', 'x'.repeat(300)];
const junk = fc.oneof(fc.constantFrom(...JUNK), fc.string({ minLength: 1, maxLength: 24, unit: 'binary' }).map(encodeURIComponent));
const uuid = fc.uuid().map(String);

/** A value for a path parameter: one of the tenant's, another tenant's, one that names nothing, or junk. */
function pathValue(world: FuzzWorld, { name, type, current }: Operation['pathParams'][number], onlyOwn: boolean): fc.Arbitrary<string> {
  const own: string[] = [];
  const other: string[] = [];
  if (name === 'organization_id' || name === 'source_organization_id') {
    own.push(world.organizationId);
    other.push(world.otherOrganizationId);
  } else if (name === 'uuid' || name === 'user_uuid') {
    own.push('@me', world.userUuid);
    other.push(world.otherUserUuid);
  } else if (type === 'integer') {
    own.push(String(world.environmentId));
    other.push(String(world.otherEnvironmentId));
  } else {
    own.push(...world.objectIds);
  }
  const missing = type === 'integer' ? fc.integer({ min: 1_000_000, max: 2_000_000_000 }).map(String) : uuid;
  if (onlyOwn) return own.length ? fc.constantFrom(...own) : missing;
  // `@current` names the caller's own placement, whichever key calls: never where only the tenant's ids may go.
  return fc.oneof({ arbitrary: own.length ? fc.constantFrom(...own) : missing, weight: 4 }, ...(other.length ? [fc.constantFrom(...other)] : []), ...(current ? [fc.constant('@current')] : []), missing, junk);
}

function queryValue(type: string): fc.Arbitrary<string> {
  const typed = type === 'integer' ? fc.integer({ min: -5, max: 2_000_000_000 }).map(String) : type === 'boolean' ? fc.constantFrom('true', 'false') : fc.string({ maxLength: 16 });
  return fc.oneof(typed, fc.constantFrom(...JUNK), fc.string({ maxLength: 40, unit: 'binary' }), fc.json({ maxDepth: 2 }));
}

function query(params: Operation['queryParams']): fc.Arbitrary<string> {
  const declared = params.map((param) => fc.option(queryValue(param.type).map((value) => `${param.name}=${encodeURIComponent(value)}`), { nil: undefined }));
  const extra = fc.option(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 })).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`), { nil: undefined });
  return fc.tuple(fc.tuple(...declared), extra).map(([values, more]) => {
    const pairs = [...values, more].filter((pair): pair is string => pair !== undefined);
    return pairs.length ? `?${pairs.join('&')}` : '';
  });
}

/** The operation's path with ids drawn from the world (`own`: the tenant's only), or junk. */
function concretePath(world: FuzzWorld, operation: Operation, ids: 'world' | 'own' | 'junk'): fc.Arbitrary<string> {
  if (!operation.pathParams.length) return fc.constant(operation.path);
  const values = operation.pathParams.map((param) => (ids === 'junk' ? junk : pathValue(world, param, ids === 'own')));
  return fc.tuple(...values).map((chosen) => operation.pathParams.reduce((path, param, index) => path.replace(`{${param.name}}`, chosen[index]!), operation.path));
}

/**
 * A value of the wrong JSON type for a field of this schema, one no lenient parser takes for the
 * right one (no numeric strings for numbers, no "true" or "F" for booleans, no numbers for strings).
 */
function wrongValue(schema: Json): fc.Arbitrary<unknown> | undefined {
  const object = fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { minKeys: 1, maxKeys: 3 });
  // Django REST framework's booleans include the single letters t/f/y/n (rest-compat/body-types.ts).
  const words = fc.string({ minLength: 1, maxLength: 12 }).filter((text) => !/^\s*[-+]?[\d.e]*\s*$/i.test(text) && !/^(true|false|yes|no|on|off|null|[tfyn])$/i.test(text.trim()));
  if (schema.enum) return fc.string({ minLength: 1, maxLength: 12 }).filter((value) => !schema.enum.includes(value));
  switch (schema.type) {
    case 'integer':
      return fc.oneof(words, fc.boolean(), object, fc.array(fc.integer(), { minLength: 1 }), fc.constant(1.5));
    case 'number':
      return fc.oneof(words, fc.boolean(), object, fc.array(fc.integer(), { minLength: 1 }));
    case 'boolean':
      return fc.oneof(words, fc.integer({ min: 2 }), object, fc.array(fc.boolean(), { minLength: 1 }));
    case 'string':
      return fc.oneof(fc.boolean(), object, fc.array(fc.integer(), { minLength: 1 }));
    case 'array':
      return fc.oneof(words, fc.integer(), fc.boolean(), object);
    case 'object':
      return schema.properties ? fc.oneof(words, fc.integer(), fc.array(fc.integer(), { minLength: 1 })) : undefined;
    default:
      return undefined;
  }
}

/** Bodies that no operation may take: not JSON, not an object, or one field of the wrong type. */
function refusedBody(operation: Operation): fc.Arbitrary<string> {
  const malformed = fc.constantFrom('{', '{"a":', 'nul', '[1,2', '{"x":1}}', '\u0000', '{"a" 1}', "{'a': 1}");
  const notObject = fc.oneof(fc.array(fc.integer(), { maxLength: 3 }), fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null)).map((value) => JSON.stringify(value));
  const pathNames = new Set(operation.pathParams.map((param) => param.name));
  const fields = Object.entries<Json>(operation.body?.properties ?? {}).flatMap(([name, schema]) => {
    const wrong = pathNames.has(name) ? undefined : wrongValue(schema);
    return wrong ? [wrong.map((value) => JSON.stringify({ [name]: value }))] : [];
  });
  return fields.length ? fc.oneof(malformed, notObject, { arbitrary: fc.oneof(...fields), weight: 3 }) : fc.oneof(malformed, notObject);
}

/** A JSON body whose string field holds bytes that are not UTF-8 (ff fe): refused whole, never stored mangled. */
function notUtf8(operation: Operation): fc.Arbitrary<Buffer> {
  const strings = Object.entries<Json>(operation.body?.properties ?? {}).filter(([, schema]) => schema.type === 'string').map(([name]) => name);
  return fc.tuple(fc.constantFrom(...(strings.length ? strings : ['name'])), fc.string({ maxLength: 8 })).map(([field, text]) =>
    Buffer.concat([Buffer.from(`{"${field}": "${text.replace(/["\\]/g, '')}`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
  );
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const json = { 'content-type': 'application/json' };

/**
 * Requests that must be refused: each write is wrong in at least one way (no or an unknown key,
 * another organization's key on this tenant's paths, ids that name nothing, or a refused body).
 */
export function refusedWrite(world: FuzzWorld, operation: Operation): fc.Arbitrary<FuzzRequest> {
  const ingest = operation.path === '/batch/';
  const withBody = (kind: string, path: fc.Arbitrary<string>, headers: Record<string, string>, body: fc.Arbitrary<string>) =>
    fc.tuple(path, body).map(([p, b]) => ({ kind, method: operation.method, path: p, headers: { ...json, ...headers }, body: operation.method === 'DELETE' ? undefined : b }));
  const validPath = concretePath(world, operation, 'world');
  const plausible = fc.constant(ingest ? JSON.stringify({ api_key: 'phc_unknown', batch: [] }) : '{}');
  const ways: fc.Arbitrary<FuzzRequest>[] = [
    withBody('unauthenticated', validPath, {}, plausible),
    withBody('unknown key', validPath, bearer(`phx_${'0'.repeat(43)}`), plausible),
  ];
  // A DELETE reads no body: a refused one would not make it a refused request.
  if (operation.method !== 'DELETE') ways.push(withBody('refused body', validPath, ingest ? {} : bearer(world.key), refusedBody(operation)));
  if (operation.method !== 'DELETE' && !ingest) {
    ways.push(fc.tuple(validPath, notUtf8(operation)).map(([path, body]) => ({ kind: 'not UTF-8', method: operation.method, path, headers: { ...json, ...bearer(world.key) }, body })));
  }
  if (!ingest && operation.pathParams.length) {
    ways.push(withBody('ids that name nothing', concretePath(world, operation, 'junk'), bearer(world.key), plausible));
    const tenantScoped = operation.pathParams.some((param) => ['project_id', 'organization_id', 'source_organization_id'].includes(param.name) || operation.path.startsWith('/api/environments/{id}'));
    if (tenantScoped) ways.push(withBody("another organization's key", concretePath(world, operation, 'own'), bearer(world.otherKey), plausible));
  }
  return fc.oneof(...ways);
}

/** Reads with any parameters and any of the credentials: they may succeed, never fail on the server. */
export function anyRead(world: FuzzWorld, operation: Operation): fc.Arbitrary<FuzzRequest> {
  const credentials = fc.constantFrom<Record<string, string>>(bearer(world.key), bearer(world.key), bearer(world.otherKey), {}, bearer('phx_short'));
  return fc.tuple(concretePath(world, operation, 'world'), query(operation.queryParams), credentials).map(([path, search, headers]) => ({ kind: 'read', method: 'GET', path: `${path}${search}`, headers }));
}

/**
 * A documented path called with a method no path takes: TRACE, which the fetch API cannot carry
 * (CONNECT too, but Node's client takes its answer for a tunnel); FOO and BREW, which Node's HTTP parser does not know; PURGE and LINK, which it
 * knows. Each is a 405 naming the methods the path takes.
 */
export function unknownMethod(world: FuzzWorld, operation: Operation): fc.Arbitrary<FuzzRequest> {
  const methods = fc.constantFrom('TRACE', 'FOO', 'BREW', 'PURGE', 'LINK');
  return fc.tuple(concretePath(world, operation, 'own'), methods, fc.constantFrom<Record<string, string>>(bearer(world.key), {})).map(([path, method, headers]) => ({ kind: 'unknown method', method, path, headers }));
}

/** GET /graphql with parameters that are not what GraphQL over HTTP takes: a 400, whatever the key. */
export function malformedGraphqlGet(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const junk = fc.oneof(fc.constantFrom('not-json', '{', '[1]', '"text"', '1', 'null{'), fc.string({ minLength: 1, maxLength: 12 }).filter((text) => { try { JSON.parse(text); return false; } catch { return true; } }));
  const search = fc.oneof(
    junk.map((value) => `query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent(value)}`),
    junk.map((value) => `query=${encodeURIComponent('{ __typename }')}&extensions=${encodeURIComponent(value)}`),
    fc.string({ maxLength: 20 }).map((value) => `query=${encodeURIComponent(`{ ${value}`)}`),
    fc.constant('variables=%7B%7D'),
    fc.constant(`query=${encodeURIComponent('mutation { __typename }')}`),
  );
  return fc.tuple(search, fc.constantFrom<Record<string, string>>(bearer(world.key), {})).map(([query, headers]) => ({ kind: 'malformed GraphQL GET', method: 'GET', path: `/graphql?${query}`, headers }));
}

/** Sends a request as it is (its path unparsed, any method, any bytes) and reads the answer. */
export function send(baseUrl: string, request: FuzzRequest): Promise<{ status: number; text: string; allow?: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headers = { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    const sent = http.request({ host: hostname, port, method: request.method, path: request.path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString(), allow: response.headers.allow }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
