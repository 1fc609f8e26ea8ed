/**
 * The answers file of `mpay submerchants onboard`: what --save-answers writes and --from-file
 * replays. It holds only the answers a person gave (no keys, no ids), for example:
 *
 *   { "mpay_onboarding": 1, "entity_type": "pj",
 *     "submerchant": { "trade_name": "…", "legal_name": "…", "tax_id": "…", "email": "…" },
 *     "address": { "zip_code": "01310-100", "street": "…", … },
 *     "partners": [ { "entity_type": "pf", "name": "…", "document": "…", "documents": { "partner_front_id": "docs/ana-frente.jpg", … } } ],
 *     "documents": { "social_contract": "docs/contrato.pdf", … } }
 *
 * File paths are relative to the answers file's directory. A document answered null is
 * skipped on purpose; a missing answer the run needs is an error naming it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';
import { normalizeTaxId } from '../../domain/brazil.js';
import { COMPANY_DOCUMENT_TYPES, PARTNER_DOCUMENT_TYPES, PERSON_DOCUMENT_TYPES, REQUIRED_DOCUMENTS } from '../../domain/onboarding.js';
import { usage } from '../errors.js';
import { addressFields, defaultContext, entityTypeField, partnerEntityField, partnerFields, SECTION_KEYS, submerchantFields, type Field, type FieldContext } from './fields.js';
import { checkLocalFile } from './localFile.js';
import { localPath } from './prompter.js';
import { pathText, type AnswerPath, type AnswerValue, type Prompter, type Question } from './prompter.js';

export const ANSWERS_VERSION = 1;

type Scalar = string | number | boolean | null;
type Doc = Record<string, unknown>;

/** The answers of one run, in the file's shape. */
export class Answers {
  constructor(readonly doc: Doc = {}) {}

  get(path: AnswerPath): unknown {
    let cur: unknown = this.doc;
    for (const p of path) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string | number, unknown>)[p];
    }
    return cur;
  }

  /** Sets (or, with undefined, removes) an answer, creating the sections on the way. */
  set(path: AnswerPath, value: Scalar | undefined): void {
    let cur = this.doc as Record<string | number, unknown>;
    for (let i = 0; i < path.length - 1; i++) {
      const k = path[i]!;
      if (cur[k] === undefined || cur[k] === null || typeof cur[k] !== 'object') cur[k] = typeof path[i + 1] === 'number' ? [] : {};
      cur = cur[k] as Record<string | number, unknown>;
    }
    const last = path[path.length - 1]!;
    if (value === undefined) delete cur[last];
    else cur[last] = value;
  }

  partnerCount(): number {
    const p = this.doc.partners;
    return Array.isArray(p) ? p.length : 0;
  }
}

function mapDocPaths(doc: Doc, fn: (p: string) => string): Doc {
  const copy = JSON.parse(JSON.stringify(doc)) as Doc;
  const fix = (docs: unknown) => {
    if (!docs || typeof docs !== 'object') return;
    for (const [k, v] of Object.entries(docs)) if (typeof v === 'string') (docs as Record<string, string>)[k] = fn(v);
  };
  fix(copy.documents);
  if (Array.isArray(copy.partners)) for (const p of copy.partners) fix((p as Doc | null)?.documents);
  return copy;
}

/** Writes the answers (mode 0600: they hold personal data); file paths relative to the file. */
export function saveAnswers(file: string, answers: Answers): void {
  const dir = dirname(file);
  const doc = mapDocPaths(answers.doc, (p) => {
    const rel = relative(dir, p);
    return rel && !isAbsolute(rel) ? rel : p;
  });
  const ordered: Doc = { mpay_onboarding: ANSWERS_VERSION };
  for (const k of ['entity_type', 'submerchant', 'address', 'partners', 'documents']) if (doc[k] !== undefined) ordered[k] = doc[k];
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(ordered, null, 2) + '\n', { mode: 0o600 });
}

const TOP_KEYS = new Set(['mpay_onboarding', 'entity_type', 'submerchant', 'address', 'partners', 'documents']);
const OWN_DOCS = new Set<string>([...COMPANY_DOCUMENT_TYPES, ...PERSON_DOCUMENT_TYPES]);
const PARTNER_DOCS = new Set<string>(PARTNER_DOCUMENT_TYPES);

/** Reads an answers file and checks its shape: unknown keys and non-scalar answers are errors naming them. */
export function loadAnswers(file: string): Answers {
  const where = `--from-file ${file}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw usage(`${where}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw usage(`${where}: is not valid JSON (${(e as Error).message})`);
  }
  const isObj = (v: unknown): v is Doc => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(doc)) throw usage(`${where}: must hold a JSON object`);
  const bad = (path: AnswerPath, msg: string) => usage(`${where}: ${pathText(path)} ${msg}`);
  const scalars = (obj: unknown, path: AnswerPath, keys: Set<string>, nested: Record<string, (v: unknown, p: AnswerPath) => void> = {}) => {
    if (!isObj(obj)) throw bad(path, 'must be an object');
    for (const [k, v] of Object.entries(obj)) {
      if (!keys.has(k)) throw bad([...path, k], `is not a known answer; known: ${[...keys].join(', ')}`);
      if (nested[k]) nested[k](v, [...path, k]);
      else if (v !== null && typeof v === 'object') throw bad([...path, k], 'must be a string, number, boolean or null');
    }
  };
  if (doc.mpay_onboarding !== undefined && doc.mpay_onboarding !== ANSWERS_VERSION) {
    throw bad(['mpay_onboarding'], `must be ${ANSWERS_VERSION} (this mpay reads version ${ANSWERS_VERSION} answers files)`);
  }
  for (const k of Object.keys(doc)) if (!TOP_KEYS.has(k)) throw bad([k], `is not a known section; known: ${[...TOP_KEYS].join(', ')}`);
  if (doc.entity_type !== undefined && typeof doc.entity_type !== 'string') throw bad(['entity_type'], 'must be pf or pj');
  if (doc.submerchant !== undefined) scalars(doc.submerchant, ['submerchant'], SECTION_KEYS.submerchant);
  if (doc.address !== undefined) scalars(doc.address, ['address'], SECTION_KEYS.address);
  if (doc.documents !== undefined) scalars(doc.documents, ['documents'], OWN_DOCS);
  if (doc.partners !== undefined) {
    if (!Array.isArray(doc.partners)) throw bad(['partners'], 'must be a list of partners');
    doc.partners.forEach((p, i) =>
      scalars(p, ['partners', i], SECTION_KEYS.partner, { documents: (v, path) => scalars(v, path, PARTNER_DOCS) }),
    );
  }
  // `~/…` is the home directory, as on the prompt; other relative paths, the file's directory
  const base = dirname(file);
  return new Answers(mapDocPaths(doc, (p) => localPath(base, p)));
}

/** Answers the flow's questions from a loaded answers file, without a prompt. */
export class ReplayPrompter implements Prompter {
  readonly interactive = false;

  constructor(
    private readonly answers: Answers,
    private readonly file: string,
  ) {}

  private missing(q: Pick<Question, 'path' | 'message'>) {
    return usage(`--from-file ${this.file}: missing answer ${pathText(q.path)} (${q.message})`);
  }

  async ask(q: Question): Promise<AnswerValue> {
    return this.answer(q, false);
  }

  /** The answer to q; with presentOnly a missing answer is skipped instead of refused. */
  answer(q: Question, presentOnly: boolean): AnswerValue {
    const raw = this.answers.get(q.path);
    if (q.kind === 'more') {
      if (raw !== undefined && raw !== null) return 'true';
      if (q.required && !presentOnly) throw this.missing(q);
      return 'false';
    }
    let v: string | undefined;
    if (raw === null) {
      if (q.kind === 'file') return null;
    } else if (typeof raw === 'string') {
      v = raw.trim() || undefined;
    } else if (typeof raw === 'number' || typeof raw === 'boolean') {
      v = String(raw);
    } else if (raw !== undefined) {
      throw usage(`--from-file ${this.file}: ${pathText(q.path)} must be a string, number, boolean or null`);
    }
    if (v === undefined) {
      if ((q.required || q.kind === 'file') && !presentOnly) throw this.missing(q);
      return undefined;
    }
    const verdict = q.validate ? q.validate(v) : true;
    if (verdict !== true) throw usage(`--from-file ${this.file}: ${pathText(q.path)}: ${verdict}`);
    return v;
  }

  findPartner(document: string): number | undefined {
    for (let i = 0; i < this.answers.partnerCount(); i++) {
      const d = this.answers.get(['partners', i, 'document']);
      if (typeof d === 'string' && normalizeTaxId(d) === document) return i;
    }
    return undefined;
  }

  /**
   * Every answer the run will need, checked before anything is created: for a new
   * submerchant each required answer must be there; resuming (--id), what is there must be valid.
   */
  partnerCount(): number {
    return this.answers.partnerCount();
  }

  preflight(entity: 'pf' | 'pj', resume: boolean, c: FieldContext = defaultContext()): void {
    const ask = (f: Field, path: AnswerPath) =>
      this.answer({ path, kind: f.kind, message: f.message, required: f.required, choices: f.choices, validate: f.validate }, resume);
    const fileQ = (path: AnswerPath, message: string) => this.answer({ path, kind: 'file', message, required: true, validate: checkLocalFile }, resume);
    const fileEntity = this.answers.get(['entity_type']);
    if (fileEntity !== undefined) ask(entityTypeField(c), ['entity_type']);
    if (fileEntity !== undefined && fileEntity !== entity) {
      throw usage(`--from-file ${this.file}: entity_type is ${String(fileEntity)}, but the submerchant is ${entity}`);
    }
    const only = (section: AnswerPath, fields: readonly Field[], what: string) => {
      const given = this.answers.get(section);
      const keys = new Set(fields.map((f) => f.key));
      for (const k of Object.keys((given as Record<string, unknown> | undefined) ?? {})) {
        if (!keys.has(k) && k !== 'documents' && k !== 'entity_type') throw usage(`--from-file ${this.file}: ${pathText([...section, k])} is not asked for ${what}`);
      }
    };
    only(['submerchant'], submerchantFields(entity, c), `a ${entity} submerchant`);
    if (!resume) for (const f of submerchantFields(entity, c)) ask(f, ['submerchant', f.key]);
    for (const f of addressFields(c)) ask(f, ['address', f.key]);
    const partners = this.answers.partnerCount();
    if (entity === 'pf' && partners) throw usage(`--from-file ${this.file}: partners: only a pj submerchant has partners`);
    if (entity === 'pj') {
      if (!resume && !partners) throw this.missing({ path: ['partners', 0], message: 'a pj submerchant needs at least one partner' });
      for (let i = 0; i < partners; i++) {
        const pe = (ask(partnerEntityField(c), ['partners', i, 'entity_type']) ?? 'pf') as 'pf' | 'pj';
        only(['partners', i], partnerFields(pe, c), `a ${pe} partner`);
        for (const f of partnerFields(pe, c)) ask(f, ['partners', i, f.key]);
        for (const t of PARTNER_DOCUMENT_TYPES) fileQ(['partners', i, 'documents', t], `file of ${t}`);
      }
    }
    const own = this.answers.get(['documents']) as Record<string, unknown> | undefined;
    for (const t of Object.keys(own ?? {})) {
      if (!(REQUIRED_DOCUMENTS[entity] as readonly string[]).includes(t)) {
        throw usage(
          `--from-file ${this.file}: documents.${t} is not one the onboarding sends for a ${entity} submerchant (${REQUIRED_DOCUMENTS[entity].join(', ')}); send others with \`mpay submerchants upload\` and \`mpay submerchants docs add\``,
        );
      }
    }
    for (const t of REQUIRED_DOCUMENTS[entity]) fileQ(['documents', t], `file of ${t}`);
  }
}
