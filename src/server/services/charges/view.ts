/**
 * A charge's representations, all made here from its stored row: the JSON columns parsed, the
 * record the API answers (`Charge`), and that record's JSON text, which is both the answer's
 * body and the payload of the event that announces the change. Each is made at most once per
 * view; a view derived from another (`with`) keeps its parse.
 */
import type { Charge } from '../../../contract/resources/charges.js';
import { json } from '../../../store/db.js';
import { JsonText } from '../context.js';
import type { Memo } from '../../memo.js';
import { duePartsOf } from './dueView.js';
import { ratesOf, totalOf, type ChargeRow } from './rows.js';

/** A charge row's JSON columns, parsed. */
interface ParsedColumns {
  customer: Charge['customer'];
  items: Charge['items'];
  split_rules: Charge['split_rules'];
  metadata: Charge['metadata'];
  pricing: Charge['pricing'];
}

type PlainColumns = Omit<ChargeRow, keyof ParsedColumns>;

/**
 * Split rules as stored; rules stored before charge_remainder_fee existed gave the remainder to
 * the first rule, and rules stored before liable existed are liable.
 */
function splitRulesOf(stored: string): Charge['split_rules'] {
  type Stored = Omit<Charge['split_rules'][number], 'charge_remainder_fee' | 'liable'> & { charge_remainder_fee?: boolean; liable?: boolean };
  const rules = json.from<Stored[]>(stored, []);
  const flagged = rules.some((r) => r.charge_remainder_fee === true);
  return rules.map((r, i) => ({ ...r, charge_remainder_fee: r.charge_remainder_fee ?? (!flagged && i === 0), liable: r.liable ?? true }));
}

function parse(r: ChargeRow): ParsedColumns {
  return {
    customer: json.from(r.customer, { name: '', email: '', tax_id: '', phone: '', type: '' }),
    items: json.from(r.items, []),
    split_rules: splitRulesOf(r.split_rules),
    metadata: json.from(r.metadata, null),
    pricing: ratesOf(r),
  };
}

function toRecord(r: ChargeRow, parsed: ParsedColumns): Charge {
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    id: r.id,
    merchant_id: r.merchant_id,
    submerchant_id: r.submerchant_id,
    amount: Number(r.amount),
    currency: r.currency,
    status: r.status,
    payment_method: r.payment_method,
    product_type: r.product_type,
    installments: Number(r.installments),
    total_amount: totalOf(r),
    interest_amount: Number(r.interest_amount ?? 0),
    pricing: parsed.pricing,
    shipping_amount: Number(r.shipping_amount),
    customer: parsed.customer,
    items: parsed.items,
    split_rules: parsed.split_rules,
    metadata: parsed.metadata,
    card:
      r.payment_method === 'credit_card' && r.card_brand
        ? { brand: r.card_brand, first_six: r.card_first_six ?? '', last_four: r.card_last_four ?? '', holder_name: r.card_holder_name ?? '' }
        : null,
    pix: r.payment_method === 'pix' && r.pix_qr_code ? { qr_code: r.pix_qr_code, expires_at: r.pix_expires_at ?? r.due_expires_at ?? '' } : null,
    ...duePartsOf(r),
    fee_amount: num(r.fee_amount),
    net_amount: num(r.net_amount),
    failure_code: r.failure_code,
    failure_reason: r.failure_reason,
    captured_at: r.captured_at,
    captured_amount: num(r.captured_amount),
    authorized_at: r.authorized_at,
    voided_at: r.voided_at,
    void_reason: r.void_reason,
    failed_at: r.failed_at,
    refunded_at: r.refunded_at,
    refunded_amount: Number(r.refunded_amount ?? 0),
    disputed_amount: Number(r.disputed_amount ?? 0),
    payment_link_id: r.payment_link_id ?? null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** A stored charge and what is made of it: parsed columns, record, JSON text — each once. */
export class ChargeView {
  private parsedColumns: ParsedColumns | undefined;
  private madeRecord: Charge | undefined;
  private madeText: string | undefined;

  constructor(
    readonly row: ChargeRow,
    parsed?: ParsedColumns,
  ) {
    this.parsedColumns = parsed;
  }

  /** The row with changes to columns that are not JSON (a status move): the new view keeps this one's parse. */
  with(changes: Partial<PlainColumns>): ChargeView {
    return new ChargeView({ ...this.row, ...changes }, this.parsedColumns);
  }

  get record(): Charge {
    this.madeRecord ??= toRecord(this.row, (this.parsedColumns ??= parse(this.row)));
    return this.madeRecord;
  }

  /** `JSON.stringify(this.record)` */
  get text(): string {
    this.madeText ??= JSON.stringify(this.record);
    return this.madeText;
  }

  /** The record and its text, as an event's payload. */
  get eventData(): { data: Charge; text: string } {
    return { data: this.record, text: this.text };
  }

  /** The record as an answer the pipeline puts into the envelope as it is. */
  json(): JsonText<Charge> {
    return new JsonText(this.text);
  }
}

/** The record of a stored charge row. */
export function chargeRecord(row: ChargeRow): Charge {
  return new ChargeView(row).record;
}

/** What the charge-text memo keeps of a charge: its row as read, and its record's text. */
export interface KnownChargeText {
  row: ChargeRow;
  text: string;
}

/**
 * A stored charge as an answer, its text remembered per charge (`texts`, owned by the runtime)
 * while every column of its row reads the same: a charge read again unchanged (a GET polled
 * for its status, a list page served again) is not parsed and serialised again. The row is
 * still read from the store each time; any column that differs (another process's write
 * included) makes the text again.
 */
export function chargeJson(texts: Memo<string, KnownChargeText>, row: ChargeRow): JsonText<Charge> {
  const known = texts.get(row.id);
  if (known && sameColumns(known.row, row)) return new JsonText(known.text);
  const text = new ChargeView(row).text;
  texts.set(row.id, { row, text });
  return new JsonText(text);
}

/** Same columns, same values (primitives as read; a value that is an object never compares equal). */
function sameColumns(a: ChargeRow, b: ChargeRow): boolean {
  let n = 0;
  for (const k in b) {
    if (a[k as keyof ChargeRow] !== b[k as keyof ChargeRow]) return false;
    n++;
  }
  for (const _ in a) n--;
  return n === 0;
}
