/**
 * The onboarding of a submerchant, step by step: entity type → submerchant → address →
 * partners (pj) → one upload per required document, with the requirements endpoint's checklist
 * after every step. Resuming (--id) starts from what that endpoint says is missing. Answers
 * come from a Prompter (a person or a replayed file) and are recorded in `recorded`.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { BodyOf } from '../../contract/endpoint.js';
import type { MpayClient, Operation } from '../../sdk/client.js';
import type { LegalRepresentative, RequirementsResult, Submerchant } from '../../contract/resources/submerchants.js';
import { DOCUMENT_LABELS, DOCUMENT_TYPES, type DocumentType, type EntityType } from '../../domain/onboarding.js';
import { describeError } from '../errors.js';
import type { IO } from '../io.js';
import type { Painter } from '../output.js';
import type { Answers } from './answers.js';
import {
  addressFields,
  bodyOf,
  entityTypeField,
  fieldsNamedBy,
  partnerEntityField,
  partnerFields,
  submerchantFields,
  withLabels,
  type BodyKey,
  type Field,
  type OnboardingOperation,
} from './fields.js';
import { checkLocalFile, formatBytes, progressBar } from './localFile.js';
import type { AnswerPath, Prompter } from './prompter.js';
import { fileForm, fileProgress } from '../multipart.js';
import { UUID_SOURCE } from '../../domain/ids.js';

export interface OnboardingOptions {
  client: MpayClient;
  io: IO;
  prompter: Prompter;
  /** the session's answers, for --save-answers */
  recorded: Answers;
  paint: Painter;
  /** resume this submerchant */
  id?: string;
  quiet?: boolean;
  /** the submerchant being onboarded, set as soon as it is known (for a resume hint on failure) */
  state?: { id?: string };
}

type Missing = RequirementsResult['missing'][number];

/** Refusals a person can fix by changing an answer (not auth, not-found, server or network trouble). */
function fixable(e: unknown): e is { status: number; details?: { field: string }[] } {
  const s = (e as { status?: unknown })?.status;
  return typeof s === 'number' && [400, 409, 413, 415, 422].includes(s);
}

export async function runOnboarding(o: OnboardingOptions): Promise<Submerchant> {
  const { client, io, prompter, recorded, paint } = o;
  const say = (s: string) => {
    if (!o.quiet) io.err(s + '\n');
  };
  const state = o.state ?? {};

  async function askField(f: Field, path: AnswerPath, prefill?: string): Promise<string | undefined> {
    const a = await prompter.ask({ path, kind: f.kind, message: f.message, required: f.required, choices: f.choices, default: f.default, prefill, validate: f.validate });
    const v = a ?? undefined;
    recorded.set(path, v === undefined ? undefined : f.kind === 'confirm' ? v === 'true' : v);
    return v;
  }

  /**
   * Asks a step's fields and sends them; a refusal naming a field asks that field again
   * (interactive), unless `recover` turns the refusal into a result.
   */
  async function step<I extends OnboardingOperation, T, R = never>(
    fields: readonly Field<BodyKey<I>>[],
    base: AnswerPath,
    send: (body: BodyOf<Operation<I>>) => Promise<T>,
    recover?: (e: { status: number; message?: string; details?: { field: string }[] }) => Promise<R | undefined>,
  ): Promise<T | R> {
    const values: Record<string, string | undefined> = {};
    for (const f of fields) values[f.key] = await askField(f, [...base, f.key]);
    for (;;) {
      try {
        return await send(bodyOf<I>(fields, values));
      } catch (e) {
        if (!prompter.interactive || !fixable(e)) throw e;
        // the service names body fields; the person saw the questions' labels
        io.err(paint.red(withLabels(describeError(e), fields)) + '\n');
        const recovered = recover ? await recover(e) : undefined;
        if (recovered !== undefined) return recovered;
        let again = fieldsNamedBy(fields, (e.details ?? []).map((d) => d.field));
        if (again.length) {
          io.err(`Correct ${again.map((f) => f.label).join(', ')} and it is sent again.\n`);
        } else {
          const edit = await prompter.ask({ path: [...base, '(retry)'], kind: 'confirm', message: 'Change the answers of this step and try again?', required: false, default: true });
          if (edit !== 'true') throw e;
          again = [...fields];
        }
        for (const f of again) values[f.key] = await askField(f, [...base, f.key], values[f.key]);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // the submerchant
  let sub!: Submerchant;
  let entity!: EntityType;
  let resumeId = o.id;
  if (!resumeId) {
    entity = (await askField(entityTypeField(), ['entity_type'])) as EntityType;
    prompter.preflight?.(entity, false);
    say(paint.bold(entity === 'pf' ? 'The individual (pessoa física)' : 'The company (pessoa jurídica)'));
    const made = await step(
      submerchantFields(entity),
      ['submerchant'],
      (body) => client.call('submerchants.create', { body: { ...body, entity_type: entity } }),
      // the tax id is already a submerchant of this merchant: offer to continue that one
      async (e) => {
        const existing = e.status === 409 && (e.details ?? []).some((d) => d.field === 'tax_id') ? new RegExp(`\\b(${UUID_SOURCE})\\b`, 'i').exec(e.message ?? '')?.[1] : undefined;
        if (!existing) return undefined;
        const go = await prompter.ask({
          path: ['submerchant', '(continue existing)'],
          kind: 'confirm',
          message: `Continue the onboarding of the existing submerchant ${existing} (same as --id ${existing})?`,
          required: false,
          default: true,
        });
        return go === 'true' ? { resume: existing } : undefined;
      },
    );
    if ('resume' in made) resumeId = made.resume;
    else {
      sub = made.data;
      state.id = sub.id;
      say(`${paint.green('✓')} submerchant created: ${sub.id} (continue later with \`mpay submerchants onboard --id ${sub.id}\`)`);
    }
  }
  if (resumeId) {
    sub = (await client.call('submerchants.get', { params: { id: resumeId } })).data;
    entity = sub.entity_type;
    state.id = sub.id;
    prompter.preflight?.(entity, true);
    recorded.set(['entity_type'], entity);
    say(`Resuming ${paint.bold(sub.trade_name)} (${entity}, ${sub.tax_id}) — ${sub.id}, status ${sub.status}`);
  }
  const id = sub.id;

  // ---------------------------------------------------------------------------------------
  // the checklist
  const names = new Map<string, string>();
  let partners: LegalRepresentative[] = [];
  const refreshPartners = async (): Promise<LegalRepresentative[]> => {
    if (entity !== 'pj') return [];
    const r = await client.call('submerchants.partners.list', { params: { id }, query: { per_page: 100 } });
    for (const p of r.data) names.set(p.id, p.name);
    return r.data;
  };
  const label = (kind: string, type?: DocumentType, partner?: string) => {
    if (kind === 'address') return 'address';
    if (kind === 'legal_representative') return 'at least one partner (legal representative)';
    const who = partner ? ` of ${names.get(partner) ?? partner}` : '';
    return `${type} — ${type ? DOCUMENT_LABELS[type] : ''}${who}`;
  };
  const checklist = async (): Promise<RequirementsResult> => {
    const r = (await client.call('submerchants.requirements', { params: { id } })).data;
    if (!o.quiet) {
      // a stable order: address, partners, the submerchant's documents, then each partner's
      const order = (kind: keyof typeof rank, type?: DocumentType, partner?: string) =>
        rank[kind] * 10_000 + (partner ? (partners.findIndex((p) => p.id === partner) + 1) * 100 : 0) + (type ? DOCUMENT_TYPES.indexOf(type) : 0);
      const rank = { address: 0, legal_representative: 1, document: 2 } as const;
      const lines = [
        ...r.satisfied.map((s) => ({ at: order(s.kind, s.type, s.legal_representative_id), text: `  ${paint.green('✓')} ${label(s.kind, s.type, s.legal_representative_id)}` })),
        ...r.missing.map((m) => ({
          at: order(m.kind, m.type, m.legal_representative_id),
          text: `  ${paint.red('✗')} ${label(m.kind, m.type, m.legal_representative_id)}${/was rejected/.test(m.message) ? ' (rejected: send a new one)' : /has expired/.test(m.message) ? ' (expired: send a current one)' : ''}`,
        })),
      ].sort((a, b) => a.at - b.at);
      io.err(`Checklist (${r.complete ? paint.green('complete') : `${r.missing.length} missing`}, status ${r.status}):\n${lines.map((l) => l.text).join('\n')}\n`);
    }
    return r;
  };

  partners = await refreshPartners();
  let req = await checklist();

  // ---------------------------------------------------------------------------------------
  // the address
  if (req.missing.some((m) => m.kind === 'address')) {
    say(paint.bold('Address'));
    await step(addressFields(), ['address'], (body) => client.call('submerchants.addresses.create', { params: { id }, body }));
    say(`${paint.green('✓')} address added`);
    req = await checklist();
  }

  // ---------------------------------------------------------------------------------------
  // partners (pj): at least one; then as many as the user adds
  /** answers-file index of each partner of this session (its documents are asked under it) */
  const slots = new Map<string, number>();
  if (entity === 'pj') {
    if (partners.length) say(`Partners already registered: ${partners.map((p) => `${p.name} (${p.document})`).join(', ')}`);
    for (let i = 0; ; i++) {
      const first = partners.length === 0 && i === 0;
      if (first) say(paint.bold('Partners: a company needs at least one partner (legal representative)'));
      const more = await prompter.ask({
        path: ['partners', i],
        kind: 'more',
        message: i === 0 && partners.length === 0 ? 'Add a partner?' : 'Add another partner?',
        required: first,
        default: false,
      });
      if (more !== 'true') break;
      const pe = ((await askField(partnerEntityField(), ['partners', i, 'entity_type'])) ?? 'pf') as EntityType;
      const rec = (
        await step(partnerFields(pe), ['partners', i], (body) =>
          client.call('submerchants.partners.create', { params: { id }, body: { ...body, entity_type: pe } }),
        )
      ).data;
      slots.set(rec.id, i);
      names.set(rec.id, rec.name);
      say(`${paint.green('✓')} partner ${rec.name} registered (${rec.id})`);
      partners = await refreshPartners();
      req = await checklist();
    }
  }

  /** Where a partner's documents are recorded: its slot, or a new entry naming it (resumed sessions). */
  const slotOf = (partnerId: string): number => {
    const known = slots.get(partnerId);
    if (known !== undefined) return known;
    const p = partners.find((x) => x.id === partnerId);
    const i = recorded.partnerCount();
    if (p && prompter.findPartner) {
      // a replay matches an already registered partner by its document
      const replayed = prompter.findPartner(p.document);
      if (replayed !== undefined) {
        slots.set(partnerId, replayed);
        return replayed;
      }
    }
    if (p) {
      recorded.set(['partners', i, 'entity_type'], p.entity_type);
      recorded.set(['partners', i, 'name'], p.name);
      recorded.set(['partners', i, 'document'], p.document);
      if (p.legal_name) recorded.set(['partners', i, 'legal_name'], p.legal_name);
    }
    slots.set(partnerId, i);
    return i;
  };

  // ---------------------------------------------------------------------------------------
  // documents: each missing one, from a local file
  const skipped = new Set<string>();
  const keyOf = (m: Missing) => `${m.type}:${m.legal_representative_id ?? ''}`;
  let announced = false;
  for (;;) {
    const next = req.missing.find((m) => m.kind === 'document' && !skipped.has(keyOf(m)));
    if (!next?.type) break;
    if (!announced) say(paint.bold('Documents (PDF, PNG or JPEG, up to 10 MiB each)'));
    announced = true;
    const partnerId = next.legal_representative_id;
    const path: AnswerPath = partnerId ? ['partners', slotOf(partnerId), 'documents', next.type] : ['documents', next.type];
    const sent = await sendDocument(next.type, partnerId, path);
    if (!sent) {
      skipped.add(keyOf(next));
      continue;
    }
    req = await checklist();
  }

  async function sendDocument(type: DocumentType, partnerId: string | undefined, path: AnswerPath): Promise<boolean> {
    const who = partnerId ? ` of ${names.get(partnerId) ?? partnerId}` : '';
    for (;;) {
      const file = await prompter.ask({ path, kind: 'file', message: `${type} — ${DOCUMENT_LABELS[type]}${who}: file`, required: true, validate: checkLocalFile });
      recorded.set(path, file ?? null);
      if (!file) {
        say(`  skipped ${type}${who}; add it later with \`mpay submerchants onboard --id ${id}\``);
        return false;
      }
      const bar = progressBar(io, basename(file), paint, o.quiet);
      try {
        const bytes = readFileSync(file);
        const form = await fileForm(bytes, basename(file));
        const up = (
          await client.call('submerchants.upload', {
            params: { id },
            rawBody: { bytes: form.bytes, contentType: form.contentType, onProgress: fileProgress(form, (s, t) => bar.update(s, t)) },
          })
        ).data;
        bar.done(`uploaded ${up.fileName} (${formatBytes(up.fileSize)}, ${up.mimeType})`);
        const doc = (
          await client.call('submerchants.documents.create', {
            params: { id },
            body: {
              type,
              file_url: up.url,
              file_name: up.fileName,
              file_size: up.fileSize,
              mime_type: up.mimeType,
              ...(partnerId ? { legal_representative_id: partnerId } : {}),
            },
          })
        ).data;
        say(`  ${paint.green('✓')} ${type}${who} registered (document ${doc.id})`);
        return true;
      } catch (e) {
        bar.fail();
        if (!prompter.interactive || !fixable(e)) throw e;
        io.err(paint.red(describeError(e)) + '\nChoose another file (or press Enter to skip it).\n');
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // the result
  const final = (await client.call('submerchants.get', { params: { id } })).data;
  if (req.complete) say(`${paint.green('✓')} Onboarding complete: ${id} is ${final.status}${final.status === 'under_review' ? ' (waiting for review)' : ''}`);
  else say(`${req.missing.length} item(s) still missing; ${id} stays ${final.status}. Continue with \`mpay submerchants onboard --id ${id}\``);
  return final;
}
