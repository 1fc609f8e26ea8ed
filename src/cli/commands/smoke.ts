/**
 * `mpay smoke`: an end-to-end scenario against the current target (the embedded sandbox, or a
 * deployment by --base-url / profile). Each step is timed and printed on stderr as it ends;
 * the summary goes to stdout (JSON when piped, a table on a terminal) and, with --junit, to a
 * JUnit XML file. The first failure stops the run: the exit code is the contract's for the
 * service's answer (1 refused, 3 auth, 4 not found, 5 unreachable).
 *
 * Everything the run creates lives under a submerchant of its own (charges, payment link,
 * recipient, withdrawal), so the merchant's own wallet and recipients are not touched. What can
 * be undone is undone at the end, also after a failure: the webhook endpoint is deleted, the
 * temporary API key revoked, the payment link deactivated. The rest is listed by id.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { MpayClient } from '../../sdk/client.js';
import type { WebhookListener } from '../../webhooks/listen.js';
import { formatBRL } from '../../domain/money.js';
import { CliError, EXIT, describeError, exitCodeFor, usage } from '../errors.js';
import type { IO } from '../io.js';
import { painter, resolveFormat, type Painter } from '../output.js';
import { openTarget as realOpenTarget, type Globals, type Target } from '../target.js';
import { fileForm } from '../multipart.js';

export interface SmokeOptions {
  junit?: string;
  timeout?: string;
  webhookUrl?: string;
  webhookPort?: string;
  /** move a remote target's clock (31 days) too; the embedded sandbox's always moves */
  allowClock?: boolean;
}

export type StepStatus = 'passed' | 'failed' | 'skipped' | 'not_run';

export interface StepResult {
  name: string;
  status: StepStatus;
  duration_ms: number;
  detail?: string;
  error?: { message: string; code?: string; status?: number; request_id?: string };
}

export interface Created {
  kind: string;
  id: string;
  /** what the run did to it at the end */
  cleanup: 'deleted' | 'revoked' | 'deactivated' | 'kept' | 'cleanup failed';
}

export interface SmokeSummary {
  ok: boolean;
  target: string;
  mode: string | null;
  started_at: string;
  duration_ms: number;
  failed_step: string | null;
  steps: StepResult[];
  created: Created[];
}

/** A step that does not apply to this target: reported as skipped, with the reason. */
class Skip extends Error {}

/** The steps, in order; a step's name is what the report shows. */
export const STEP_NAMES = [
  'key check',
  'api key',
  'webhook endpoint',
  'tokenize card',
  'submerchant',
  'address',
  'document upload',
  'document',
  'card charge',
  'pix charge',
  'pix payment',
  'payment link',
  'recipient',
  'clock advance',
  'withdrawal',
  'webhook delivery',
] as const;
export type StepName = (typeof STEP_NAMES)[number];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// test data

function mod11(sum: number): number {
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** A random valid CPF (check digits computed), never one repeated digit. */
export function randomCpf(random: () => number = Math.random): string {
  for (;;) {
    const d = Array.from({ length: 9 }, () => Math.floor(random() * 10));
    if (d.every((x) => x === d[0])) continue;
    const d1 = mod11(d.reduce((a, x, i) => a + x * (10 - i), 0));
    const d2 = mod11([...d, d1].reduce((a, x, i) => a + x * (11 - i), 0));
    return [...d, d1, d2].join('');
  }
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/** A real 1×1 grey PNG, built in memory: signature, IHDR, IDAT, IEND. */
export function tinyPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 0x80]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---------------------------------------------------------------------------------------------
// JUnit

/** Text for XML: the five entities escaped, characters XML 1.0 cannot carry removed. */
export function xmlEscape(s: string): string {
  return s
    // eslint-disable-next-line no-control-regex
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function junitXml(s: SmokeSummary): string {
  const secs = (ms: number) => (ms / 1000).toFixed(3);
  const failures = s.steps.filter((x) => x.status === 'failed').length;
  const skipped = s.steps.filter((x) => x.status === 'skipped' || x.status === 'not_run').length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mpay smoke" tests="${s.steps.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${secs(s.duration_ms)}">`,
    `  <testsuite name="mpay smoke" tests="${s.steps.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${secs(s.duration_ms)}" timestamp="${xmlEscape(s.started_at)}" hostname="${xmlEscape(s.target)}">`,
  ];
  for (const st of s.steps) {
    const open = `    <testcase classname="mpay.smoke" name="${xmlEscape(st.name)}" time="${secs(st.duration_ms)}"`;
    if (st.status === 'passed') {
      lines.push(st.detail ? `${open}>\n      <system-out>${xmlEscape(st.detail)}</system-out>\n    </testcase>` : `${open}/>`);
    } else if (st.status === 'failed') {
      const e = st.error ?? { message: 'failed' };
      const body = [e.message, e.code ? `code: ${e.code}` : '', e.status ? `HTTP status: ${e.status}` : '', e.request_id ? `request id: ${e.request_id}` : '']
        .filter(Boolean)
        .join('\n');
      lines.push(`${open}>\n      <failure message="${xmlEscape(e.message)}" type="${xmlEscape(e.code ?? 'error')}">${xmlEscape(body)}</failure>\n    </testcase>`);
    } else {
      const why = st.status === 'not_run' ? 'not run: an earlier step failed' : (st.detail ?? 'skipped');
      lines.push(`${open}>\n      <skipped message="${xmlEscape(why)}"/>\n    </testcase>`);
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// the run

interface Ctx {
  client: MpayClient;
  target: Target;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  runId: string;
  mode: 'sandbox' | 'production' | null;
  merchant?: { id: string; wallet_id: string; pin_enabled: boolean; clock: string; name: string };
  listener?: WebhookListener;
  received: { type: string; id: string; dataId?: string; verified: boolean; error?: string }[];
  cpf: string;
  token?: string;
  sub?: { id: string; wallet_id: string };
  upload?: { url: string; fileName: string; fileSize: number; mimeType: string };
  cardCharge?: string;
  pixCharge?: string;
  link?: string;
  recipient?: string;
  keyId?: string;
  created: Created[];
  /** set by SIGINT/SIGTERM: the run stops at the next wait or step and still cleans up */
  interrupted: string | null;
}

class Interrupted extends CliError {
  constructor(sig: string) {
    super(`interrupted by ${sig}`, 130);
  }
}

function checkInterrupted(ctx: Ctx): void {
  if (ctx.interrupted) throw new Interrupted(ctx.interrupted);
}

function loopbackHost(url: string): boolean {
  try {
    const h = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h === '::1' || /^127\./.test(h);
  } catch {
    return false;
  }
}

/** Polls `get` until `done` holds or the time limit passes. */
async function until<T>(ctx: Ctx, what: string, get: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + ctx.timeoutMs;
  for (;;) {
    checkInterrupted(ctx);
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new CliError(`${what}: still not done after ${ctx.timeoutMs / 1000} s`, EXIT.refused);
    await sleep(300);
  }
}

function customer(ctx: Ctx) {
  return { name: 'Ana Souza (mpay smoke)', email: 'smoke@example.com', tax_id: ctx.cpf, phone: '+5511987654321', type: 'individual' as const };
}

function chargeBody(ctx: Ctx, amount: number, method: 'credit_card' | 'pix', details: Record<string, unknown>) {
  return {
    amount,
    payment_method: method,
    payment_details: details,
    product_type: 'digital',
    customer: customer(ctx),
    items: [{ name: `mpay smoke ${ctx.runId}`, quantity: 1, unit_price: amount, tangible: false }],
    submerchant_id: ctx.sub?.id,
    metadata: { smoke_run: ctx.runId },
  };
}

const needSandbox = (ctx: Ctx, what: string) => {
  if (ctx.mode !== 'sandbox') throw new Skip(`${what}: the target runs in ${ctx.mode ?? 'an unknown'} mode, which has no sandbox routes`);
};

/** A sandbox route that answers 404 does not exist on this target: skip, do not fail. */
async function sandboxCall<T>(ctx: Ctx, what: string, fn: () => Promise<T>): Promise<T> {
  needSandbox(ctx, what);
  try {
    return await fn();
  } catch (e) {
    const x = e as { status?: number; message?: string };
    if (x.status === 404 && /^No such route/.test(x.message ?? '')) {
      throw new Skip(`${what}: the target has no sandbox routes (404)`);
    }
    throw e;
  }
}

type StepFn = (ctx: Ctx, o: SmokeOptions) => Promise<string | void>;

const steps: Record<StepName, StepFn> = {
  'key check': async (ctx) => {
    const m = (await ctx.client.call('merchant.get')).data;
    ctx.merchant = m;
    ctx.mode = m.mode;
    return `${m.mode} merchant ${m.name} (${m.id})`;
  },

  'api key': async (ctx) => {
    const k = (await ctx.client.call('apiKeys.create', { body: { name: `mpay-smoke-${ctx.runId}` } })).data as { id: string; public_key: string; secret_key: string };
    ctx.keyId = k.id;
    ctx.created.push({ kind: 'api_key', id: k.id, cleanup: 'kept' });
    const r = await ctx.client.raw('GET', '/v1/merchant', {
      auth: 'none',
      headers: { authorization: 'Basic ' + Buffer.from(`${k.public_key}:${k.secret_key}`).toString('base64') },
    });
    if (r.status !== 200) throw new CliError(`the new key ${k.public_key} was refused with HTTP ${r.status}`, EXIT.auth);
    return `${k.public_key} authenticates (revoked at the end)`;
  },

  'webhook endpoint': async (ctx, o) => {
    let publicUrl: string | undefined;
    if (o.webhookUrl) publicUrl = o.webhookUrl;
    else if (ctx.target.kind === 'remote') {
      if (ctx.mode === 'production') throw new Skip('a production target refuses receivers on loopback addresses; pass --webhook-url URL (a public URL that reaches --webhook-port on this machine)');
      if (!loopbackHost(ctx.target.baseUrl ?? '')) {
        throw new Skip(`${ctx.target.baseUrl} cannot reach a receiver on this machine; pass --webhook-url URL (a public URL that reaches --webhook-port here)`);
      }
    }
    const { startListener } = await import('../../webhooks/listen.js');
    const client = ctx.client;
    const l = await startListener({
      call: async (method, path, body) => (await client.raw(method, path, { body })).body as never,
      events: ['*'],
      port: o.webhookPort ? Number(o.webhookPort) : 0,
      publicUrl,
    });
    ctx.listener = l;
    ctx.created.push({ kind: 'webhook_endpoint', id: l.endpointId, cleanup: 'kept' });
    l.on('received', (ev: import('../../webhooks/listen.js').ReceivedEvent) => {
      ctx.received.push({
        type: ev.event?.type ?? '?',
        id: ev.event?.id ?? ev.webhookId ?? '?',
        dataId: typeof ev.event?.data?.id === 'string' ? ev.event.data.id : undefined,
        verified: ev.verified,
        error: ev.error,
      });
    });
    return `${l.endpointId} → ${l.registeredUrl} (receiver on ${new URL(l.url).host})`;
  },

  'tokenize card': async (ctx) => {
    const year = new Date(ctx.merchant!.clock).getUTCFullYear() + 3;
    const t = (
      await ctx.client.call('tokens.create', {
        body: { card: { number: '4111111111111111', holderName: 'Ana Souza', expirationMonth: '12', expirationYear: String(year), cvv: '123' } },
      })
    ).data as { token: string; brand: string; lastFourDigits: string };
    ctx.token = t.token;
    return `${t.brand} •••• ${t.lastFourDigits} (public key)`;
  },

  submerchant: async (ctx) => {
    const s = (
      await ctx.client.call('submerchants.create', {
        body: {
          entity_type: 'pf',
          trade_name: `mpay smoke ${ctx.runId}`,
          legal_name: 'Ana Souza',
          tax_id: ctx.cpf,
          email: 'smoke@example.com',
          birth_date: '1985-04-12',
          mother_name: 'Maria Souza',
        } as never,
      })
    ).data as { id: string; wallet_id: string; status: string };
    ctx.sub = { id: s.id, wallet_id: s.wallet_id };
    ctx.created.push({ kind: 'submerchant', id: s.id, cleanup: 'kept' });
    return `${s.id} (${s.status})`;
  },

  address: async (ctx) => {
    const a = (
      await ctx.client.call('submerchants.addresses.create', {
        params: { id: ctx.sub!.id },
        body: { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310-100' } as never,
      })
    ).data as { id: string };
    ctx.created.push({ kind: 'address', id: a.id, cleanup: 'kept' });
    return a.id;
  },

  'document upload': async (ctx) => {
    const form = await fileForm(tinyPng(), 'front_id.png', 'image/png');
    const u = (
      await ctx.client.call('submerchants.upload', {
        params: { id: ctx.sub!.id },
        rawBody: form,
      })
    ).data as { url: string; key: string; fileName: string; fileSize: number; mimeType: string };
    ctx.upload = u;
    ctx.created.push({ kind: 'file', id: u.key, cleanup: 'kept' });
    return `${u.key} (${u.mimeType}, ${u.fileSize} bytes)`;
  },

  document: async (ctx) => {
    const u = ctx.upload!;
    const d = (
      await ctx.client.call('submerchants.documents.create', {
        params: { id: ctx.sub!.id },
        body: { type: 'front_id', file_url: u.url, file_name: u.fileName, file_size: u.fileSize, mime_type: u.mimeType } as never,
      })
    ).data as { id: string; status: string };
    ctx.created.push({ kind: 'document', id: d.id, cleanup: 'kept' });
    return `${d.id} front_id (${d.status})`;
  },

  'card charge': async (ctx) => {
    const c = (await ctx.client.call('charges.create', { body: chargeBody(ctx, 15000, 'credit_card', { token: ctx.token, installments: 1 }) as never })).data as {
      id: string;
      status: string;
    };
    ctx.cardCharge = c.id;
    ctx.created.push({ kind: 'charge', id: c.id, cleanup: 'kept' });
    const final = c.status === 'pending'
      ? await until(ctx, `card charge ${c.id}`, async () => (await ctx.client.call('charges.get', { params: { id: c.id } })).data as { status: string; failure_code?: string | null; failure_reason?: string | null }, (x) => x.status !== 'pending')
      : (c as { status: string; failure_code?: string | null; failure_reason?: string | null });
    if (final.status !== 'captured') throw new CliError(`card charge ${c.id} ended ${final.status}: ${final.failure_code ?? ''} ${final.failure_reason ?? ''}`.trim(), EXIT.refused);
    return `${c.id} ${formatBRL(15000)} captured`;
  },

  'pix charge': async (ctx) => {
    const c = (await ctx.client.call('charges.create', { body: chargeBody(ctx, 5000, 'pix', {}) as never })).data as { id: string; status: string; pix?: { qr_code?: string } | null };
    ctx.pixCharge = c.id;
    ctx.created.push({ kind: 'charge', id: c.id, cleanup: 'kept' });
    if (c.status !== 'pending') throw new CliError(`a new PIX charge should be pending, ${c.id} is ${c.status}`, EXIT.refused);
    if (!c.pix?.qr_code) throw new CliError(`PIX charge ${c.id} has no BR Code`, EXIT.refused);
    return `${c.id} ${formatBRL(5000)} pending with a BR Code`;
  },

  'pix payment': async (ctx) => {
    const paid = await sandboxCall(ctx, 'paying a PIX charge', async () => (await ctx.client.call('charges.sandboxPay', { params: { id: ctx.pixCharge! } })).data as { status: string });
    if (paid.status !== 'captured') throw new CliError(`PIX charge ${ctx.pixCharge} is ${paid.status} after payment`, EXIT.refused);
    return `${ctx.pixCharge} captured; the net is in the submerchant's wallet`;
  },

  'payment link': async (ctx) => {
    const l = (
      await ctx.client.call('paymentLinks.create', {
        body: { title: `mpay smoke ${ctx.runId}`, product_type: 'digital', allowed_payment_methods: ['credit_card', 'pix'], amount: 1000, submerchant_id: ctx.sub!.id, max_uses: 1 } as never,
      })
    ).data as { id: string; checkout_url: string; status: string };
    ctx.link = l.id;
    ctx.created.push({ kind: 'payment_link', id: l.id, cleanup: 'kept' });
    return `${l.id} ${l.checkout_url}`;
  },

  recipient: async (ctx) => {
    const r = (
      await ctx.client.call('recipients.put', {
        body: { type: 'pix', pix_key: randomUUID(), pix_key_type: 'random', holder_name: 'Ana Souza', holder_tax_id: ctx.cpf, submerchant_id: ctx.sub!.id } as never,
      })
    ).data as { id: string };
    ctx.recipient = r.id;
    ctx.created.push({ kind: 'recipient', id: r.id, cleanup: 'kept' });
    return `${r.id} (PIX, the submerchant's)`;
  },

  'clock advance': async (ctx, o) => {
    needSandbox(ctx, 'moving the clock');
    if (ctx.target.kind === 'remote' && !o.allowClock) {
      throw new Skip("moving a remote target's clock 31 days moves it for everyone using that merchant; pass --allow-clock to include it");
    }
    const r = await sandboxCall(ctx, 'moving the clock', async () => (await ctx.client.call('sandbox.clockAdvance', { body: { days: 31 } })).data as { clock: string; offset_days: number });
    const recs = (await ctx.client.call('receivables.list', { query: { charge_id: ctx.cardCharge!, per_page: 100 } as never })).data as { status: string }[];
    const unpaid = recs.filter((x) => x.status !== 'paid');
    if (!recs.length || unpaid.length) throw new CliError(`the card charge's receivables did not settle after 31 days: ${recs.map((x) => x.status).join(', ') || 'none found'}`, EXIT.refused);
    return `+31 days (clock ${r.clock}); ${recs.length} card receivable(s) paid`;
  },

  withdrawal: async (ctx) => {
    const wallets = (await ctx.client.call('wallets.list', { query: { owner_type: 'submerchant', owner_id: ctx.sub!.id } as never })).data as { id: string; balance: number }[];
    const balance = Number(wallets.find((w) => w.id === ctx.sub!.wallet_id)?.balance ?? 0);
    let amount = Math.min(10_000, balance);
    if (amount % 100 === 99) amount -= 1; // an amount ending in 99 cents is a sandbox failure value
    if (amount < 100) throw new Skip(`the submerchant's wallet holds ${formatBRL(balance)}: nothing to withdraw on this target`);
    const pin = ctx.env.MPAY_PIN;
    if (ctx.merchant?.pin_enabled && !pin) throw new Skip('the merchant has a transaction PIN; set MPAY_PIN to include the withdrawal');
    const w = (
      await ctx.client.call('withdrawals.create', {
        body: {
          type: 'pix',
          wallet_id: ctx.sub!.wallet_id,
          submerchant_id: ctx.sub!.id,
          amount,
          recipient_id: ctx.recipient,
          idempotency_key: `mpay-smoke-${ctx.runId}`,
          ...(ctx.merchant?.pin_enabled ? { pin } : {}),
        } as never,
      })
    ).data as { id: string; status: string };
    ctx.created.push({ kind: 'withdrawal', id: w.id, cleanup: 'kept' });
    const done = await until(
      ctx,
      `withdrawal ${w.id}`,
      async () => (await ctx.client.call('withdrawals.get', { params: { id: w.id } })).data as { status: string; failure_reason?: string | null },
      (x) => x.status === 'completed' || x.status === 'failed',
    );
    if (done.status !== 'completed') throw new CliError(`withdrawal ${w.id} failed: ${done.failure_reason ?? 'no reason given'}`, EXIT.refused);
    return `${w.id} ${formatBRL(amount)} completed`;
  },

  'webhook delivery': async (ctx) => {
    const l = ctx.listener;
    if (!l) throw new Skip('no webhook endpoint was registered');
    const want = (r: Ctx['received'][number]) => r.type === 'charge.captured' && r.dataId === ctx.cardCharge;
    const deadline = Date.now() + ctx.timeoutMs;
    const rt = ctx.target.runtime;
    const { deliverDue } = rt ? await import('../../webhooks/worker.js') : { deliverDue: null };
    for (;;) {
      checkInterrupted(ctx);
      const bad = ctx.received.find((r) => !r.verified);
      if (bad) throw new CliError(`a delivery (${bad.type} ${bad.id}) did not verify: ${bad.error ?? 'bad signature'}`, EXIT.refused);
      if (ctx.received.some(want)) break;
      if (Date.now() > deadline) {
        throw new CliError(`no charge.captured delivery for ${ctx.cardCharge} within ${ctx.timeoutMs / 1000} s (${ctx.received.length} other deliveries arrived)`, EXIT.refused);
      }
      // embedded: this process is the service, so it delivers; a server delivers on its own
      if (rt && deliverDue) await deliverDue(rt.deps, { deadlineMs: 1_000 });
      else await sleep(200);
    }
    return `charge.captured of ${ctx.cardCharge} verified (${ctx.received.length} deliveries received, all verified)`;
  },
};

async function cleanup(ctx: Ctx, say: (s: string) => void): Promise<string[]> {
  const problems: string[] = [];
  const mark = (kind: string, id: string, how: Created['cleanup']) => {
    const c = ctx.created.find((x) => x.kind === kind && x.id === id);
    if (c) c.cleanup = how;
  };
  if (ctx.listener) {
    try {
      await ctx.listener.close();
      mark('webhook_endpoint', ctx.listener.endpointId, 'deleted');
      say(`cleanup: webhook endpoint ${ctx.listener.endpointId} deleted`);
    } catch (e) {
      mark('webhook_endpoint', ctx.listener.endpointId, 'cleanup failed');
      problems.push((e as Error).message);
    }
  }
  if (ctx.link) {
    try {
      await ctx.client.call('paymentLinks.update', { params: { id: ctx.link }, body: { status: 'inactive' } as never });
      mark('payment_link', ctx.link, 'deactivated');
      say(`cleanup: payment link ${ctx.link} deactivated`);
    } catch (e) {
      mark('payment_link', ctx.link, 'cleanup failed');
      problems.push(`could not deactivate payment link ${ctx.link}: ${(e as Error).message}`);
    }
  }
  if (ctx.keyId) {
    try {
      await ctx.client.call('apiKeys.revoke', { params: { id: ctx.keyId } });
      mark('api_key', ctx.keyId, 'revoked');
      say(`cleanup: api key ${ctx.keyId} revoked`);
    } catch (e) {
      mark('api_key', ctx.keyId, 'cleanup failed');
      problems.push(`could not revoke api key ${ctx.keyId}: ${(e as Error).message}`);
    }
  }
  return problems;
}

function errorOf(e: unknown): NonNullable<StepResult['error']> {
  const x = e as { message?: string; code?: string; status?: number; requestId?: string; details?: { field: string; message: string }[] };
  const details = (x.details ?? []).map((d) => `${d.field}: ${d.message}`).filter((d) => !x.message?.includes(d));
  const out: NonNullable<StepResult['error']> = { message: [x.message ?? String(e), ...details].join('; ') };
  if (x.code) out.code = x.code;
  if (typeof x.status === 'number') out.status = x.status;
  if (x.requestId) out.request_id = x.requestId;
  return out;
}

export interface SmokeDeps {
  openTarget?: (g: Globals, io: IO) => Promise<Target>;
}

export async function smoke(g: Globals, o: SmokeOptions, io: IO, deps: SmokeDeps = {}): Promise<number> {
  const timeoutS = Number(o.timeout ?? 60);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw usage(`--timeout must be a positive number of seconds, got '${o.timeout}'`);
  if (o.webhookPort !== undefined && (!/^\d+$/.test(o.webhookPort) || Number(o.webhookPort) > 65535)) {
    throw usage(`--webhook-port must be a number from 0 to 65535, got '${o.webhookPort}'`);
  }
  if (o.webhookUrl !== undefined) {
    let u: URL;
    try {
      u = new URL(o.webhookUrl);
    } catch {
      throw usage(`--webhook-url must be an http(s) URL, got '${o.webhookUrl}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw usage(`--webhook-url must be an http(s) URL, got '${o.webhookUrl}'`);
  }
  const junitPath = o.junit ? resolve(io.cwd, o.junit) : undefined;
  const paint = await painter(g, io);
  const say = (s: string) => {
    if (!g.quiet) io.err(s + '\n');
  };

  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const results: StepResult[] = [];
  let target: Target | undefined;
  let failure: { step: string; error: unknown } | null = null;
  let ctx: Ctx | undefined;
  try {
    target = await (deps.openTarget ?? realOpenTarget)(g, io);
  } catch (e) {
    failure = { step: 'key check', error: e };
  }
  const targetName = target ? (target.kind === 'embedded' ? `embedded:${target.dataDir}` : (target.baseUrl ?? 'remote')) : 'unknown';
  let cleanupProblems: string[] = [];
  let unhook = () => {};
  if (target) {
    ctx = {
      client: target.client,
      target,
      timeoutMs: timeoutS * 1000,
      env: io.env,
      runId: `${startedAt.replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomUUID().slice(0, 8)}`,
      mode: null,
      received: [],
      cpf: randomCpf(),
      created: [],
      interrupted: null,
    };
    // Ctrl-C / SIGTERM: stop at the next wait or step, then clean up as after a failure
    const c = ctx;
    const onSignal = (sig: string) => () => {
      if (!c.interrupted) say(`${sig}: stopping after the current step, then cleaning up…`);
      c.interrupted ??= sig;
    };
    const onInt = onSignal('SIGINT');
    const onTerm = onSignal('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    unhook = () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    };
    say(`mpay smoke on ${targetName}`);
    for (const name of STEP_NAMES) {
      if (failure) {
        results.push({ name, status: 'not_run', duration_ms: 0 });
        continue;
      }
      const t0 = performance.now();
      try {
        checkInterrupted(ctx);
        const detail = await steps[name](ctx, o);
        const ms = Math.round(performance.now() - t0);
        results.push({ name, status: 'passed', duration_ms: ms, ...(detail ? { detail } : {}) });
        say(`${paint.green('✓')} ${name}  ${ms} ms${detail ? paint.dim(`  ${detail}`) : ''}`);
      } catch (e) {
        const ms = Math.round(performance.now() - t0);
        if (e instanceof Skip) {
          results.push({ name, status: 'skipped', duration_ms: ms, detail: e.message });
          say(`${paint.yellow('-')} ${name}  skipped: ${e.message}`);
          continue;
        }
        failure = { step: name, error: e };
        const err = errorOf(e);
        results.push({ name, status: 'failed', duration_ms: ms, error: err });
        say(`${paint.red('✗')} ${name}  ${ms} ms  ${err.message}`);
      }
    }
    cleanupProblems = await cleanup(ctx, say);
    await target.close().catch((e: unknown) => cleanupProblems.push(`closing the target: ${(e as Error).message}`));
    unhook();
  } else {
    STEP_NAMES.forEach((name, i) =>
      results.push(i === 0 ? { name, status: 'failed', duration_ms: 0, error: errorOf(failure!.error) } : { name, status: 'not_run', duration_ms: 0 }),
    );
  }

  const summary: SmokeSummary = {
    ok: !failure && cleanupProblems.length === 0,
    target: targetName,
    mode: ctx?.mode ?? null,
    started_at: startedAt,
    duration_ms: Date.now() - started,
    failed_step: failure?.step ?? null,
    steps: results,
    created: ctx?.created ?? [],
  };

  const kept = summary.created.filter((c) => c.cleanup === 'kept');
  if (kept.length) say(`created and kept (cannot be deleted): ${kept.map((c) => `${c.kind} ${c.id}`).join(', ')}`);
  if (junitPath) {
    try {
      writeFileSync(junitPath, junitXml(summary));
      say(`JUnit report: ${junitPath}`);
    } catch (e) {
      io.err(`error: --junit: cannot write ${o.junit}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
      if (!failure) return EXIT.usage;
    }
  }
  await printSummary(g, io, summary, paint);

  if (failure) {
    io.err(`error: smoke failed at step "${failure.step}": ${describeError(failure.error).replace(/^error: /, '')}\n`);
    return exitCodeFor(failure.error);
  }
  if (cleanupProblems.length) {
    for (const p of cleanupProblems) io.err(`error: cleanup: ${p}\n`);
    return EXIT.refused;
  }
  const counts = (s: StepStatus) => results.filter((r) => r.status === s).length;
  say(`smoke passed: ${counts('passed')} steps passed, ${counts('skipped')} skipped, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return EXIT.ok;
}

async function printSummary(g: Globals, io: IO, s: SmokeSummary, paint: Painter): Promise<void> {
  const format = resolveFormat(g, io);
  if (format === 'json') {
    io.out(JSON.stringify(s, null, 2) + '\n');
    return;
  }
  if (format === 'jsonl') {
    io.out(JSON.stringify(s) + '\n');
    return;
  }
  const { default: Table } = await import('cli-table3');
  const t = new Table({ head: ['step', 'status', 'time', 'detail'].map((h) => paint.bold(h)), style: { head: [], border: [] } });
  const color = (st: StepStatus) => (st === 'passed' ? paint.green(st) : st === 'failed' ? paint.red(st) : paint.yellow(st.replace('_', ' ')));
  for (const r of s.steps) t.push([r.name, color(r.status), r.status === 'not_run' ? '' : `${r.duration_ms} ms`, r.error?.message ?? r.detail ?? '']);
  io.out(t.toString() + '\n');
}
