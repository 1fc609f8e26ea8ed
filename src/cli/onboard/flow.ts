/**
 * The onboarding of a submerchant in two phases.
 *
 * 1. **Answers.** The questions are data: `plan()` lists them from the answers so far (entity
 *    type → the submerchant's fields → address → partners of a pj → one local file per
 *    required document); a resumed submerchant (--id) gets only what its requirements say is
 *    missing. A person may go back one question at a time (`<`), and at the end reviews every
 *    answer and may change any before anything is created. A tax id already registered offers
 *    to continue that submerchant; a tax id of the other entity type offers to switch.
 * 2. **Sending.** The submerchant, its address, each partner, each document, with the
 *    requirements endpoint's checklist after every step. A refusal naming a field asks that
 *    field again (a person answers) and sends again.
 *
 * Answers come from a Prompter (a person or a replayed file) and are recorded in `recorded`.
 */
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import type { BodyOf } from '../../contract/endpoint.js';
import type { MpayClient, Operation } from '../../sdk/client.js';
import type { LegalRepresentative, RequirementsResult, Submerchant } from '../../contract/resources/submerchants.js';
import { DOCUMENT_TYPES, PARTNER_DOCUMENT_TYPES, REQUIRED_DOCUMENTS, type DocumentType, type EntityType } from '../../domain/onboarding.js';
import { taxIdKind } from '../../domain/taxid.js';
import { normalizeTaxId } from '../../domain/brazil.js';
import { describeError } from '../errors.js';
import type { IO } from '../io.js';
import type { Painter } from '../output.js';
import { Cancelled } from '../signals.js';
import { Answers } from './answers.js';
import {
  addressFields,
  bodyOf,
  entityTypeField,
  fieldsNamedBy,
  labelOf,
  partnerEntityField,
  partnerFields,
  submerchantFields,
  withLabels,
  type BodyKey,
  type Field,
  type FieldContext,
  type OnboardingOperation,
} from './fields.js';
import { checkLocalFile, formatBytes, progressBar } from './localFile.js';
import { en, translate, type Catalogue } from './locale.js';
import { GO_BACK, pathText, type AnswerPath, type AnswerValue, type Prompter, type Question } from './prompter.js';
import { fileForm, fileProgress } from '../multipart.js';

export interface OnboardingOptions {
  client: MpayClient;
  io: IO;
  prompter: Prompter;
  /** the run's answers, for --save-answers */
  recorded: Answers;
  paint: Painter;
  /** resume this submerchant */
  id?: string;
  quiet?: boolean;
  /** the submerchant being onboarded, set as soon as it is known (for a resume hint on failure) */
  state?: { id?: string };
  /** the wizard's language (default English) */
  t?: Catalogue;
  /** the merchant's clock (birth dates are judged on it); default the machine's */
  now?: Date;
}

type Section = 'entity' | 'submerchant' | 'address' | 'partners' | 'documents';

/** One question of the run. */
interface Step {
  path: AnswerPath;
  section: Section;
  kind: Question['kind'];
  message: string;
  required: boolean;
  /** a field of a request body (text, select, confirm) */
  field?: Field;
  /** a document's local file */
  doc?: { type: DocumentType; slot?: number; partnerId?: string };
  /** answered without asking (a pj's first partner is not optional) */
  auto?: boolean;
}

/** Refusals a person can fix by changing an answer (not auth, not-found, server or network trouble). */
function fixable(e: unknown): e is { status: number; message?: string; details?: { field: string }[] } {
  const s = (e as { status?: unknown })?.status;
  return typeof s === 'number' && [400, 409, 413, 415, 422].includes(s);
}

const key = (path: AnswerPath) => pathText(path);

export async function runOnboarding(o: OnboardingOptions): Promise<Submerchant> {
  const { client, io, prompter, recorded, paint } = o;
  const t = o.t ?? en;
  const interactive = prompter.interactive;
  const fc: FieldContext = { t, now: o.now ?? new Date(), interactive };
  const say = (s: string) => {
    if (!o.quiet) io.err(s + '\n');
  };
  const state = o.state ?? {};

  // ---------------------------------------------------------------------------------------
  // the run: a new submerchant, or one that exists (--id, or a tax id already registered)
  let existing: Submerchant | undefined;
  let registered: LegalRepresentative[] = [];
  /** answers-file slot of each registered partner (their missing documents are asked under it) */
  let registeredSlots = new Map<string, number>();
  let missingAtStart: RequirementsResult | undefined;

  const names = new Map<string, string>();
  const listPartners = async (id: string, entity: EntityType): Promise<LegalRepresentative[]> => {
    if (entity !== 'pj') return [];
    const r = await client.call('submerchants.partners.list', { params: { id }, query: { per_page: 100 } });
    for (const p of r.data) names.set(p.id, p.name);
    return r.data;
  };

  async function resume(id: string): Promise<void> {
    existing = (await client.call('submerchants.get', { params: { id } })).data;
    state.id = existing.id;
    const entity = existing.entity_type;
    prompter.preflight?.(entity, true, fc);
    recorded.set(['entity_type'], entity);
    say(t.flow.resuming(existing.trade_name, entity, existing.tax_id, existing.id, existing.status));
    registered = await listPartners(existing.id, entity);
    if (registered.length) say(t.flow.partnersRegistered(registered.map((p) => `${p.name} (${p.document})`).join(', ')));
    // registered partners keep fixed slots: the replayed file's own (found by document), else the first ones
    registeredSlots = new Map();
    const taken = new Set<number>();
    for (const p of registered) {
      const slot = prompter.findPartner?.(p.document);
      if (slot !== undefined) {
        registeredSlots.set(p.id, slot);
        taken.add(slot);
      }
    }
    // the others after the replayed file's partners (its new ones), or first of all for a person
    let next = prompter.partnerCount?.() ?? 0;
    for (const p of registered) {
      if (registeredSlots.has(p.id)) continue;
      while (taken.has(next)) next++;
      registeredSlots.set(p.id, next);
      taken.add(next);
    }
    // recorded so a replay of the saved answers finds each partner by its document
    for (const p of registered) {
      const slot = registeredSlots.get(p.id)!;
      recorded.set(['partners', slot, 'entity_type'], p.entity_type);
      recorded.set(['partners', slot, 'name'], p.name);
      recorded.set(['partners', slot, 'document'], p.document);
      if (p.legal_name) recorded.set(['partners', slot, 'legal_name'], p.legal_name);
    }
    missingAtStart = await checklist(existing.id, entity);
  }

  // ---------------------------------------------------------------------------------------
  // the questions, as data
  /** every answer of the run (fields, files and the wizard's own questions), by path */
  const given = new Map<string, string | null | undefined>();
  const answerOf = (path: AnswerPath) => given.get(key(path));

  const entityOf = (): EntityType | undefined => existing?.entity_type ?? (answerOf(['entity_type']) as EntityType | undefined);
  const partnerEntity = (slot: number): EntityType => (answerOf(['partners', slot, 'entity_type']) as EntityType | undefined) ?? 'pf';
  const fieldStep = (f: Field, path: AnswerPath, section: Section): Step => ({ path, section, kind: f.kind, message: f.message, required: f.required, field: f });

  /** The new partners of this run: their slots, in order (the answers so far decide). */
  function newPartnerSlots(): { steps: Step[]; slots: number[] } {
    const steps: Step[] = [];
    const slots: number[] = [];
    const used = new Set(registeredSlots.values());
    for (let i = 0; ; i++) {
      if (used.has(i)) continue;
      const first = registered.length === 0 && slots.length === 0 && !steps.length;
      steps.push({
        path: ['partners', i],
        section: 'partners',
        kind: 'more',
        message: registered.length === 0 && slots.length === 0 ? t.q.addPartner : t.q.addAnotherPartner,
        required: first,
        auto: first,
      });
      if ((first ? 'true' : answerOf(['partners', i])) !== 'true') break;
      slots.push(i);
      steps.push(fieldStep(partnerEntityField(fc), ['partners', i, 'entity_type'], 'partners'));
      for (const f of partnerFields(partnerEntity(i), fc)) steps.push(fieldStep(f, ['partners', i, f.key], 'partners'));
    }
    return { steps, slots };
  }

  function plan(): Step[] {
    const steps: Step[] = [];
    if (!existing) {
      steps.push(fieldStep(entityTypeField(fc), ['entity_type'], 'entity'));
      const entity = entityOf();
      if (!entity) return steps;
      for (const f of submerchantFields(entity, fc)) steps.push(fieldStep(f, ['submerchant', f.key], 'submerchant'));
    }
    const entity = entityOf()!;
    if (!existing || missingAtStart?.missing.some((m) => m.kind === 'address')) {
      for (const f of addressFields(fc)) steps.push(fieldStep(f, ['address', f.key], 'address'));
    }
    const partners = entity === 'pj' ? newPartnerSlots() : { steps: [], slots: [] };
    steps.push(...partners.steps);
    const docStep = (type: DocumentType, slot?: number, partnerId?: string): Step => {
      const name = partnerId ? names.get(partnerId) : slot !== undefined ? (answerOf(['partners', slot, 'name']) ?? undefined) : undefined;
      const who = slot !== undefined ? t.q.documentOf(name ?? `#${slot + 1}`) : '';
      return {
        path: slot === undefined ? ['documents', type] : ['partners', slot, 'documents', type],
        section: 'documents',
        kind: 'file',
        message: t.q.document(type, t.documents[type], who),
        required: true,
        doc: { type, slot, partnerId },
      };
    };
    if (existing) {
      for (const m of missingAtStart?.missing ?? []) {
        if (m.kind !== 'document' || !m.type) continue;
        steps.push(m.legal_representative_id ? docStep(m.type, registeredSlots.get(m.legal_representative_id), m.legal_representative_id) : docStep(m.type));
      }
    } else {
      for (const type of REQUIRED_DOCUMENTS[entity]) steps.push(docStep(type));
    }
    for (const slot of partners.slots) for (const type of PARTNER_DOCUMENT_TYPES) steps.push(docStep(type, slot));
    return steps;
  }

  // ---------------------------------------------------------------------------------------
  // asking
  const asked = new Set<string>();

  function remember(step: Step, v: string | null | undefined): void {
    given.set(key(step.path), v);
    if (step.field) recorded.set(step.path, v == null ? undefined : step.field.kind === 'confirm' ? v === 'true' : v);
    else if (step.doc) recorded.set(step.path, v ?? null);
  }

  function question(step: Step, back: boolean, prefill?: string | null): Question {
    const f = step.field;
    const q: Question = {
      path: step.path,
      kind: step.kind,
      message: step.message,
      required: step.required,
      choices: f?.choices,
      default: f?.default,
      validate: f?.validate ?? (step.doc ? (p: string) => translateProblem(checkLocalFile(p)) : undefined),
      back,
    };
    if (prefill != null) {
      if (step.kind === 'select') q.default = prefill;
      else if (step.kind === 'confirm' || step.kind === 'more') q.default = prefill === 'true';
      else q.prefill = prefill;
    }
    return q;
  }
  const translateProblem = (v: true | string): true | string => (v === true ? v : translate(t, v));

  /** A yes/no of the wizard's own (not an answer of the file): true for yes. */
  async function yesNo(path: AnswerPath, message: string, dflt: boolean): Promise<boolean> {
    const a = await prompter.ask({ path, kind: 'confirm', message, required: false, default: dflt });
    return a === 'true';
  }

  const headers: Record<Section, () => string | undefined> = {
    entity: () => undefined,
    submerchant: () => (entityOf() === 'pf' ? t.flow.individual : t.flow.company),
    address: () => t.flow.address,
    partners: () => (registered.length === 0 ? t.flow.partnersNeeded : undefined),
    documents: () => t.flow.documents,
  };

  /** After a tax id: the other entity type's id offers to switch; an id already registered offers to continue it. */
  async function afterTaxId(step: Step, value: string): Promise<'ok' | 'again' | { resume: string }> {
    const other = step.field?.switchTo?.(value);
    const owner: AnswerPath = step.path[0] === 'partners' ? ['partners', step.path[1]!, 'entity_type'] : ['entity_type'];
    if (other) {
      const kind = taxIdKind(normalizeTaxId(value)) === 'cnpj' ? 'CNPJ' : 'CPF';
      if (!(await yesNo([...step.path.slice(0, -1), '(switch entity)'], t.flow.switchEntity(kind, other), true))) return 'again';
      const entityStep = plan().find((s) => key(s.path) === key(owner));
      if (entityStep) remember(entityStep, other);
    }
    if (interactive && !existing && key(step.path) === 'submerchant.tax_id') {
      const taxId = normalizeTaxId(value);
      const found = (await client.call('submerchants.list', { query: { tax_id: taxId, per_page: 1 } })).data[0];
      if (found) {
        const kind = taxId.length === 11 ? 'CPF' : 'CNPJ';
        if (await yesNo(['submerchant', '(continue existing)'], t.flow.existing(kind, value, found.id, found.trade_name, found.status), true)) return { resume: found.id };
        return 'again';
      }
    }
    return 'ok';
  }

  /** The review: every answer, then create, change one, go back or cancel. Resolves with the path to ask again, or null to go on. */
  async function review(steps: Step[]): Promise<AnswerPath | 'back' | null> {
    const shown = steps.filter((s) => !s.auto && (s.field || s.doc));
    const value = (s: Step): string => {
      const v = answerOf(s.path);
      if (v == null || v === '') return s.doc ? t.flow.skippedValue : '—';
      if (s.doc) {
        const rel = relative(io.cwd, v);
        return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : v;
      }
      if (s.field?.choices) return s.field.choices.find((c) => c.value === v)?.name ?? v;
      if (s.field?.kind === 'confirm') return v === 'true' ? t.prompt.yes[1]! : t.prompt.no[1]!;
      return s.field?.display?.(v) ?? v;
    };
    const title = (s: Step): string => {
      if (s.section === 'address') return t.flow.reviewSection.address;
      if (s.section === 'documents') return t.flow.reviewSection.documents;
      if (s.path[0] === 'partners') return t.flow.reviewSection.partner(Number(s.path[1]) + 1);
      return t.flow.reviewSection.submerchant;
    };
    const labelOfStep = (s: Step) => {
      if (!s.doc) return s.field?.label ?? labelOf(s.message);
      const { type, slot, partnerId } = s.doc;
      const name = partnerId ? names.get(partnerId) : slot !== undefined ? (answerOf(['partners', slot, 'name']) ?? undefined) : undefined;
      return `${t.documents[type]}${slot !== undefined ? t.q.documentOf(name ?? `#${slot + 1}`) : ''}`;
    };
    const width = Math.min(44, Math.max(...shown.map((s) => labelOfStep(s).length)));
    const lines: string[] = [paint.bold(existing ? t.flow.reviewResume : t.flow.review)];
    let last = '';
    for (const s of shown) {
      const heading = title(s);
      if (heading !== last) lines.push(`  ${paint.bold(heading)}`);
      last = heading;
      lines.push(`    ${labelOfStep(s).padEnd(width)}  ${value(s)}`);
    }
    io.err(lines.join('\n') + '\n');
    const choice = await prompter.ask({
      path: ['(review)'],
      kind: 'select',
      message: t.flow.reviewWhat,
      required: true,
      choices: [
        { value: 'create', name: existing ? t.flow.reviewSend : t.flow.reviewCreate },
        { value: 'edit', name: t.flow.reviewEdit },
        { value: 'cancel', name: t.flow.reviewCancel },
      ],
      default: 'create',
      back: true,
    });
    if (choice === GO_BACK) return 'back';
    if (choice === 'cancel') throw new Cancelled(en.flow.cancelled, t.flow.notDone(t.flow.cancelled));
    if (choice !== 'edit') return null;
    const which = await prompter.ask({
      path: ['(review)', 'edit'],
      kind: 'select',
      message: t.flow.reviewWhich,
      required: true,
      choices: shown.map((s) => ({ value: key(s.path), name: `${labelOfStep(s)}: ${value(s)}` })),
      back: true,
    });
    if (which === GO_BACK || typeof which !== 'string') return review(steps);
    return shown.find((s) => key(s.path) === which)!.path;
  }

  /** Asks every question of the plan, with going back and the review; resolves once the answers are final. */
  async function answerAll(): Promise<Step[]> {
    let target: string | undefined;
    let shownSection: Section | undefined;
    if (interactive && plan().some((s) => !s.auto)) say(t.flow.intro);
    for (;;) {
      const steps = plan();
      const at = target !== undefined ? steps.findIndex((s) => key(s.path) === target) : steps.findIndex((s) => !asked.has(key(s.path)));
      target = undefined;
      if (at < 0) {
        // nothing to review when nothing was asked (a resumed submerchant that lacks nothing)
        if (!interactive || !steps.some((s) => !s.auto)) return steps;
        const next = await review(steps);
        if (next === null) return steps;
        if (next === 'back') {
          const lastAsked = [...steps].reverse().find((s) => !s.auto);
          if (lastAsked) target = key(lastAsked.path);
        } else target = key(next);
        continue;
      }
      const step = steps[at]!;
      const k = key(step.path);
      if (step.auto) {
        given.set(k, 'true');
        asked.add(k);
        continue;
      }
      if (step.section !== shownSection) {
        const h = headers[step.section]();
        if (h) say(paint.bold(h));
        shownSection = step.section;
      }
      let prev = at - 1;
      while (prev >= 0 && steps[prev]!.auto) prev--;
      const a: AnswerValue = await prompter.ask(question(step, interactive && prev >= 0, answerOf(step.path)));
      if (a === GO_BACK) {
        if (prev >= 0) target = key(steps[prev]!.path);
        else io.err(t.prompt.firstQuestion + '\n');
        continue;
      }
      const v = a ?? (step.doc ? null : undefined);
      remember(step, v);
      asked.add(k);
      if (k === 'entity_type' && v) prompter.preflight?.(v as EntityType, false, fc);
      if (step.field?.body === 'tax_id' || step.field?.body === 'document') {
        const next = typeof v === 'string' ? await afterTaxId(step, v) : 'ok';
        if (next === 'again') asked.delete(k);
        else if (next !== 'ok') {
          await resume(next.resume);
          shownSection = undefined;
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // the checklist
  const label = (kind: string, type?: DocumentType, partner?: string) => {
    if (kind === 'address') return t.flow.checkAddress;
    if (kind === 'legal_representative') return t.flow.checkPartner;
    const who = partner ? t.q.documentOf(names.get(partner) ?? partner) : '';
    return `${type} — ${type ? t.documents[type] : ''}${who}`;
  };
  let partnerOrder: LegalRepresentative[] = [];
  async function checklist(id: string, entity: EntityType): Promise<RequirementsResult> {
    partnerOrder = await listPartners(id, entity);
    const r = (await client.call('submerchants.requirements', { params: { id } })).data;
    if (!o.quiet) {
      // a stable order: address, partners, the submerchant's documents, then each partner's
      const rank = { address: 0, legal_representative: 1, document: 2 } as const;
      const order = (kind: keyof typeof rank, type?: DocumentType, partner?: string) =>
        rank[kind] * 10_000 + (partner ? (partnerOrder.findIndex((p) => p.id === partner) + 1) * 100 : 0) + (type ? DOCUMENT_TYPES.indexOf(type) : 0);
      const lines = [
        ...r.satisfied.map((s) => ({ at: order(s.kind, s.type, s.legal_representative_id), text: `  ${paint.green('✓')} ${label(s.kind, s.type, s.legal_representative_id)}` })),
        ...r.missing.map((m) => ({
          at: order(m.kind, m.type, m.legal_representative_id),
          text: `  ${paint.red('✗')} ${label(m.kind, m.type, m.legal_representative_id)}${/was rejected/.test(m.message) ? t.flow.rejected : /has expired/.test(m.message) ? t.flow.expired : ''}`,
        })),
      ].sort((a, b) => a.at - b.at);
      io.err(`${t.flow.checklist(r.missing.length, r.complete ? paint.green(t.flow.checklistComplete) : null, r.status)}\n${lines.map((l) => l.text).join('\n')}\n`);
    }
    return r;
  }

  // ---------------------------------------------------------------------------------------
  // sending
  /**
   * Sends a step's answers; a refusal naming fields asks them again (a person answers) and
   * sends again; one that names none offers to change every field of the step.
   */
  async function send<I extends OnboardingOperation, T>(
    fields: readonly Field<BodyKey<I>>[],
    base: AnswerPath,
    call: (body: BodyOf<Operation<I>>) => Promise<T>,
  ): Promise<T> {
    const values = (): Record<string, string | undefined> => Object.fromEntries(fields.map((f) => [f.key, answerOf([...base, f.key]) ?? undefined]));
    for (;;) {
      try {
        return await call(bodyOf<I>(fields, values()));
      } catch (e) {
        if (!interactive || !fixable(e)) throw e;
        // the service names body fields; the person saw the questions' labels
        io.err(paint.red(withLabels(describeError(e), fields)) + '\n');
        let again = fieldsNamedBy(fields, (e.details ?? []).map((d) => d.field));
        if (again.length) io.err(t.flow.correct(again.map((f) => f.label).join(', ')) + '\n');
        else {
          if (!(await yesNo([...base, '(retry)'], t.flow.changeStep, true))) throw e;
          again = [...fields];
        }
        for (const f of again) {
          const step = fieldStep(f, [...base, f.key], 'submerchant');
          const a = await prompter.ask(question(step, false, answerOf(step.path)));
          remember(step, a === GO_BACK ? answerOf(step.path) : (a ?? undefined));
        }
      }
    }
  }

  async function sendDocument(id: string, step: Step, partnerId: string | undefined): Promise<boolean> {
    const { type } = step.doc!;
    const who = partnerId ? t.q.documentOf(names.get(partnerId) ?? partnerId) : '';
    for (;;) {
      const file = answerOf(step.path);
      if (!file) {
        say(t.flow.skipped(type, who, id));
        return false;
      }
      const bar = progressBar(io, basename(file), paint, o.quiet);
      try {
        const bytes = readFileSync(file);
        const form = await fileForm(bytes, basename(file));
        const up = (
          await client.call('submerchants.upload', {
            params: { id },
            rawBody: { bytes: form.bytes, contentType: form.contentType, onProgress: fileProgress(form, (s, total) => bar.update(s, total)) },
          })
        ).data;
        bar.done(t.flow.uploaded(up.fileName, formatBytes(up.fileSize), up.mimeType));
        const doc = (
          await client.call('submerchants.documents.create', {
            params: { id },
            body: { type, file_url: up.url, file_name: up.fileName, file_size: up.fileSize, mime_type: up.mimeType, ...(partnerId ? { legal_representative_id: partnerId } : {}) },
          })
        ).data;
        say(`  ${paint.green('✓')} ${t.flow.documentRegistered(type, who, doc.id)}`);
        return true;
      } catch (e) {
        bar.fail();
        if (!interactive || !fixable(e)) throw e;
        io.err(paint.red(describeError(e)) + '\n' + t.flow.otherFile + '\n');
        const a = await prompter.ask(question(step, false));
        remember(step, a === GO_BACK ? null : (a ?? null));
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // the run
  if (o.id) await resume(o.id);
  const steps = await answerAll();
  // the answers file keeps what this run's final plan asked (not an abandoned branch's)
  const keep = new Set(steps.filter((s) => s.field || s.doc).map((s) => key(s.path)));
  const pruned = new Answers();
  const copy = (path: AnswerPath) => {
    const v = recorded.get(path);
    if (v !== undefined) pruned.set(path, v as string | boolean | null);
  };
  if (!existing) copy(['entity_type']);
  else pruned.set(['entity_type'], existing.entity_type);
  for (const s of steps) if (keep.has(key(s.path)) && s.path[0] !== 'entity_type') copy(s.path);
  for (const slot of registeredSlots.values()) for (const f of ['entity_type', 'name', 'document', 'legal_name']) copy(['partners', slot, f]);
  for (const k of Object.keys(recorded.doc)) delete recorded.doc[k];
  Object.assign(recorded.doc, pruned.doc);

  let sub: Submerchant;
  if (existing) sub = existing;
  else {
    const entity = entityOf()!;
    sub = (
      await send(submerchantFields(entity, { ...fc, interactive: false }), ['submerchant'], (body) =>
        client.call('submerchants.create', { body: { ...body, entity_type: entity } }),
      )
    ).data;
    state.id = sub.id;
    say(`${paint.green('✓')} ${t.flow.created(sub.id)}`);
  }
  const id = sub.id;
  const entity = sub.entity_type;
  let req = existing ? missingAtStart! : await checklist(id, entity);

  if (steps.some((s) => s.section === 'address')) {
    await send(addressFields(fc), ['address'], (body) => client.call('submerchants.addresses.create', { params: { id }, body }));
    say(`${paint.green('✓')} ${t.flow.addressAdded}`);
    req = await checklist(id, entity);
  }

  /** partner id of each slot answered in this run */
  const slotPartner = new Map<number, string>();
  for (const [pid, slot] of registeredSlots) slotPartner.set(slot, pid);
  const newSlots = [...new Set(steps.filter((s) => s.path[0] === 'partners' && s.path.length === 3 && s.path[2] === 'entity_type').map((s) => Number(s.path[1])))];
  for (const slot of newSlots) {
    const pe = partnerEntity(slot);
    const rec = (
      await send(partnerFields(pe, { ...fc, interactive: false }), ['partners', slot], (body) =>
        client.call('submerchants.partners.create', { params: { id }, body: { ...body, entity_type: pe } }),
      )
    ).data;
    slotPartner.set(slot, rec.id);
    names.set(rec.id, rec.name);
    say(`${paint.green('✓')} ${t.flow.partnerRegistered(rec.name, rec.id)}`);
    req = await checklist(id, entity);
  }

  for (const s of steps) {
    if (!s.doc) continue;
    const partnerId = s.doc.partnerId ?? (s.doc.slot !== undefined ? slotPartner.get(s.doc.slot) : undefined);
    if (await sendDocument(id, s, partnerId)) req = await checklist(id, entity);
  }

  const final = (await client.call('submerchants.get', { params: { id } })).data;
  if (req.complete) say(`${paint.green('✓')} ${t.flow.complete(id, final.status)}`);
  else say(t.flow.stillMissing(req.missing.length, id, final.status));
  return final;
}
