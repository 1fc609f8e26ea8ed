/**
 * What `mpay trigger EVENT` creates in the sandbox for each event of the contract, like
 * `stripe trigger`: the records the event needs (token, charge, clock move, review…), each
 * recorded in `made` so the command can print them.
 */
import { randomUUID } from 'node:crypto';
import type { BodyOf, DataOf } from '../../../contract/endpoint.js';
import type { EventName } from '../../../contract/events.js';
import type { MpayClient, Operation } from '../../../sdk/client.js';
import type { DocumentType } from '../../../domain/onboarding.js';
import { LOSING_EVIDENCE, WINNING_EVIDENCE } from '../../../domain/chargebacks.js';
import { DEFAULT_PRICING } from '../../../domain/pricing.js';
import { TEST_CARDS } from '../../../domain/sandbox.js';
import { SANDBOX_PAYOUT_VALUES } from '../../../domain/sandboxPayouts.js';
import { addDays, localDate, settledAfterDays } from '../../../domain/calendar.js';
import { SETTLEMENT_DAYS_PER_INSTALLMENT } from '../../../domain/fees.js';
import { CliError, EXIT } from '../../errors.js';
import { fileForm } from '../../multipart.js';
import { randomCpf, sampleAddress, sampleCard, samplePfSubmerchant, tinyPng } from '../sandboxData.js';

export interface Made {
  kind: string;
  id: string;
  detail?: string;
}

type Charge = DataOf<Operation<'charges.get'>>;
type Sub = DataOf<Operation<'submerchants.get'>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Builds sandbox records for a trigger, remembering each one it made. */
export class Maker {
  readonly made: Made[] = [];
  /** the values to copy (a checkout URL, a slip's URL) in the details of `made`, each with the field it is */
  readonly toCopy = new Map<Made, Record<string, string>>();
  private merchant?: { wallet_id: string; clock: string; mode: string; pin_enabled: boolean; pricing?: { chargeback_fee_amount: number } };
  private readonly run = randomUUID().slice(0, 8);

  constructor(
    private readonly client: MpayClient,
    private readonly env: NodeJS.ProcessEnv,
    private readonly timeoutMs = 30_000,
  ) {}

  /** `copy`: the values to copy that `detail` holds, by field name */
  private add(kind: string, id: string, detail?: string, copy?: Record<string, string>) {
    const m = detail ? { kind, id, detail } : { kind, id };
    this.made.push(m);
    if (copy) this.toCopy.set(m, copy);
  }

  async me() {
    this.merchant ??= (await this.client.call('merchant.get', {})).data;
    return this.merchant;
  }

  private async until<T>(what: string, get: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const v = await get();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new CliError(`${what}: still not done after ${this.timeoutMs / 1000} s`, EXIT.refused);
      await sleep(200);
    }
  }

  async token(number?: string): Promise<string> {
    const year = new Date((await this.me()).clock).getUTCFullYear() + 3;
    const t = (
      await this.client.call('tokens.create', {
        body: { card: sampleCard(year, number) },
      })
    ).data;
    this.add('card_token', `${t.brand} •••• ${t.lastFourDigits}`, 'tokenized with the public key');
    return t.token;
  }

  private customer() {
    return { name: 'Ana Souza (mpay trigger)', email: 'trigger@example.com', tax_id: randomCpf(), phone: '+5511987654321', type: 'individual' as const };
  }

  /** A charge of this trigger; `payment` is the payment_method and its payment_details. */
  private chargeBody<P extends { payment_method: 'credit_card' | 'pix' | 'boleto' }>(amount: number, payment: P) {
    return {
      amount,
      ...payment,
      product_type: 'digital' as const,
      customer: { ...this.customer(), address: sampleAddress() },
      items: [{ name: `mpay trigger ${this.run}`, quantity: 1, unit_price: amount, tangible: false }],
      metadata: { mpay_trigger: this.run },
    };
  }

  /** A card charge, waited for until it leaves pending; with `capture: false`, authorised only. */
  async cardCharge(o: { number?: string; amount?: number; installments?: number; capture?: boolean } = {}): Promise<Charge> {
    const amount = o.amount ?? 10_000;
    const token = await this.token(o.number);
    const payment = { payment_method: 'credit_card', payment_details: { token, installments: o.installments ?? 1 }, ...(o.capture === false ? { capture: false } : {}) } as const;
    const c = (await this.client.call('charges.create', { body: this.chargeBody(amount, payment) })).data;
    const final = c.status === 'pending'
      ? await this.until(`charge ${c.id}`, async () => (await this.client.call('charges.get', { params: { id: c.id } })).data, (x) => x.status !== 'pending')
      : c;
    this.add('charge', c.id, `card, ${amount} cents${o.installments ? ` in ${o.installments} installments` : ''}: ${final.status}${final.failure_code ? ` (${final.failure_code})` : ''}`);
    return final;
  }

  async pixCharge(amount = 5_000): Promise<Charge> {
    const c = (await this.client.call('charges.create', { body: this.chargeBody(amount, { payment_method: 'pix', payment_details: {} }) })).data;
    this.add('charge', c.id, `PIX, ${amount} cents: ${c.status}`);
    return c;
  }

  /** A boleto (or a PIX with a due date) due in 3 days on the merchant's clock, with a fine and interest. */
  async dueCharge(method: 'boleto' | 'pix', amount = 10_000): Promise<Charge> {
    const due = addDays(localDate(new Date((await this.me()).clock)), 3);
    const payment_details = { due_date: due, fine: 200, interest: 100 };
    const body = method === 'boleto' ? this.chargeBody(amount, { payment_method: 'boleto', payment_details }) : this.chargeBody(amount, { payment_method: 'pix', payment_details });
    const c = (await this.client.call('charges.create', { body })).data;
    this.add('charge', c.id, `${method === 'boleto' ? 'boleto' : 'PIX with a due date'}, ${amount} cents due ${due}: ${c.status}${c.boleto ? `; ${c.boleto.url}` : ''}`, c.boleto ? { 'boleto.url': c.boleto.url } : undefined);
    return c;
  }

  /** The sandbox's payment of a pending charge (with a due date: the amount due today). */
  async pay(c: Charge): Promise<Charge> {
    const p = (await this.client.call('charges.sandboxPay', { params: { id: c.id }, body: {} })).data;
    this.add('payment', c.id, `paid ${p.paid_amount ?? p.amount} cents: ${p.status}`);
    return p;
  }

  /** The sandbox's expiry of a pending charge with a due date: only this charge moves. */
  async expire(c: Charge): Promise<void> {
    const e = (await this.client.call('charges.sandboxExpire', { params: { id: c.id } })).data;
    this.add('expiry', c.id, `expired as if its last payable day had passed: ${e.status}`);
  }

  async capturedCard(): Promise<Charge> {
    const c = await this.cardCharge();
    if (c.status !== 'captured') throw new CliError(`the card charge ${c.id} ended ${c.status}, not captured`, EXIT.refused);
    return c;
  }

  async authorizedCard(): Promise<Charge> {
    const c = await this.cardCharge({ capture: false });
    if (c.status !== 'authorized') throw new CliError(`the card charge ${c.id} ended ${c.status}, not authorized`, EXIT.refused);
    return c;
  }

  async voidCharge(chargeId: string): Promise<void> {
    const r = (await this.client.call('charges.void', { params: { id: chargeId } })).data;
    this.add('void', chargeId, `authorisation voided: charge ${r.status} (${r.void_reason})`);
  }

  /** A full refund; a PIX's is a devolução, whose return id the step names. */
  async refund(chargeId: string): Promise<void> {
    const r = (await this.client.call('charges.refund', { params: { id: chargeId }, body: {} })).data;
    const [made] = r.payment_method === 'pix' ? (await this.client.call('charges.refunds', { params: { id: chargeId }, query: { per_page: 1 } })).data : [];
    this.add('refund', chargeId, `full refund: charge ${r.status}${made?.return_id ? `; a devolução, return id ${made.return_id}` : ''}`);
  }

  async advanceClock(days: number): Promise<void> {
    const r = (await this.client.call('sandbox.clockAdvance', { body: { days } })).data;
    this.add('clock', r.clock, `merchant clock moved +${days} days`);
  }

  async submerchant(): Promise<Sub> {
    const s = (
      await this.client.call('submerchants.create', {
        body: samplePfSubmerchant('trigger', this.run, randomCpf()),
      })
    ).data;
    this.add('submerchant', s.id, `pf: ${s.status}`);
    return s;
  }

  async document(subId: string, type: DocumentType): Promise<{ id: string; status: string }> {
    const form = await fileForm(tinyPng(), `${type}.png`, 'image/png');
    const u = (await this.client.call('submerchants.upload', { params: { id: subId }, rawBody: form })).data;
    this.add('file', u.key, `${type}.png uploaded`);
    const d = (
      await this.client.call('submerchants.documents.create', {
        params: { id: subId },
        body: { type, file_url: u.url, file_name: u.fileName, file_size: u.fileSize, mime_type: u.mimeType },
      })
    ).data;
    this.add('document', d.id, `${type}: ${d.status}`);
    return d;
  }

  /** A pf submerchant with its address and every required document: under_review. */
  async underReview(): Promise<Sub> {
    const s = await this.submerchant();
    const a = (
      await this.client.call('submerchants.addresses.create', {
        params: { id: s.id },
        body: sampleAddress(),
      })
    ).data;
    this.add('address', a.id);
    const { REQUIRED_DOCUMENTS } = await import('../../../domain/onboarding.js');
    for (const t of REQUIRED_DOCUMENTS.pf) await this.document(s.id, t);
    const now = (await this.client.call('submerchants.get', { params: { id: s.id } })).data;
    if (now.status !== 'under_review') throw new CliError(`submerchant ${s.id} is ${now.status}, not under_review, with every document in`, EXIT.refused);
    return now;
  }

  async review(subId: string, decision: 'approve' | 'reject'): Promise<void> {
    const body: BodyOf<Operation<'sandbox.submerchants.review'>> = decision === 'approve' ? { decision } : { decision, notes: 'mpay trigger: rejected on purpose' };
    const r = (await this.client.call('sandbox.submerchants.review', { params: { id: subId }, body })).data;
    this.add('review', subId, `${decision}: ${r.status}`);
  }

  /** A withdrawal of `amount` from the merchant's wallet to a PIX recipient, credited first. */
  async withdrawal(amount: number, wait: boolean): Promise<{ id: string; status: string }> {
    const m = await this.me();
    if (m.pin_enabled && !this.env.MPAY_PIN) throw new CliError('the merchant has a transaction PIN: set MPAY_PIN to trigger withdrawal events', EXIT.usage);
    const adj = (await this.client.call('sandbox.wallet.adjust', { body: { direction: 'credit', amount, description: `mpay trigger ${this.run}` } })).data;
    this.add('wallet_adjustment', adj.id ?? m.wallet_id, `credit ${amount} cents to the merchant wallet`);
    const rcp = (
      await this.client.call('recipients.put', {
        body: { type: 'pix', pix_key: randomUUID(), pix_key_type: 'random', holder_name: 'Ana Souza', holder_tax_id: randomCpf() },
      })
    ).data;
    this.add('recipient', rcp.id, 'PIX, random key');
    const w = (
      await this.client.call('withdrawals.create', {
        body: {
          type: 'pix',
          wallet_id: m.wallet_id,
          amount,
          recipient_id: rcp.id,
          idempotency_key: `mpay-trigger-${this.run}`,
          ...(m.pin_enabled ? { pin: this.env.MPAY_PIN } : {}),
        },
      })
    ).data;
    const final = wait
      ? await this.until(`withdrawal ${w.id}`, async () => (await this.client.call('withdrawals.get', { params: { id: w.id } })).data, (x) => ['completed', 'failed'].includes(x.status))
      : w;
    this.add('withdrawal', w.id, `${amount} cents: ${final.status}`);
    return final;
  }

  async link(): Promise<{ id: string; amount: number }> {
    const l = (
      await this.client.call('paymentLinks.create', {
        body: { title: `mpay trigger ${this.run}`, product_type: 'digital', allowed_payment_methods: ['credit_card', 'pix'], amount: 2_500, max_uses: 1 },
      })
    ).data;
    this.add('payment_link', l.id, l.checkout_url, { checkout_url: l.checkout_url });
    return { id: l.id, amount: 2_500 };
  }

  async payLink(link: { id: string; amount: number }): Promise<void> {
    const token = await this.token();
    const { tax_id, name, email, phone } = this.customer();
    const p = (
      await this.client.call('checkout.pay', {
        params: { id: link.id },
        body: { attempt_id: `mpay-trigger-${this.run}`, payment_method: 'credit_card', amount: link.amount, token, installments: 1, customer: { name, email, tax_id, phone } },
      })
    ).data;
    // receipt_id is the charge the payment made (GET /v1/charges/{id} finds it)
    this.add('checkout_payment', p.receipt_id, `paid through the hosted checkout: ${p.status}`);
  }

  /** The ids of a charge's receivables: what an anticipation of this trigger may take (never another charge's). */
  async receivableIds(chargeId: string): Promise<string[]> {
    const rs = (await this.client.call('receivables.list', { query: { charge_id: chargeId, per_page: 100 } })).data;
    if (!rs.length) throw new CliError(`the charge ${chargeId} has no receivables to anticipate`, EXIT.refused);
    return rs.map((r) => r.id);
  }

  /**
   * A captured card charge of R$ 100,00 and a chargeback of half of it, which its own pending
   * receivable covers: no wallet is touched by the opening.
   */
  async chargeback(): Promise<{ id: string; status: string }> {
    const c = await this.capturedCard();
    const cb = (await this.client.call('sandbox.chargebacks.create', { params: { id: c.id }, body: { amount: c.amount / 2, reason: 'fraud' } })).data;
    this.add('chargeback', cb.id, `${cb.amount} cents of charge ${c.id}, from its receivable: ${cb.status}`);
    return cb;
  }

  /**
   * A PIX of R$ 100,00 paid through the sandbox and a MED of all of it (a chargeback of type
   * med), taken from the merchant wallet at once. The wallet got the PIX's net and gives back
   * what the payer paid; with `coverFee`, a sandbox credit of the PIX's fee then leaves the
   * balance as it was (a MED won gives the amount back, and needs none).
   */
  async med(coverFee: boolean): Promise<{ id: string; status: string }> {
    const c = await this.pay(await this.pixCharge(10_000));
    expectStatus(c, 'captured');
    const cb = (await this.client.call('sandbox.chargebacks.med', { params: { id: c.id }, body: { reason: 'fraud' } })).data;
    this.add('med', cb.id, `${cb.amount} cents of PIX charge ${c.id}, from the wallet: ${cb.status}`);
    const fee = c.fee_amount ?? 0;
    if (coverFee && fee > 0) {
      const m = await this.me();
      await this.client.call('sandbox.wallet.adjust', { body: { direction: 'credit', amount: fee, description: `mpay trigger ${this.run}: the PIX fee of a MED` } });
      this.add('wallet_adjustment', m.wallet_id, `credit ${fee} cents (the PIX's fee) to the merchant wallet`);
    }
    return cb;
  }

  async contest(id: string, text: string): Promise<void> {
    const cb = (await this.client.call('chargebacks.contest', { params: { id }, body: { text } })).data;
    this.add('contest', id, `evidence "${text}": ${cb.status}`);
  }

  async decide(id: string): Promise<string> {
    const cb = (await this.client.call('sandbox.chargebacks.decide', { params: { id } })).data;
    this.add('decision', id, cb.status === 'won' ? `won: ${cb.amount} cents credited back` : `${cb.status}: fee ${cb.fee_amount} cents${returned(cb)}`);
    return cb.status;
  }

  async accept(id: string): Promise<void> {
    const cb = (await this.client.call('chargebacks.accept', { params: { id } })).data;
    this.add('acceptance', id, `${cb.status}: fee ${cb.fee_amount} cents${returned(cb)}`);
  }

  /**
   * A sandbox credit of the chargeback fee to the merchant wallet, so the fee a recipe causes
   * leaves the balance as it was: the fee of the merchant's pricing, which the recipe's charge
   * records when it is created. Nothing when that fee is 0.
   */
  async coverChargebackFee(): Promise<void> {
    const m = await this.me();
    const fee = m.pricing?.chargeback_fee_amount ?? DEFAULT_PRICING.chargeback_fee_amount;
    if (fee === 0) return;
    await this.client.call('sandbox.wallet.adjust', { body: { direction: 'credit', amount: fee, description: `mpay trigger ${this.run}: chargeback fee` } });
    this.add('wallet_adjustment', m.wallet_id, `credit ${fee} cents (the chargeback fee) to the merchant wallet`);
  }

  async anticipation(body: BodyOf<Operation<'anticipations.create'>>): Promise<{ id: string; status: string }> {
    const a = (await this.client.call('anticipations.create', { body })).data;
    this.add('anticipation', a.id, `${a.status}${a.refusal_reason ? `: ${a.refusal_reason}` : ''}`);
    return a;
  }
}

/** A withdrawal amount the sandbox fails (the payout magic value on the amount), else null. */
function failingAmount(): number | null {
  const v = SANDBOX_PAYOUT_VALUES.find((x) => x.field === 'amount' && x.cents_ending !== undefined && (x.type === 'pix' || x.type === 'any'));
  return v ? 1_000 + v.cents_ending! : null;
}

export type TriggerMethod = 'credit_card' | 'pix' | 'boleto';

export interface Recipe {
  /** what the trigger creates, for --list */
  creates: string;
  run(m: Maker): Promise<void>;
  /** the charge events: the payment method of `run`'s charge */
  method?: TriggerMethod;
  /** the charge events: the same event from a charge of another payment method (--payment-method) */
  methods?: Partial<Record<TriggerMethod, (m: Maker) => Promise<void>>>;
}

/** A charge's status after a step, or an error saying what it was instead. */
function expectStatus(c: Charge, status: Charge['status']): void {
  if (c.status !== status) throw new CliError(`charge ${c.id} is ${c.status}, not ${status}`, EXIT.refused);
}

/** A MED's devolução, as a step's detail says it. */
const returned = (cb: { return_id?: string | null }) => (cb.return_id ? `; returned to the payer, return id ${cb.return_id}` : '');

const declined = () => TEST_CARDS.find((c) => c.outcome === 'declined')!.number;

/** A chargeback (or a MED) contested with `text` and decided at once by the sandbox issuer. */
async function decided(m: Maker, text: string, want: 'won' | 'lost', med = false): Promise<void> {
  const cb = med ? await m.med(want === 'lost') : await m.chargeback();
  await m.contest(cb.id, text);
  const got = await m.decide(cb.id);
  if (got !== want) throw new CliError(`chargeback ${cb.id} was ${got}, not ${want}`, EXIT.refused);
}

/** What --payment-method pix makes of a chargeback event. */
const MED = '--payment-method pix: a paid PIX of R$ 100,00 and a MED of all of it instead (a sandbox credit of the PIX fee leaves the wallet as it was, unless the MED is won)';

export const RECIPES: Record<EventName, Recipe> = {
  'charge.pending': {
    creates: 'a PIX charge (pending until paid); --payment-method boleto: a boleto due in 3 days',
    run: async (m) => void (await m.pixCharge()),
    method: 'pix',
    methods: { boleto: async (m) => void (await m.dueCharge('boleto')) },
  },
  'charge.authorized': { creates: 'a card token and a card charge created with capture false: authorized', run: async (m) => void (await m.authorizedCard()) },
  'charge.captured': {
    creates: 'a card token and a card charge, captured; --payment-method pix|boleto: a PIX or a boleto paid through the sandbox',
    run: async (m) => void (await m.capturedCard()),
    method: 'credit_card',
    methods: {
      pix: async (m) => expectStatus(await m.pay(await m.pixCharge()), 'captured'),
      boleto: async (m) => expectStatus(await m.pay(await m.dueCharge('boleto')), 'captured'),
    },
  },
  'charge.failed': {
    creates: 'a card token of a declining test card and its charge, failed',
    method: 'credit_card',
    run: async (m) => {
      const c = await m.cardCharge({ number: declined() });
      if (c.status !== 'failed') throw new CliError(`the charge with test card ${declined()} ended ${c.status}`, EXIT.refused);
    },
  },
  'charge.refunded': {
    creates: 'a captured card charge, then its full refund; --payment-method pix: a PIX paid through the sandbox, then its full refund (a devolução, with its return id)',
    method: 'credit_card',
    run: async (m) => {
      await m.refund((await m.capturedCard()).id);
    },
    methods: {
      pix: async (m) => {
        const c = await m.pay(await m.pixCharge());
        expectStatus(c, 'captured');
        await m.refund(c.id);
      },
    },
  },
  'charge.voided': {
    creates: 'a card charge created with capture false (authorized), then its void',
    run: async (m) => m.voidCharge((await m.authorizedCard()).id),
  },
  'charge.expired': {
    creates: 'a boleto, then the sandbox expiring it (only that charge: no clock move); --payment-method pix: a PIX with a due date',
    run: async (m) => m.expire(await m.dueCharge('boleto')),
    method: 'boleto',
    methods: { pix: async (m) => m.expire(await m.dueCharge('pix')) },
  },
  'receivable.paid': {
    creates: 'a captured card charge, then the merchant clock +35 days so its receivable settles (D+30 moved to a business day)',
    run: async (m) => {
      await m.capturedCard();
      await m.advanceClock(settledAfterDays(SETTLEMENT_DAYS_PER_INSTALLMENT));
    },
  },
  'withdrawal.pending': { creates: 'a sandbox credit to the merchant wallet, a PIX recipient and a withdrawal (pending)', run: async (m) => void (await m.withdrawal(1_000, false)) },
  'withdrawal.completed': {
    creates: 'a sandbox credit, a PIX recipient and a withdrawal, waited for until completed (~3 s)',
    run: async (m) => {
      const w = await m.withdrawal(1_000, true);
      if (w.status !== 'completed') throw new CliError(`withdrawal ${w.id} ended ${w.status}`, EXIT.refused);
    },
  },
  'withdrawal.failed': {
    creates: 'a sandbox credit, a PIX recipient and a withdrawal of a failing magic amount, waited for until failed',
    run: async (m) => {
      const amount = failingAmount();
      if (amount === null) throw new CliError('the sandbox has no failing withdrawal amount', EXIT.refused);
      const w = await m.withdrawal(amount, true);
      if (w.status !== 'failed') throw new CliError(`withdrawal ${w.id} ended ${w.status}, not failed`, EXIT.refused);
    },
  },
  'anticipation.approved': {
    creates: "a captured card charge in 3 installments, then an anticipation of that charge's receivables",
    run: async (m) => {
      const c = await m.cardCharge({ amount: 30_000, installments: 3 });
      if (c.status !== 'captured') throw new CliError(`the card charge ${c.id} ended ${c.status}`, EXIT.refused);
      const a = await m.anticipation({ receivable_ids: await m.receivableIds(c.id) });
      if (a.status !== 'approved') throw new CliError(`anticipation ${a.id} was ${a.status}`, EXIT.refused);
    },
  },
  'anticipation.refused': {
    creates: 'a captured card charge refunded in full, then an anticipation of its cancelled receivable: refused',
    run: async (m) => {
      const c = await m.capturedCard();
      await m.refund(c.id);
      const a = await m.anticipation({ receivable_ids: await m.receivableIds(c.id) });
      if (a.status !== 'refused') throw new CliError(`anticipation ${a.id} was ${a.status}`, EXIT.refused);
    },
  },
  'submerchant.created': { creates: 'a pf submerchant', run: async (m) => void (await m.submerchant()) },
  'submerchant.under_review': { creates: 'a pf submerchant with its address and the four required documents', run: async (m) => void (await m.underReview()) },
  'submerchant.approved': {
    creates: 'a pf submerchant under review, then the sandbox review approving it',
    run: async (m) => m.review((await m.underReview()).id, 'approve'),
  },
  'submerchant.rejected': {
    creates: 'a pf submerchant under review, then the sandbox review rejecting it',
    run: async (m) => m.review((await m.underReview()).id, 'reject'),
  },
  'document.created': {
    creates: 'a pf submerchant, an uploaded PNG and its front_id document',
    run: async (m) => void (await m.document((await m.submerchant()).id, 'front_id')),
  },
  'document.replaced': {
    creates: 'a pf submerchant and two front_id documents, the second replacing the first',
    run: async (m) => {
      const s = await m.submerchant();
      await m.document(s.id, 'front_id');
      await m.document(s.id, 'front_id');
    },
  },
  'payment_link.created': { creates: 'a payment link (card or PIX, one use)', run: async (m) => void (await m.link()) },
  'payment_link.paid': {
    creates: 'a payment link, a card token and a payment through its hosted checkout',
    run: async (m) => m.payLink(await m.link()),
  },
  'chargeback.created': {
    creates: `a captured card charge of R$ 100,00 and a sandbox chargeback of half of it (taken from its own receivable); ${MED}`,
    run: async (m) => void (await m.chargeback()),
    method: 'credit_card',
    methods: { pix: async (m) => void (await m.med(true)) },
  },
  'chargeback.under_review': {
    creates: `a captured card charge, a chargeback of half of it and its contest with evidence text; ${MED}`,
    run: async (m) => m.contest((await m.chargeback()).id, 'mpay trigger: delivery signed by the buyer'),
    method: 'credit_card',
    methods: { pix: async (m) => m.contest((await m.med(true)).id, 'mpay trigger: delivery signed by the buyer') },
  },
  'chargeback.accepted': {
    creates: `a captured card charge, a chargeback of half of it, a sandbox credit of the chargeback fee, and the acceptance; ${MED}`,
    run: async (m) => {
      const cb = await m.chargeback();
      await m.coverChargebackFee();
      await m.accept(cb.id);
    },
    method: 'credit_card',
    methods: { pix: async (m) => m.accept((await m.med(true)).id) },
  },
  'chargeback.won': {
    creates: `a captured card charge, a chargeback of half of it, its contest with "${WINNING_EVIDENCE}" and the sandbox decision (the half credited back); ${MED}`,
    run: (m) => decided(m, WINNING_EVIDENCE, 'won'),
    method: 'credit_card',
    methods: { pix: (m) => decided(m, WINNING_EVIDENCE, 'won', true) },
  },
  'chargeback.lost': {
    creates: `a captured card charge, a chargeback of half of it, a sandbox credit of the chargeback fee, its contest with "${LOSING_EVIDENCE}" and the sandbox decision; ${MED}`,
    run: async (m) => {
      await m.coverChargebackFee();
      await decided(m, LOSING_EVIDENCE, 'lost');
    },
    method: 'credit_card',
    methods: { pix: (m) => decided(m, LOSING_EVIDENCE, 'lost', true) },
  },
};
