import { cnpjCheckDigits } from '../../src/domain/taxid.js';
import type { TestEnv } from './server.js';

function mod11(sum: number): number {
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** A valid CPF built from 9 base digits (computed here, independently of the server's check). */
export function cpf(base9: string): string {
  const d = [...base9].map(Number);
  const d1 = mod11(d.reduce((a, x, i) => a + x * (10 - i), 0));
  const d2 = mod11([...d, d1].reduce((a, x, i) => a + x * (11 - i), 0));
  return `${base9}${d1}${d2}`;
}

let seq = 1000;
/** A fresh valid numeric CNPJ (headquarters 0001) each call. */
export function nextCnpj(): string {
  const base = `${String(seq++).padStart(8, '0')}0001`;
  return base + cnpjCheckDigits(base);
}
/** A fresh valid CPF each call. */
export function nextCpf(): string {
  return cpf(String(100000000 + seq++ * 7919).slice(0, 9));
}

export const pjBody = (over: Record<string, unknown> = {}) => ({
  trade_name: 'Padaria Boa',
  legal_name: 'Padaria Boa LTDA',
  tax_id: nextCnpj(),
  email: 'financeiro@padariaboa.com.br',
  ...over,
});
export const pfBody = (over: Record<string, unknown> = {}) => ({
  entity_type: 'pf',
  trade_name: 'Ana Doces',
  legal_name: 'Ana Souza',
  tax_id: nextCpf(),
  email: 'ana@example.com',
  birth_date: '1985-04-12',
  mother_name: 'Maria Souza',
  ...over,
});
export const addressBody = (over: Record<string, unknown> = {}) => ({
  street: 'Av. Paulista',
  number: '1000',
  neighborhood: 'Bela Vista',
  city: 'São Paulo',
  state: 'SP',
  zip_code: '01310100',
  ...over,
});
export const partnerBody = (over: Record<string, unknown> = {}) => ({ name: 'Ana Souza', document: nextCpf(), ...over });
export const docBody = (type: string, over: Record<string, unknown> = {}) => ({
  type,
  file_url: `https://files.example.com/${type}.pdf`,
  file_name: `${type}.pdf`,
  file_size: 48213,
  mime_type: 'application/pdf',
  ...over,
});

/** POSTs and expects a success; returns data. */
export async function ok(env: TestEnv, method: string, path: string, body?: unknown, auth?: string): Promise<any> {
  const r = await env.call(method, path, body, auth ? { authorization: auth } : {});
  if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

export async function events(env: TestEnv, type?: string): Promise<{ type: string; resource_id: string; data: any }[]> {
  const rows = await env.rt.deps.db.all<{ type: string; resource_id: string; data: string }>(
    `SELECT type, resource_id, data FROM events WHERE merchant_id = ?${type ? ' AND type = ?' : ''} ORDER BY created_at, id`,
    type ? [env.merchant.merchant_id, type] : [env.merchant.merchant_id],
  );
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
}
