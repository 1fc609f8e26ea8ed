import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Painter } from '../../src/cli/output.js';
import { GO_BACK, pathText, type Prompter, type Question } from '../../src/cli/onboard/prompter.js';
import { MpayClient } from '../../src/sdk/client.js';
import { EmbeddedTransport } from '../../src/sdk/embeddedTransport.js';
import { realJpeg, realPdf, realPng } from './files.js';
import type { TestEnv } from './server.js';

/** No colours: the wizard's text as it reads. */
export const plain: Painter = { green: (s) => s, yellow: (s) => s, red: (s) => s, dim: (s) => s, bold: (s) => s };
export const tick = () => new Promise((r) => setTimeout(r, 20));

/** A directory of document files (real PNG, JPEG and PDF bytes, and some a check refuses). */
export function docsDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-onboard-'));
  writeFileSync(join(dir, 'front.png'), realPng());
  writeFileSync(join(dir, 'back.jpg'), realJpeg());
  writeFileSync(join(dir, 'doc.pdf'), realPdf());
  writeFileSync(join(dir, 'fake.pdf'), Buffer.from('MZ this is an executable'));
  writeFileSync(join(dir, 'png-named.pdf'), realPng());
  writeFileSync(join(dir, 'empty.png'), Buffer.alloc(0));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The SDK client of a test env's merchant, on its app in-process. */
export const envClient = (env: TestEnv) =>
  new MpayClient({ transport: new EmbeddedTransport(env.rt.app.fetch), publicKey: env.merchant.public_key, secretKey: env.merchant.secret_key });

/** What a scripted person types to go back (`<`). */
export const BACK = Symbol('the person types <');

export interface Asked {
  path: string;
  q: Question;
}

/**
 * A person at the terminal, scripted: answers by path, in order (file answers relative to
 * `dir`; BACK goes back). Like the real prompt, an answer its validator refuses is logged in
 * `log` and the next one is taken. Every question asked goes to `asked` (and `onAsk`, first).
 */
export function scripted(
  dir: string,
  script: Record<string, unknown>,
  o: { log?: string[]; asked?: Asked[]; onAsk?: (a: Asked) => Promise<void> } = {},
): Prompter {
  const queues = new Map(Object.entries(script).map(([k, v]) => [k, Array.isArray(v) ? [...v] : [v]]));
  return {
    interactive: true,
    async ask(q) {
      const key = pathText(q.path);
      const entry = { path: key, q };
      o.asked?.push(entry);
      await o.onAsk?.(entry);
      const queue = queues.get(key);
      for (;;) {
        if (!queue || queue.length === 0) {
          if (q.kind === 'more') return q.required ? 'true' : 'false';
          if (q.kind === 'select' && typeof q.default === 'string') return q.default;
          if (q.kind === 'confirm') return String(q.default === true);
          if (q.required && q.kind !== 'file') throw new Error(`unscripted required question ${key} (${q.message})`);
          if (q.kind === 'file') throw new Error(`unscripted document ${key}`);
          return undefined;
        }
        const raw = queue.shift();
        if (raw === BACK) return GO_BACK;
        if (raw === null) return q.kind === 'file' ? null : undefined;
        const v = q.kind === 'file' ? join(dir, String(raw)) : String(raw);
        const verdict = q.validate ? q.validate(v) : true;
        if (verdict === true) return v;
        o.log?.push(`${key}: ${verdict}`);
      }
    },
  };
}

/** The answers of a pf session (documents in docsDir()). */
export const pfScript = (taxId: string, over: Record<string, unknown> = {}) => ({
  entity_type: 'pf',
  'submerchant.trade_name': 'Ana Doces',
  'submerchant.legal_name': 'Ana Souza',
  'submerchant.tax_id': taxId,
  'submerchant.email': 'ana@example.com',
  'submerchant.birth_date': '1985-04-12',
  'address.zip_code': '01310-100',
  'address.street': 'Av. Paulista',
  'address.number': '1000',
  'address.neighborhood': 'Bela Vista',
  'address.city': 'São Paulo',
  'address.state': 'sp',
  'documents.front_id': 'front.png',
  'documents.back_id': 'back.jpg',
  'documents.selfie_with_id': 'front.png',
  'documents.proof_of_residence': 'doc.pdf',
  ...over,
});

/** The four documents of partner i. */
export const partnerDocs = (i: number) => ({
  [`partners[${i}].documents.partner_front_id`]: 'front.png',
  [`partners[${i}].documents.partner_back_id`]: 'back.jpg',
  [`partners[${i}].documents.partner_selfie_with_id`]: 'front.png',
  [`partners[${i}].documents.partner_proof_of_residence`]: 'doc.pdf',
});

/** What a pj needs beyond a pf's answers: one partner (pf, CPF `partnerCpf`), the company documents and the partner's. */
export const pjExtras = (partnerCpf: string) => ({
  'partners[0].name': 'Ana Souza',
  'partners[0].document': partnerCpf,
  'documents.social_contract': 'doc.pdf',
  'documents.cnpj_card': 'doc.pdf',
  'documents.proof_of_residence_company': 'doc.pdf',
  ...partnerDocs(0),
});
