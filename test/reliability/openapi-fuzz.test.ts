/**
 * OpenAPI-driven fuzzer: reads GET /openapi.json, and for every operation generates at least
 * CASES requests with fast-check from the operation's own JSON schemas: valid-shaped bodies and
 * queries (which may still break business rules), invalid ones (a required field dropped, a
 * field of the wrong type, an unknown field, a value outside an enum, a non-object body,
 * broken JSON, an unknown or malformed query parameter), and path ids that are real, random
 * or garbage. Every answer must be below 500, and every input built to be invalid must get a
 * 4xx (testEnv: a real SQLite file, validateResponses on, so a 2xx off its contract fails too).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { cardCharge, chargeBody } from '../helpers/money.js';
import { pjBody } from '../helpers/onboarding.js';
import { report } from './helpers.js';

const CASES = Number(process.env.FUZZ_CASES ?? 500);
const SEED = Number(process.env.FUZZ_SEED ?? 20260115);

type Schema = Record<string, any>;

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => {
  await env.close();
});

const iso = (d: Date) => d.toISOString();

/** A fast-check arbitrary of values valid for a (zod-generated) JSON schema. */
function valid(s: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!s || Object.keys(s).length === 0) return fc.oneof(fc.string(), fc.integer(), fc.boolean());
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alts) return fc.oneof(...alts.map((a) => valid(a, depth + 1)));
  if (s.allOf) return valid(Object.assign({}, ...(s.allOf as Schema[])), depth);
  const type = Array.isArray(s.type) ? fc.constantFrom(...(s.type as string[])) : null;
  if (type) return type.chain((t) => valid({ ...s, type: t }, depth));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : Math.max(min, 0) + 1_000_000);
      return fc.oneof(fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) }), fc.constantFrom(min, max));
    }
    case 'number': {
      const min = s.minimum ?? s.exclusiveMinimum ?? -1e6;
      const max = s.maximum ?? s.exclusiveMaximum ?? 1e6;
      return fc.oneof(fc.integer({ min: Math.ceil(min), max: Math.floor(max) }), fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
    }
    case 'string': {
      if (s.format === 'uuid') return fc.uuid();
      if (s.format === 'email') return fc.emailAddress().filter((e) => e.length <= (s.maxLength ?? 254));
      if (s.format === 'date-time') return fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map(iso);
      if (s.format === 'date') return fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map((d) => iso(d).slice(0, 10));
      if (s.format === 'uri') return fc.constantFrom('https://203.0.113.7/hook', 'http://127.0.0.1:9/x', 'https://[2001:db8::1]/y');
      const lengths = { minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 300) };
      if (s.pattern) {
        try {
          return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= lengths.minLength && v.length <= (s.maxLength ?? Infinity));
        } catch {
          /* a pattern JS cannot compile: plain strings */
        }
      }
      return fc.oneof(fc.string(lengths), fc.string({ ...lengths, unit: 'grapheme' }));
    }
    case 'array': {
      const maxLength = Math.min(s.maxItems ?? 3, depth > 2 ? 1 : 3, 3);
      return fc.array(valid(s.items ?? {}, depth + 1), { minLength: Math.min(s.minItems ?? 0, maxLength), maxLength: Math.max(maxLength, s.minItems ?? 0) });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = (s.required ?? []) as string[];
      const rec: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) rec[k] = valid(v, depth + 1);
      if (!Object.keys(rec).length) return fc.constant({});
      return fc.record(rec, { requiredKeys: required.filter((k) => k in rec) });
    }
    default:
      return fc.oneof(fc.string(), fc.integer());
  }
}

/** A value of a type the schema does not accept (undefined if the schema accepts anything). */
function wrongTypeFor(s: Schema): unknown[] {
  const accepts = new Set<string>();
  const walk = (x: Schema) => {
    if (!x || Object.keys(x).length === 0) accepts.add('any');
    else if ('const' in x) accepts.add(x.const === null ? 'null' : typeof x.const === 'number' ? 'number' : typeof x.const);
    else if (x.enum) for (const v of x.enum) accepts.add(v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v);
    else if (x.anyOf || x.oneOf) for (const a of x.anyOf ?? x.oneOf) walk(a);
    else if (Array.isArray(x.type)) for (const t of x.type) accepts.add(t === 'integer' ? 'number' : t);
    else if (x.type) accepts.add(x.type === 'integer' ? 'number' : x.type);
    else accepts.add('any');
  };
  walk(s);
  if (accepts.has('any')) return [];
  const candidates: [string, unknown][] = [
    ['string', 'not-a-valid-value-∆'],
    ['number', 123456789],
    ['boolean', true],
    ['object', { nested: 1 }],
    ['array', [1, 'two']],
    ['null', null],
  ];
  return candidates.filter(([t]) => !accepts.has(t)).map(([, v]) => v);
}

type Invalid = { kind: string; body: unknown };

/** Mutations of a valid body that make it invalid. */
function invalidBodies(s: Schema): fc.Arbitrary<Invalid> {
  const branches: Schema[] = s.anyOf ?? s.oneOf ?? [s];
  const objects = branches.filter((b) => b.type === 'object');
  const arbs: fc.Arbitrary<Invalid>[] = [
    fc.constantFrom<Invalid>(
      { kind: 'array body', body: [] },
      { kind: 'string body', body: 'hello' },
      { kind: 'number body', body: 42 },
      { kind: 'null body', body: null },
    ),
    fc.string({ minLength: 1, maxLength: 30 }).map((g) => ({ kind: 'broken JSON', body: { __raw: `{${g}` } })),
  ];
  for (const o of objects) {
    const props = (o.properties ?? {}) as Record<string, Schema>;
    const base = valid(o) as fc.Arbitrary<Record<string, unknown>>;
    if (o.additionalProperties === false) {
      arbs.push(base.map((b) => ({ kind: 'unknown field', body: { ...b, zz_unknown_field: 1 } })));
    }
    const required = ((o.required ?? []) as string[]).filter((k) => k in props);
    if (required.length) {
      arbs.push(
        fc.tuple(base, fc.constantFrom(...required)).map(([b, k]) => {
          const c = { ...b };
          delete c[k];
          return { kind: `missing ${k}`, body: c };
        }),
      );
    }
    const typed = Object.entries(props).flatMap(([k, ps]) => wrongTypeFor(ps).map((v) => [k, v] as const));
    if (typed.length) {
      arbs.push(fc.tuple(base, fc.constantFrom(...typed)).map(([b, [k, v]]) => ({ kind: `wrong type for ${k}`, body: { ...b, [k]: v } })));
    }
    const enums = Object.entries(props).filter(([, ps]) => Array.isArray(ps.enum) && ps.enum.every((x: unknown) => typeof x === 'string'));
    if (enums.length) {
      arbs.push(fc.tuple(base, fc.constantFrom(...enums.map(([k]) => k))).map(([b, k]) => ({ kind: `${k} outside its enum`, body: { ...b, [k]: 'zz-not-in-enum' } })));
    }
  }
  return fc.oneof(...arbs);
}

interface Op {
  id: string;
  method: string;
  path: string;
  params: { name: string; in: string; required: boolean; schema: Schema }[];
  body?: Schema;
  multipart: boolean;
}

it(`every operation of /openapi.json, ≥ ${CASES} cases each → 0 × 5xx, every invalid input a 4xx`, async () => {
  const started = performance.now();
  // real ids for path parameters, so valid-shaped requests reach the handlers
  const card = (await cardCharge(env, 5000)).body.data;
  const pix = (await env.call('POST', '/v1/charges', chargeBody(3000, { payment_method: 'pix' }))).body.data;
  const sub = (await env.call('POST', '/v1/submerchants', pjBody())).body.data;
  const link = (await env.call('POST', '/v1/payment-links', { title: 'Camiseta', product_type: 'physical', allowed_payment_methods: ['pix'] })).body.data;
  const hook = (await env.call('POST', '/v1/postbacks/endpoints', { url: 'https://203.0.113.7/hook', events: ['*'] })).body.data;
  const realIds: Record<string, string[]> = {
    charges: [card.id, pix.id],
    'sandbox/charges': [pix.id, card.id],
    submerchants: [sub.id],
    'sandbox/submerchants': [sub.id],
    'payment-links': [link.id],
    'postbacks/endpoints': [hook.id],
    wallets: [env.merchant.wallet_id],
  };

  const doc = (await env.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, any>> };
  const ops: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      ops.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
        multipart: !!op.requestBody?.content?.['multipart/form-data'],
      });
    }
  }

  let requests = 0;
  const fiveXX: string[] = [];
  const notRefused: string[] = [];
  const perOp: Record<string, number> = {};

  for (const op of ops) {
    const pathParams = op.params.filter((p) => p.in === 'path');
    const queryParams = op.params.filter((p) => p.in === 'query');
    const segment = /^\/v1\/(.+?)\/\{/.exec(op.path)?.[1] ?? '';
    const idArb = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...(realIds[segment] ?? [crypto.randomUUID()])) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent) },
    );
    const queryObj: Schema = {
      type: 'object',
      properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
      required: queryParams.filter((p) => p.required).map((p) => p.name),
    };
    const validQuery = valid(queryObj) as fc.Arbitrary<Record<string, unknown>>;
    const invalidQuery: fc.Arbitrary<{ kind: string; query: Record<string, unknown> }> = fc.oneof(
      validQuery.map((q) => ({ kind: 'unknown query parameter', query: { ...q, zz_unknown: 'x' } })),
      ...queryParams
        .filter((p) => p.schema?.type === 'integer' || (Array.isArray(p.schema?.enum) && p.schema.enum.every((x: unknown) => typeof x === 'string')))
        .map((p) => validQuery.map((q) => ({ kind: `bad ${p.name}`, query: { ...q, [p.name]: p.schema.type === 'integer' ? 'abc' : 'zz-not-in-enum' } }))),
    );
    const bodyValid = op.body ? valid(op.body) : fc.constant(undefined);
    const bodyInvalid = op.body ? invalidBodies(op.body) : fc.constant<Invalid>({ kind: 'body on a bodiless operation', body: { zz_unknown_field: 1 } });

    type Case = { invalid: string | null; ids: string[]; query: Record<string, unknown>; body: unknown };
    const caseArb: fc.Arbitrary<Case> = fc.oneof(
      { weight: 5, arbitrary: fc.record({ ids: fc.array(idArb, { minLength: pathParams.length, maxLength: pathParams.length }), query: validQuery, body: bodyValid }).map((c) => ({ ...c, invalid: null })) },
      {
        weight: op.method === 'GET' && !op.body ? 0 : 4,
        arbitrary: fc.record({ ids: fc.array(idArb, { minLength: pathParams.length, maxLength: pathParams.length }), query: validQuery, bad: bodyInvalid }).map((c) => ({
          ids: c.ids,
          query: c.query,
          body: c.bad.body,
          invalid: c.bad.kind,
        })),
      },
      {
        weight: queryParams.length ? 2 : 1,
        arbitrary: fc.record({ ids: fc.array(idArb, { minLength: pathParams.length, maxLength: pathParams.length }), q: invalidQuery, body: bodyValid }).map((c) => ({
          ids: c.ids,
          query: c.q.query,
          body: c.body,
          invalid: c.q.kind,
        })),
      },
    );
    const cases = fc.sample(caseArb, { numRuns: CASES, seed: SEED + ops.indexOf(op) });
    for (const c of cases) {
      let path = op.path;
      pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, c.ids[i]!)));
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(c.query ?? {})) if (v !== undefined) qs.set(k, typeof v === 'string' ? v : JSON.stringify(v));
      const url = qs.size ? `${path}?${qs}` : path;
      let body: string | undefined;
      if (c.body !== undefined && (op.body || op.multipart || c.invalid)) {
        const raw = (c.body as { __raw?: string } | null)?.__raw;
        body = raw ?? JSON.stringify(c.body);
      }
      const headers: Record<string, string> = {};
      if (op.method === 'POST' && Math.random() < 0.1) headers['idempotency-key'] = `fuzz-${requests}`;
      let res: { status: number; body: any };
      try {
        res = await env.call(op.method, url, body, headers);
      } catch (e) {
        // validateResponses: a 2xx whose body breaks the contract throws here
        fiveXX.push(`${op.method} ${url} → response off contract: ${(e as Error).message.slice(0, 200)} body ${body?.slice(0, 200)}`);
        continue;
      }
      requests++;
      perOp[op.id] = (perOp[op.id] ?? 0) + 1;
      if (res.status >= 500) fiveXX.push(`${op.method} ${url} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)} body ${body?.slice(0, 300)}`);
      else if (c.invalid && (res.status < 400 || res.status >= 500)) {
        // an invalid path id reaching a 2xx would be caught too: ids are only ever valid or 404
        notRefused.push(`${op.method} ${url} (${c.invalid}) → ${res.status} body ${body?.slice(0, 300)}`);
      }
    }
  }
  const secs = (performance.now() - started) / 1000;
  const minPerOp = Math.min(...Object.values(perOp));
  report(
    `openapi fuzz ${ops.length} operations × ≥ ${minPerOp} cases = ${requests} requests → ${fiveXX.length} × 5xx, ${notRefused.length} invalid inputs not refused with a 4xx (${secs.toFixed(1)} s)`,
  );
  if (fiveXX.length) console.log(fiveXX.slice(0, 15).join('\n'));
  if (notRefused.length) console.log(notRefused.slice(0, 15).join('\n'));
  expect(fiveXX).toEqual([]);
  expect(notRefused).toEqual([]);
  expect(minPerOp).toBeGreaterThanOrEqual(CASES);
}, 280_000);
