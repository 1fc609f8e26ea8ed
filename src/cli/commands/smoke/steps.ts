/**
 * The steps of `mpay smoke`, in order, each a function of the run's context. Everything a run
 * creates lives under a submerchant of its own (charges, payment link, recipient, withdrawal),
 * so the merchant's own wallet and recipients are not touched; `cleanup` undoes what can be
 * undone (webhook endpoint, temporary API key, payment link), also after a failure.
 */
import { randomUUID } from 'node:crypto';
import type { MpayClient } from '../../../sdk/client.js';
import type { WebhookListener } from '../../webhookListener.js';
import { formatBRL } from '../../../domain/money.js';
import { CliError, EXIT } from '../../errors.js';
import { Interrupted } from '../../signals.js';
import type { Target } from '../../target.js';
import { fileForm } from '../../multipart.js';
import { sampleAddress, sampleCard, samplePfSubmerchant, tinyPng } from '../sandboxData.js';
import type { Created, SmokeOptions, StepResult } from './types.js';
import { settledAfterDays } from '../../../domain/calendar.js';
import { SETTLEMENT_DAYS_PER_INSTALLMENT } from '../../../domain/fees.js';
import { isLoopbackUrl } from '../../urls.js';

/** How far the clock step moves: past a 1× card receivable's business-day settlement, whatever today is. */
const CLOCK_DAYS = settledAfterDays(SETTLEMENT_DAYS_PER_INSTALLMENT);

/** A step that does not apply to this target: reported as skipped, with the reason. */
export class Skip extends Error {}

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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Ctx {
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
  upload?: { url: string; fileName: string; fileSize: number; mimeType: 'image/png' | 'image/jpeg' | 'application/pdf' };
  cardCharge?: string;
  pixCharge?: string;
  link?: string;
  recipient?: string;
  keyId?: string;
  created: Created[];
  /** set by SIGINT/SIGTERM: the run stops at the next wait or step and still cleans up */
  interrupted: string | null;
}


export { Interrupted };

export function checkInterrupted(ctx: Ctx): void {
  if (ctx.interrupted) throw new Interrupted(ctx.interrupted);
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

/** A charge of this run; `payment` is the payment_method and its payment_details. */
function chargeBody<P extends { payment_method: 'credit_card' | 'pix' }>(ctx: Ctx, amount: number, payment: P) {
  return {
    amount,
    ...payment,
    product_type: 'digital' as const,
    customer: customer(ctx),
    items: [{ name: `mpay smoke ${ctx.runId}`, quantity: 1, unit_price: amount, tangible: false }],
    submerchant_id: ctx.sub?.id,
    metadata: { smoke_run: ctx.runId },
  };
}

const needSandbox = (ctx: Ctx, what: string) => {
  if (ctx.mode !== 'sandbox') throw new Skip(`${what}: the target runs in ${ctx.mode ?? 'an unknown'} mode, which has no sandbox routes`);
};

/**
 * Withdrawals from a submerchant's wallet need an approved submerchant: in a
 * sandbox the run sends the documents still missing (the one uploaded file) and approves its
 * own submerchant through the sandbox review.
 */
async function approveForPayouts(ctx: Ctx): Promise<void> {
  const sub = (await ctx.client.call('submerchants.get', { params: { id: ctx.sub!.id } })).data;
  if (sub.status === 'approved') return;
  needSandbox(ctx, `approving the submerchant (${sub.status}) for a withdrawal`);
  const { REQUIRED_DOCUMENTS } = await import('../../../domain/onboarding.js');
  const u = ctx.upload!;
  if (sub.status === 'pending') {
    for (const type of REQUIRED_DOCUMENTS.pf.filter((t) => t !== 'front_id')) {
      const d = (
        await ctx.client.call('submerchants.documents.create', {
          params: { id: ctx.sub!.id },
          body: { type, file_url: u.url, file_name: u.fileName, file_size: u.fileSize, mime_type: u.mimeType },
        })
      ).data;
      ctx.created.push({ kind: 'document', id: d.id, cleanup: 'kept' });
    }
  }
  await sandboxCall(ctx, 'approving the submerchant for a withdrawal', () =>
    ctx.client.call('sandbox.submerchants.review', { params: { id: ctx.sub!.id }, body: { decision: 'approve' } }),
  );
}

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

export const steps: Record<StepName, StepFn> = {
  'key check': async (ctx) => {
    const m = (await ctx.client.call('merchant.get')).data;
    ctx.merchant = m;
    ctx.mode = m.mode;
    return `${m.mode} merchant ${m.name} (${m.id})`;
  },

  'api key': async (ctx) => {
    const k = (await ctx.client.call('apiKeys.create', { body: { name: `mpay-smoke-${ctx.runId}` } })).data;
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
      if (!isLoopbackUrl(ctx.target.baseUrl ?? '')) {
        throw new Skip(`${ctx.target.baseUrl} cannot reach a receiver on this machine; pass --webhook-url URL (a public URL that reaches --webhook-port here)`);
      }
    }
    const { startListener } = await import('../../webhookListener.js');
    const client = ctx.client;
    const l = await startListener({
      client,
      events: ['*'],
      port: o.webhookPort ? Number(o.webhookPort) : 0,
      publicUrl,
    });
    ctx.listener = l;
    ctx.created.push({ kind: 'webhook_endpoint', id: l.endpointId, cleanup: 'kept' });
    l.on('received', (ev: import('../../webhookListener.js').ReceivedEvent) => {
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
        body: { card: sampleCard(year) },
      })
    ).data;
    ctx.token = t.token;
    return `${t.brand} •••• ${t.lastFourDigits} (public key)`;
  },

  submerchant: async (ctx) => {
    const s = (
      await ctx.client.call('submerchants.create', {
        body: samplePfSubmerchant('smoke', ctx.runId, ctx.cpf),
      })
    ).data;
    ctx.sub = { id: s.id, wallet_id: s.wallet_id };
    ctx.created.push({ kind: 'submerchant', id: s.id, cleanup: 'kept' });
    return `${s.id} (${s.status})`;
  },

  address: async (ctx) => {
    const a = (
      await ctx.client.call('submerchants.addresses.create', {
        params: { id: ctx.sub!.id },
        body: sampleAddress(),
      })
    ).data;
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
    ).data;
    ctx.upload = u;
    ctx.created.push({ kind: 'file', id: u.key, cleanup: 'kept' });
    return `${u.key} (${u.mimeType}, ${u.fileSize} bytes)`;
  },

  document: async (ctx) => {
    const u = ctx.upload!;
    const d = (
      await ctx.client.call('submerchants.documents.create', {
        params: { id: ctx.sub!.id },
        body: { type: 'front_id', file_url: u.url, file_name: u.fileName, file_size: u.fileSize, mime_type: u.mimeType },
      })
    ).data;
    ctx.created.push({ kind: 'document', id: d.id, cleanup: 'kept' });
    return `${d.id} front_id (${d.status})`;
  },

  'card charge': async (ctx) => {
    let c: { id: string; status: string };
    try {
      c = (await ctx.client.call('charges.create', { body: chargeBody(ctx, 15000, { payment_method: 'credit_card' as const, payment_details: { token: ctx.token!, installments: 1 } }) })).data as typeof c;
    } catch (e) {
      // a production server has no card acquirer (docs/deployment.md "Production is not the sandbox")
      if ((e as { code?: unknown }).code === 'acquirer_unavailable') throw new Skip(`card charge: the target has no card acquirer (${(e as Error).message})`);
      throw e;
    }
    ctx.cardCharge = c.id;
    ctx.created.push({ kind: 'charge', id: c.id, cleanup: 'kept' });
    const final = c.status === 'pending'
      ? await until(ctx, `card charge ${c.id}`, async () => (await ctx.client.call('charges.get', { params: { id: c.id } })).data, (x) => x.status !== 'pending')
      : (c as { status: string; failure_code?: string | null; failure_reason?: string | null });
    if (final.status !== 'captured') throw new CliError(`card charge ${c.id} ended ${final.status}: ${final.failure_code ?? ''} ${final.failure_reason ?? ''}`.trim(), EXIT.refused);
    return `${c.id} ${formatBRL(15000)} captured`;
  },

  'pix charge': async (ctx) => {
    const c = (await ctx.client.call('charges.create', { body: chargeBody(ctx, 5000, { payment_method: 'pix' as const, payment_details: {} }) })).data;
    ctx.pixCharge = c.id;
    ctx.created.push({ kind: 'charge', id: c.id, cleanup: 'kept' });
    if (c.status !== 'pending') throw new CliError(`a new PIX charge should be pending, ${c.id} is ${c.status}`, EXIT.refused);
    if (!c.pix?.qr_code) throw new CliError(`PIX charge ${c.id} has no BR Code`, EXIT.refused);
    return `${c.id} ${formatBRL(5000)} pending with a BR Code`;
  },

  'pix payment': async (ctx) => {
    const paid = await sandboxCall(ctx, 'paying a PIX charge', async () => (await ctx.client.call('charges.sandboxPay', { params: { id: ctx.pixCharge! } })).data);
    if (paid.status !== 'captured') throw new CliError(`PIX charge ${ctx.pixCharge} is ${paid.status} after payment`, EXIT.refused);
    return `${ctx.pixCharge} captured; the net is in the submerchant's wallet`;
  },

  'payment link': async (ctx) => {
    const l = (
      await ctx.client.call('paymentLinks.create', {
        body: { title: `mpay smoke ${ctx.runId}`, product_type: 'digital', allowed_payment_methods: ['credit_card', 'pix'], amount: 1000, submerchant_id: ctx.sub!.id, max_uses: 1 },
      })
    ).data;
    ctx.link = l.id;
    ctx.created.push({ kind: 'payment_link', id: l.id, cleanup: 'kept' });
    return `${l.id} ${l.checkout_url}`;
  },

  recipient: async (ctx) => {
    const r = (
      await ctx.client.call('recipients.put', {
        body: { type: 'pix', pix_key: randomUUID(), pix_key_type: 'random', holder_name: 'Ana Souza', holder_tax_id: ctx.cpf, submerchant_id: ctx.sub!.id },
      })
    ).data;
    ctx.recipient = r.id;
    ctx.created.push({ kind: 'recipient', id: r.id, cleanup: 'kept' });
    return `${r.id} (PIX, the submerchant's)`;
  },

  'clock advance': async (ctx, o) => {
    needSandbox(ctx, 'moving the clock');
    if (ctx.target.kind === 'remote' && !o.allowClock) {
      throw new Skip(`moving a remote target's clock ${CLOCK_DAYS} days moves it for everyone using that merchant; pass --allow-clock to include it`);
    }
    const r = await sandboxCall(ctx, 'moving the clock', async () => (await ctx.client.call('sandbox.clockAdvance', { body: { days: CLOCK_DAYS } })).data);
    const recs = (await ctx.client.call('receivables.list', { query: { charge_id: ctx.cardCharge!, per_page: 100 } })).data;
    const unpaid = recs.filter((x) => x.status !== 'paid');
    if (!recs.length || unpaid.length) throw new CliError(`the card charge's receivables did not settle after ${CLOCK_DAYS} days: ${recs.map((x) => x.status).join(', ') || 'none found'}`, EXIT.refused);
    return `+${CLOCK_DAYS} days (clock ${r.clock}); ${recs.length} card receivable(s) paid`;
  },

  withdrawal: async (ctx) => {
    await approveForPayouts(ctx);
    const wallets = (await ctx.client.call('wallets.list', { query: { owner_type: 'submerchant', owner_id: ctx.sub!.id } })).data;
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
        },
      })
    ).data;
    ctx.created.push({ kind: 'withdrawal', id: w.id, cleanup: 'kept' });
    const done = await until(
      ctx,
      `withdrawal ${w.id}`,
      async () => (await ctx.client.call('withdrawals.get', { params: { id: w.id } })).data,
      (x) => x.status === 'completed' || x.status === 'failed',
    );
    if (done.status !== 'completed') throw new CliError(`withdrawal ${w.id} failed: ${done.failure_reason ?? 'no reason given'}`, EXIT.refused);
    return `${w.id} ${formatBRL(amount)} completed`;
  },

  'webhook delivery': async (ctx) => {
    const l = ctx.listener;
    if (!l) throw new Skip('no webhook endpoint was registered');
    if (!ctx.cardCharge) throw new Skip('no card charge was captured to be delivered');
    const want = (r: Ctx['received'][number]) => r.type === 'charge.captured' && r.dataId === ctx.cardCharge;
    const deadline = Date.now() + ctx.timeoutMs;
    const rt = ctx.target.runtime;
    const { deliverDue } = rt ? await import('../../../server/webhooks/worker.js') : { deliverDue: null };
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

export async function cleanup(ctx: Ctx, say: (s: string) => void): Promise<string[]> {
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
      await ctx.client.call('paymentLinks.update', { params: { id: ctx.link }, body: { status: 'inactive' } });
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

export function errorOf(e: unknown): NonNullable<StepResult['error']> {
  const x = e as { message?: string; code?: string; status?: number; requestId?: string; details?: { field: string; message: string }[] };
  const details = (x.details ?? []).map((d) => `${d.field}: ${d.message}`).filter((d) => !x.message?.includes(d));
  const out: NonNullable<StepResult['error']> = { message: [x.message ?? String(e), ...details].join('; ') };
  if (x.code) out.code = x.code;
  if (typeof x.status === 'number') out.status = x.status;
  if (x.requestId) out.request_id = x.requestId;
  return out;
}

