/**
 * The printable page of a boleto (GET /boleto/{id}), rendered on the server in pt-BR: the
 * payer's receipt ("recibo do pagador") and the compensation slip ("ficha de compensação") in the
 * FEBRABAN layout, with the barcode drawn as Interleaved 2 of 5 (src/domain/interleaved2of5.ts)
 * at its printed size, the digitable line with a copy button, and a print style for one A4 page.
 * Everything the merchant or the payer wrote is escaped; the style and the small script are
 * inline under the page's CSP nonce (nothing is loaded from anywhere).
 */
import type { PrintableBoleto } from '../services/charges/boleto.js';
import { dueTermsOf, duePartsOf, storedTerms } from '../services/charges/dueView.js';
import { bankCodeWithDigit } from '../../domain/boleto.js';
import { localDate } from '../../domain/calendar.js';
import { amountDueOn } from '../../domain/dueAmount.js';
import { interleaved2of5Svg } from '../../domain/interleaved2of5.js';
import { formatBRL } from '../../domain/money.js';
import { formatTaxId } from '../../domain/taxid.js';
import { SANDBOX_AGENCY } from '../../domain/boleto.js';
import { escapeHtml, htmlDocument, nonceOf, securityHeaders, type Rendered } from './page.js';

/** 2027-01-10 → 10/01/2027 */
const br = (ymd: string) => ymd.split('-').reverse().join('/');
/** basis points as a Brazilian percentage: 200 → "2,00%" */
const pct = (bps: number) => `${Math.floor(bps / 100)},${String(bps % 100).padStart(2, '0')}%`;
const cep = (v: string) => (/^\d{8}$/.test(v) ? `${v.slice(0, 5)}-${v.slice(5)}` : v);

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;color:#111;background:#fff}
main{max-width:190mm;margin:0 auto;padding:12px}
h1{font-size:1.35rem;margin:0 0 .5rem}
.note{font-size:.85rem;background:#FEF3C7;color:#111;border-radius:6px;padding:.4rem .6rem;margin:0 0 .75rem}
.today{margin:0 0 .75rem}
.line-box{border:1px solid #9CA3AF;border-radius:8px;padding:.6rem .75rem;margin:0 0 .75rem}
.line-label{font-size:.8rem;color:#4B5563;margin:0}
.line{font:600 1rem/1.5 ui-monospace,"DejaVu Sans Mono",Menlo,monospace;overflow-wrap:anywhere;margin:.2rem 0 .5rem}
.buttons{display:flex;flex-wrap:wrap;gap:.5rem}
button{font:inherit;font-weight:600;min-height:44px;padding:.5rem 1rem;border-radius:8px;border:1px solid #1A56DB;background:#1A56DB;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1A56DB}
:focus-visible{outline:3px solid #1A56DB;outline-offset:2px}
.status{min-height:1.2em;font-size:.85rem;color:#047857;margin:.4rem 0 0}
.part{border-top:1px dashed #6B7280;padding-top:.5rem;margin-top:1rem}
.part-title{font-size:.75rem;text-align:right;margin:0 0 .25rem;color:#4B5563}
.head{display:flex;align-items:flex-end;border-bottom:2px solid #111;gap:.5rem;padding-bottom:2px}
.bank{font-weight:700;font-size:1rem;white-space:nowrap}
.code{font-weight:700;font-size:1.2rem;border-left:2px solid #111;border-right:2px solid #111;padding:0 .5rem;white-space:nowrap}
.head .printed-line{font:700 .9rem ui-monospace,"DejaVu Sans Mono",Menlo,monospace;text-align:right;flex:1;overflow-wrap:anywhere}
.grid{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));border-left:1px solid #111}
.cell{border-right:1px solid #111;border-bottom:1px solid #111;padding:1px 4px;min-height:2.1em;overflow-wrap:anywhere}
.cell small{display:block;font-size:.62rem;color:#374151;line-height:1.2}
.cell span{font-size:.8rem}
.s1{grid-column:span 1}.s2{grid-column:span 2}.s3{grid-column:span 3}.s4{grid-column:span 4}.s5{grid-column:span 5}.s6{grid-column:span 6}
.right{text-align:right}
.instructions{white-space:pre-line}
.barcode{margin:6px 0 0}
.barcode svg{display:block;max-width:100%;height:13mm}
.state{max-width:36rem;margin:3rem auto;padding:1.5rem;border:1px solid #D1D5DB;border-radius:12px}
@page{size:A4;margin:10mm}
@media print{main{padding:0;max-width:none}.screen{display:none!important}.part{margin-top:6mm}}
@media (max-width:480px){.grid{grid-template-columns:repeat(2,minmax(0,1fr))}.s1,.s2,.s3,.s4,.s5,.s6{grid-column:span 2}.head{flex-wrap:wrap}}
`;

const SCRIPT = `(() => {
  const line = document.getElementById('digitable-line');
  const status = document.getElementById('copy-status');
  document.getElementById('copy-line')?.addEventListener('click', async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(line.dataset.digits);
      ok = true;
    } catch {
      const range = document.createRange();
      range.selectNodeContents(line);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      ok = document.execCommand('copy');
    }
    status.textContent = ok ? 'Linha digitável copiada. Cole no app ou no site do seu banco.' : 'Selecione a linha digitável e copie.';
  });
  document.getElementById('print')?.addEventListener('click', () => window.print());
})();`;

function page(title: string, body: string, nonce: string, script = false): string {
  return htmlDocument(title, `<style nonce="${nonce}">${STYLE}</style>`, `${body}\n${script ? `<script nonce="${nonce}">${SCRIPT}</script>\n` : ''}`);
}

const cell = (span: number, label: string, value: string, cls = '') =>
  `<div class="cell s${span}${cls ? ` ${cls}` : ''}"><small>${escapeHtml(label)}</small><span>${value}</span></div>`;

export type BoletoState = 'not_found' | 'paid' | 'expired';

const STATES: Record<BoletoState, { status: number; heading: string; text: string }> = {
  not_found: { status: 404, heading: 'Boleto não encontrado', text: 'Confira o endereço que você recebeu ou fale com quem emitiu o boleto.' },
  paid: { status: 200, heading: 'Este boleto já foi pago', text: 'O pagamento foi recebido. Não pague de novo.' },
  expired: { status: 410, heading: 'Este boleto venceu e não pode mais ser pago', text: 'O prazo de pagamento terminou. Peça um novo boleto a quem o emitiu.' },
};

/** The page shown instead of a payable slip: unknown id (or not a boleto), paid, or past its last payable day. */
export function renderBoletoState(state: BoletoState, paidOn?: string | null): Rendered {
  const nonce = nonceOf();
  const s = STATES[state];
  const text = state === 'paid' && paidOn ? `O pagamento foi recebido em ${br(paidOn)}. Não pague de novo.` : s.text;
  const body = `<main class="state" data-state="${state}"><h1>${escapeHtml(s.heading)}</h1><p>${escapeHtml(text)}</p></main>`;
  return { status: s.status, html: page(`${s.heading} · mpay`, body, nonce), headers: securityHeaders(nonce, []) };
}

/** The slip of a pending boleto (a paid or expired one gets its state page). */
export function renderBoletoPage(b: PrintableBoleto, opts: { sandbox: boolean }): Rendered {
  const r = b.row;
  if (r.status === 'captured' || r.status === 'refunded') return renderBoletoState('paid', r.paid_on);
  const terms = storedTerms(r);
  const slip = duePartsOf(r).boleto;
  if (r.status !== 'pending' || !terms || !slip) return renderBoletoState('expired');
  const amount = Number(r.amount);
  const today = localDate(b.now);
  const dueToday = amountDueOn(dueTermsOf(terms, amount), today);
  if (!dueToday.payable) return renderBoletoState('expired');
  const nonce = nonceOf();
  const customer = JSON.parse(r.customer) as {
    name: string;
    tax_id: string;
    address?: { street: string; number: string; complement?: string; neighborhood: string; city: string; state: string; zip_code: string };
  };
  const a = customer.address;
  const payer = [
    `${escapeHtml(customer.name)} — ${customer.tax_id.length === 11 ? 'CPF' : 'CNPJ'} ${escapeHtml(formatTaxId(customer.tax_id))}`,
    a ? escapeHtml(`${a.street}, ${a.number}${a.complement ? `, ${a.complement}` : ''} — ${a.neighborhood}`) : '',
    a ? escapeHtml(`${a.city}/${a.state} — CEP ${cep(a.zip_code)}`) : '',
  ]
    .filter(Boolean)
    .join('<br>');
  const beneficiary = escapeHtml(b.beneficiary.name) + (b.beneficiary.taxId ? ` — ${b.beneficiary.taxId.length === 11 ? 'CPF' : 'CNPJ'} ${escapeHtml(formatTaxId(b.beneficiary.taxId))}` : '');
  const instructions = [
    terms.discount ? `Até ${br(terms.discount.until)}, conceder desconto de ${formatBRL(terms.discount.amount)}.` : '',
    terms.fine ? `Após o vencimento, cobrar multa de ${pct(terms.fine)}.` : '',
    terms.interest ? `Após o vencimento, cobrar juros de ${pct(terms.interest)} ao mês, por dia corrido de atraso.` : '',
    `Não receber após ${br(dueToday.lastPayableDay)}.`,
    terms.instructions ?? '',
  ]
    .filter(Boolean)
    .join('\n');
  const bank = bankCodeWithDigit();
  const agencyAccount = `${SANDBOX_AGENCY} / ${b.account}`;
  const money = (v: number) => escapeHtml(formatBRL(v));
  const created = br(localDate(new Date(r.created_at)));
  const todayLine =
    dueToday.amountDueCents !== amount
      ? `<p class="today screen" id="amount-today">Valor a pagar hoje (${br(today)}): <strong>${money(dueToday.amountDueCents)}</strong></p>`
      : '';

  const receipt = `<section class="part" aria-labelledby="receipt-title">
<p class="part-title" id="receipt-title">Recibo do pagador</p>
<div class="head"><span class="bank">mpay sandbox</span><span class="code">${bank}</span><span class="printed-line">${escapeHtml(slip.formatted_line)}</span></div>
<div class="grid">
${cell(4, 'Beneficiário', beneficiary)}${cell(2, 'Vencimento', br(terms.due_date), 'right')}
${cell(4, 'Pagador', escapeHtml(customer.name))}${cell(2, 'Valor do documento', money(amount), 'right')}
${cell(2, 'Agência / Código do beneficiário', agencyAccount)}${cell(2, 'Nosso número', slip.our_number)}${cell(2, 'Data do documento', created, 'right')}
</div>
</section>`;

  const compensation = `<section class="part" aria-labelledby="slip-title">
<p class="part-title" id="slip-title">Ficha de compensação</p>
<div class="head"><span class="bank">mpay sandbox</span><span class="code">${bank}</span><span class="printed-line">${escapeHtml(slip.formatted_line)}</span></div>
<div class="grid">
${cell(5, 'Local de pagamento', opts.sandbox ? 'Ambiente de testes (sandbox): não pague este boleto em um banco.' : 'Pagável em qualquer banco até o vencimento.')}${cell(1, 'Vencimento', br(terms.due_date), 'right')}
${cell(5, 'Beneficiário', beneficiary)}${cell(1, 'Agência / Código do beneficiário', agencyAccount, 'right')}
${cell(1, 'Data do documento', created)}${cell(1, 'Nº do documento', escapeHtml(r.id.slice(0, 8)))}${cell(1, 'Espécie doc.', 'DM')}${cell(1, 'Aceite', 'N')}${cell(1, 'Data processamento', created)}${cell(1, 'Nosso número', slip.our_number, 'right')}
${cell(2, 'Carteira', '1')}${cell(1, 'Espécie', 'R$')}${cell(2, 'Quantidade', '')}${cell(1, '(=) Valor do documento', money(amount), 'right')}
${cell(5, 'Instruções (texto de responsabilidade do beneficiário)', `<span class="instructions">${escapeHtml(instructions)}</span>`)}${cell(1, '(−) Desconto / Abatimento', '', 'right')}
${cell(5, '', '')}${cell(1, '(+) Mora / Multa', '', 'right')}
${cell(5, '', '')}${cell(1, '(=) Valor cobrado', '', 'right')}
${cell(6, 'Pagador', payer)}
</div>
<div class="barcode">${interleaved2of5Svg(slip.barcode)}</div>
</section>`;

  const body = `<main>
<div class="screen">
<h1>Boleto bancário</h1>
${opts.sandbox ? '<p class="note">Ambiente de testes (sandbox): este boleto não é pago em bancos; use <code>mpay sandbox pay</code>.</p>\n' : ''}<p>Vencimento <strong>${br(terms.due_date)}</strong> · Valor <strong>${money(amount)}</strong></p>
${todayLine}<div class="line-box">
<p class="line-label">Linha digitável</p>
<p class="line" id="digitable-line" data-digits="${slip.digitable_line}">${escapeHtml(slip.formatted_line)}</p>
<div class="buttons"><button type="button" id="copy-line">Copiar linha digitável</button><button type="button" id="print" class="secondary">Imprimir</button></div>
<p class="status" id="copy-status" role="status" aria-live="polite"></p>
</div>
</div>
${receipt}
${compensation}
</main>`;
  return { status: 200, html: page(`Boleto ${slip.formatted_line} · mpay`, body, nonce, true), headers: securityHeaders(nonce, []) };
}
