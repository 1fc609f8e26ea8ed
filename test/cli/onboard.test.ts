import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from '@inquirer/testing';
import { textPrompt } from '../../src/cli/onboard/textPrompt.js';
import { bufferIO } from '../../src/cli/io.js';
import type { Target } from '../../src/cli/target.js';
import { Answers, loadAnswers, ReplayPrompter, saveAnswers } from '../../src/cli/onboard/answers.js';
import { addressFields, isoBirthDate, parsePercent, submerchantFields, type Field } from '../../src/cli/onboard/fields.js';
import { parseBRL } from '../../src/domain/money.js';
import { runOnboarding } from '../../src/cli/onboard/flow.js';
import { checkLocalFile, progressBar } from '../../src/cli/onboard/localFile.js';
import { completePath, inputConfig, localPath, pathText, type Prompter, type Question } from '../../src/cli/onboard/prompter.js';
import { fileForm, fileProgress } from '../../src/cli/multipart.js';
import { HttpTransport } from '../../src/sdk/httpTransport.js';
import { submerchantsOnboard } from '../../src/cli/commands/onboard/run.js';
import { MpayClient } from '../../src/sdk/client.js';
import { EmbeddedTransport } from '../../src/sdk/embeddedTransport.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { realJpeg, realPng } from '../helpers/files.js';
import { nextCnpj, nextCpf, ok, pfBody } from '../helpers/onboarding.js';
import { docsDir, envClient, partnerDocs, pfScript as pfScriptOf, plain, scripted as scriptedPerson, tick } from '../helpers/wizard.js';

let env: TestEnv;
let dir: string;
let docs: ReturnType<typeof docsDir>;
beforeAll(async () => {
  env = await testEnv();
  docs = docsDir();
  dir = docs.dir;
});
afterAll(async () => {
  await env.close();
  docs.cleanup();
});

const client = () => envClient(env);

const field = (fields: ReturnType<typeof submerchantFields>, key: string) => fields.find((f) => f.key === key)!;
const textQ = (f: Field, path: (string | number)[]): Question => ({ path, kind: 'text', message: f.message, required: f.required, validate: f.validate });

// ---------------------------------------------------------------------------------------------
describe('prompts: fields are validated as they are typed (@inquirer/testing)', () => {
  it('a CPF with wrong check digits is refused inline with the server message; the corrected one is accepted', async () => {
    const q = textQ(field(submerchantFields('pf'), 'tax_id'), ['submerchant', 'tax_id']);
    const { answer, events, getScreen } = await render(textPrompt, inputConfig(q, plain, dir));
    events.type('529.982.247-24');
    expect(getScreen()).not.toContain('✓');
    events.keypress('enter');
    await tick();
    expect(getScreen()).toContain('CPF is not a valid CPF (the check digits do not match)');
    events.keypress('backspace');
    events.type('5');
    expect(getScreen()).toContain('529.982.247-25 ✓'); // valid while typing, before Enter
    events.keypress('enter');
    await expect(answer).resolves.toBe('529.982.247-25');
  });

  it('a CNPJ field refuses a CPF (wrong entity type) and accepts an alphanumeric CNPJ', async () => {
    const q = textQ(field(submerchantFields('pj'), 'tax_id'), ['submerchant', 'tax_id']);
    const { answer, events, getScreen } = await render(textPrompt, inputConfig(q, plain, dir));
    events.type('52998224725');
    events.keypress('enter');
    await tick();
    expect(getScreen()).toContain('is a CPF, but entity_type is pj');
    for (let i = 0; i < 11; i++) events.keypress('backspace');
    events.type('12.abc.345/01de-35');
    events.keypress('enter');
    await expect(answer).resolves.toBe('12.abc.345/01de-35');
  });

  it('a required field refuses an empty answer; an optional one is skipped with Enter', async () => {
    const email = await render(textPrompt, inputConfig(textQ(field(submerchantFields('pf'), 'email'), ['submerchant', 'email']), plain, dir));
    email.events.keypress('enter');
    await tick();
    expect(email.getScreen()).toContain('E-mail is required');
    email.events.type('ana@');
    email.events.keypress('enter');
    await tick();
    expect(email.getScreen()).toContain('E-mail must be a valid e-mail address');
    email.events.type('example.com');
    email.events.keypress('enter');
    await expect(email.answer).resolves.toBe('ana@example.com');

    const phone = await render(textPrompt, inputConfig(textQ(field(submerchantFields('pf'), 'phone'), ['submerchant', 'phone']), plain, dir));
    expect(phone.getScreen()).toContain('(optional, Enter to skip)');
    phone.events.keypress('enter');
    await expect(phone.answer).resolves.toBe('');
  });

  it('CEP and UF are checked like the server does', async () => {
    const a = addressFields();
    const cep = await render(textPrompt, inputConfig(textQ(a.find((f) => f.key === 'zip_code')!, ['address', 'zip_code']), plain, dir));
    cep.events.type('1310-100');
    cep.events.keypress('enter');
    await tick();
    expect(cep.getScreen()).toContain('CEP must be a CEP of 8 digits');
    for (let i = 0; i < 8; i++) cep.events.keypress('backspace'); // the refused value stays, to be fixed in place
    cep.events.type('01310-100');
    expect(cep.getScreen()).toContain('01310-100 ✓');
    cep.events.keypress('enter');
    await expect(cep.answer).resolves.toBe('01310-100');
    const uf = a.find((f) => f.key === 'state')!;
    expect(uf.validate('XX')).toMatch(/^State must be the 2-letter code of a Brazilian state \(UF\)/);
    expect(uf.validate('sp')).toBe(true);
    expect(uf.toBody('sp')).toBe('SP');
  });

  it('a document path is checked before upload: exists, not empty, type by its bytes', async () => {
    const q: Question = { path: ['documents', 'front_id'], kind: 'file', message: 'front_id: file', required: true, validate: checkLocalFile };
    const { answer, events, getScreen } = await render(textPrompt, inputConfig(q, plain, dir));
    events.type('nope.png');
    events.keypress('enter');
    await tick();
    expect(getScreen()).toContain(`${join(dir, 'nope.png')} does not exist`);
    for (let i = 0; i < 8; i++) events.keypress('backspace');
    events.type('fake.pdf');
    events.keypress('enter');
    await tick();
    expect(getScreen()).toContain('fake.pdf is not a PDF, PNG or JPEG file');
    for (let i = 0; i < 8; i++) events.keypress('backspace');
    events.type('front.png');
    events.keypress('enter');
    await expect(answer).resolves.toBe('front.png');
    expect(checkLocalFile(join(dir, 'png-named.pdf'))).toBe('png-named.pdf: the content is PNG but its name says .pdf');
    expect(checkLocalFile(join(dir, 'empty.png'))).toMatch(/is empty/);
    expect(checkLocalFile(dir)).toMatch(/is not a file/);
  });
});

describe('the upload progress bar', () => {
  it('redraws in place on a terminal and ends with one line', () => {
    const io = bufferIO({ tty: true });
    const bar = progressBar(io, 'contrato.pdf', plain);
    bar.update(0, 2 * 1024 * 1024);
    bar.update(1024 * 1024, 2 * 1024 * 1024);
    bar.update(1024 * 1024, 2 * 1024 * 1024); // same percentage: not redrawn
    bar.update(2 * 1024 * 1024, 2 * 1024 * 1024);
    bar.done('uploaded contrato.pdf (2.0 MiB, application/pdf)');
    const frames = io.stderr.split('\r').filter(Boolean);
    expect(frames).toHaveLength(4);
    expect(frames[1]).toContain(`[${'█'.repeat(12)}${'░'.repeat(12)}]  50% 1.0 MiB/2.0 MiB`);
    expect(frames[3]).toMatch(/^ {2}✓ uploaded contrato\.pdf \(2\.0 MiB, application\/pdf\)/);
    expect(io.stdout).toBe('');
  });

  it('prints only the final line when stderr is not a terminal, and nothing with --quiet', () => {
    const io = bufferIO({ tty: false });
    const bar = progressBar(io, 'a.pdf', plain);
    bar.update(10, 100);
    bar.done('uploaded a.pdf');
    expect(io.stderr).toBe('  ✓ uploaded a.pdf\n');
    const quiet = bufferIO({ tty: true });
    const q = progressBar(quiet, 'a.pdf', plain, true);
    q.update(10, 100);
    q.done('uploaded a.pdf');
    expect(quiet.stderr).toBe('');
  });
});

describe('answer parsing', () => {
  it('reais as typed become cents; percentages accept a comma', () => {
    expect(parseBRL('1.500,00')).toBe(150000);
    expect(parseBRL('R$ 1.234,5')).toBe(123450);
    expect(parseBRL('1234.56')).toBe(123456);
    expect(parseBRL('1.234')).toBe(123400);
    expect(parseBRL('150')).toBe(15000);
    expect(parseBRL('1,2,3')).toBeNull();
    expect(parseBRL('-5')).toBeNull();
    expect(parsePercent('33,33')).toBe(33.33);
    expect(parsePercent('60 %')).toBe(60);
    expect(parsePercent('sixty')).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
const scripted = (script: Record<string, unknown>, log: string[] = []) => scriptedPerson(dir, script, { log });
const pfScript = (over: Record<string, unknown> = {}) => pfScriptOf(nextCpf(), over);

const pjScript = (over: Record<string, unknown> = {}) => ({
  entity_type: 'pj',
  'submerchant.trade_name': 'Padaria Boa',
  'submerchant.legal_name': 'Padaria Boa LTDA',
  'submerchant.tax_id': nextCnpj(),
  'submerchant.email': 'fin@padariaboa.com.br',
  'submerchant.cnae': '4721-1/02',
  'address.zip_code': '01310100',
  'address.street': 'Av. Paulista',
  'address.number': '1000',
  'address.neighborhood': 'Bela Vista',
  'address.city': 'São Paulo',
  'address.state': 'SP',
  'partners[0].name': 'Ana Souza',
  'partners[0].document': nextCpf(),
  'partners[0].participation_percentage': '60',
  'partners[0].is_admin': 'true',
  'documents.social_contract': 'doc.pdf',
  'documents.cnpj_card': 'doc.pdf',
  'documents.proof_of_residence_company': 'doc.pdf',
  ...partnerDocs(0),
  ...over,
});

async function onboard(prompter: Prompter, o: { id?: string } = {}) {
  const io = bufferIO();
  const recorded = new Answers();
  const sub = await runOnboarding({ client: client(), io, prompter, recorded, paint: plain, id: o.id });
  return { sub, io, recorded };
}

describe('the flow in-process (scripted answers, real embedded app)', () => {
  it('pf: submerchant, address and the four documents → under_review, with a checklist after each step', async () => {
    const { sub, io, recorded } = await onboard(scripted(pfScript()));
    expect(sub).toMatchObject({ entity_type: 'pf', status: 'under_review', birth_date: '1985-04-12' });
    const docs = await ok(env, 'GET', `/v1/submerchants/${sub.id}/documents`);
    expect(docs.map((d: { type: string }) => d.type).sort()).toEqual(['back_id', 'front_id', 'proof_of_residence', 'selfie_with_id']);
    expect(docs.find((d: { type: string }) => d.type === 'back_id')).toMatchObject({ mime_type: 'image/jpeg', file_name: 'back.jpg' });
    const addresses = await ok(env, 'GET', `/v1/submerchants/${sub.id}/addresses`);
    expect(addresses[0]).toMatchObject({ state: 'SP', zip_code: '01310100' });
    // checklists: the first lists everything missing, the last is complete
    const lists = io.stderr.split('Checklist (').slice(1);
    expect(lists.length).toBe(6); // after creation, address and each of the 4 documents
    expect(lists[0]).toContain('✗ address');
    expect(lists[0]).toContain('✗ front_id — front of the ID document');
    expect(lists[5]).toMatch(/^complete, status under_review\)/);
    expect(lists[5]).not.toContain('✗');
    expect(io.stderr).toContain('uploaded back.jpg');
    expect(io.stdout).toBe(''); // the flow prints no data; the command prints the record
    expect(recorded.doc).toMatchObject({ entity_type: 'pf', submerchant: { trade_name: 'Ana Doces' }, documents: { back_id: join(dir, 'back.jpg') } });
  });

  it('pj with a partner (and a second one over 100 %, fixed on the spot) → under_review', async () => {
    const second = nextCpf();
    const log: string[] = [];
    const { sub, io } = await onboard(
      scripted(
        pjScript({
          'partners[1]': true,
          'partners[1].name': 'Bruno Lima',
          'partners[1].document': second,
          'partners[1].participation_percentage': ['50', '40'], // 60 + 50 > 100: the service refuses, the wizard asks again
          ...partnerDocs(1),
        }),
        log,
      ),
    );
    expect(sub).toMatchObject({ entity_type: 'pj', status: 'under_review', cnaes: [{ code: '4721102', is_primary: true }] });
    expect(io.stderr).toMatch(/adding 50% would make 110%/);
    expect(io.stderr).toContain('Correct Participation % and it is sent again.');
    const partners = await ok(env, 'GET', `/v1/submerchants/${sub.id}/legal-representatives`);
    expect(partners.map((p: { participation_percentage: number }) => p.participation_percentage).sort()).toEqual([40, 60]);
    const docs = await ok(env, 'GET', `/v1/submerchants/${sub.id}/documents?per_page=100`);
    expect(docs.length).toBe(3 + 4 * 2);
    expect(docs.filter((d: { legal_representative_id: string | null }) => d.legal_representative_id).length).toBe(8);
    expect(io.stderr).toContain('partner_front_id — front of the partner\'s ID document of Bruno Lima');
  });

  it('an invalid CPF is refused as typed; a CPF already registered is offered to continue, and declining asks it again', async () => {
    const taken = await ok(env, 'POST', '/v1/submerchants', pfBody());
    const log: string[] = [];
    const fresh = nextCpf();
    // declining the offer to continue the existing one (see below) asks the CPF again
    const { sub } = await onboard(scripted(pfScript({ 'submerchant.tax_id': ['11111111111', taken.tax_id, fresh], 'submerchant.(continue existing)': 'false' }), log));
    expect(log).toEqual(['submerchant.tax_id: CPF is not a valid CPF (all digits are the same)']);
    expect(sub).toMatchObject({ tax_id: fresh, status: 'under_review' });
  });

  it('a duplicate the service finds when sending (409) is shown and the field asked again', async () => {
    const fresh = nextCpf();
    let taken: { id: string; tax_id: string } | undefined;
    const base = scripted(pfScript({ 'submerchant.tax_id': fresh }));
    // another session registers the same CPF between this one's review and its sending
    const racing: Prompter = {
      interactive: true,
      async ask(q) {
        if (q.path[0] === '(review)') taken = await ok(env, 'POST', '/v1/submerchants', pfBody({ tax_id: fresh }));
        if (pathText(q.path) === 'submerchant.tax_id' && taken) return nextCpf();
        return base.ask(q);
      },
    };
    const { sub, io } = await onboard(racing);
    expect(io.stderr).toContain(`CPF: a submerchant with this CPF already exists (${taken!.id}) (conflict, HTTP 409)`);
    expect(io.stderr).toContain('Correct CPF and it is sent again.');
    expect(sub.tax_id).not.toBe(fresh);
    expect(sub.status).toBe('under_review');
  });

  it('a document skipped with Enter leaves the submerchant pending; --id resumes with only what is missing', async () => {
    const first = await onboard(scripted(pfScript({ 'documents.selfie_with_id': null })));
    expect(first.sub.status).toBe('pending');
    expect(first.io.stderr).toContain(`1 item(s) still missing; ${first.sub.id} stays pending`);
    expect(first.recorded.get(['documents', 'selfie_with_id'])).toBeNull();
    // resuming asks for the selfie only: any other question is unscripted and would throw
    const again = await onboard(scripted({ 'documents.selfie_with_id': 'front.png' }), { id: first.sub.id });
    expect(again.sub.status).toBe('under_review');
    expect(again.io.stderr).toContain(`Resuming Ana Doces (pf`);
  });

  it('resuming a pj: registered partners are kept, their missing documents asked under their name', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', { trade_name: 'Loja', legal_name: 'Loja LTDA', tax_id: nextCnpj(), email: 'l@example.com' });
    const partner = await ok(env, 'POST', `/v1/submerchants/${sub.id}/legal-representatives`, { name: 'Carla Dias', document: nextCpf() });
    const { sub: done, io, recorded } = await onboard(
      scripted({
        'address.zip_code': '01310100',
        'address.street': 'Rua A',
        'address.number': '1',
        'address.neighborhood': 'Centro',
        'address.city': 'Recife',
        'address.state': 'PE',
        'documents.social_contract': 'doc.pdf',
        'documents.cnpj_card': 'doc.pdf',
        'documents.proof_of_residence_company': 'doc.pdf',
        ...partnerDocs(0),
      }),
      { id: sub.id },
    );
    expect(done.status).toBe('under_review');
    expect(io.stderr).toContain(`Partners already registered: Carla Dias (${partner.document})`);
    // the recorded answers name the partner so a replay can match it by document
    expect(recorded.get(['partners', 0])).toMatchObject({ name: 'Carla Dias', document: partner.document, documents: { partner_front_id: join(dir, 'front.png') } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('the answers file', () => {
  it('saves with paths relative to the file (mode 0600) and loads them back resolved', () => {
    const a = new Answers();
    a.set(['entity_type'], 'pf');
    a.set(['submerchant', 'email'], 'ana@example.com');
    a.set(['documents', 'front_id'], join(dir, 'front.png'));
    a.set(['partners', 0, 'documents', 'partner_back_id'], join(dir, 'back.jpg'));
    const file = join(dir, 'sub', 'answers.json');
    saveAnswers(file, a);
    const text = JSON.parse(readFileSync(file, 'utf8'));
    expect(text).toMatchObject({ mpay_onboarding: 1, documents: { front_id: join('..', 'front.png') }, partners: [{ documents: { partner_back_id: join('..', 'back.jpg') } }] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadAnswers(file).get(['documents', 'front_id'])).toBe(join(dir, 'front.png'));
    expect(JSON.stringify(text)).not.toMatch(/sk_|pk_/);
  });

  it('refuses unknown keys and nested values, naming them', () => {
    const bad = (doc: unknown) => {
      const f = join(dir, 'bad.json');
      writeFileSync(f, JSON.stringify(doc));
      return () => loadAnswers(f);
    };
    expect(bad({ submerchant: { 'tax-id': '1' } })).toThrow(/submerchant\.tax-id is not a known answer/);
    expect(bad({ wat: 1 })).toThrow(/wat is not a known section/);
    expect(bad({ partners: [{ documents: { front_id: 'x' } }] })).toThrow(/partners\[0\]\.documents\.front_id is not a known answer/);
    expect(bad({ address: { city: { name: 'x' } } })).toThrow(/address\.city must be a string, number, boolean or null/);
    expect(bad([1])).toThrow(/must hold a JSON object/);
  });

  it('the replay checks every needed answer before anything is created', () => {
    const f = join(dir, 'replay.json');
    const replay = (doc: Record<string, unknown>) => new ReplayPrompter(new Answers(doc), f);
    const full = {
      entity_type: 'pf',
      submerchant: { trade_name: 'A', legal_name: 'A B', tax_id: '52998224725', email: 'a@example.com' },
      address: { zip_code: '01310100', street: 'R', number: '1', neighborhood: 'B', city: 'C', state: 'SP' },
      documents: { front_id: join(dir, 'front.png'), back_id: join(dir, 'back.jpg'), selfie_with_id: null, proof_of_residence: join(dir, 'doc.pdf') },
    };
    expect(() => replay(full).preflight('pf', false)).not.toThrow();
    expect(() => replay({ ...full, submerchant: { ...full.submerchant, email: undefined } }).preflight('pf', false)).toThrow(/missing answer submerchant\.email \(E-mail\)/);
    expect(() => replay({ ...full, submerchant: { ...full.submerchant, tax_id: '52998224726' } }).preflight('pf', false)).toThrow(
      /submerchant\.tax_id: CPF is not a valid CPF \(the check digits do not match\)/,
    );
    expect(() => replay({ ...full, submerchant: { ...full.submerchant, cnae: '4721102' } }).preflight('pf', false)).toThrow(/submerchant\.cnae is not asked for a pf submerchant/);
    expect(() => replay({ ...full, documents: { ...full.documents, back_id: undefined } }).preflight('pf', false)).toThrow(/missing answer documents\.back_id/);
    expect(() => replay({ ...full, documents: { ...full.documents, back_id: join(dir, 'fake.pdf') } }).preflight('pf', false)).toThrow(
      /documents\.back_id: fake\.pdf is not a PDF, PNG or JPEG file/,
    );
    expect(() => replay({ ...full, entity_type: 'pj' }).preflight('pf', true)).toThrow(/entity_type is pj, but the submerchant is pf/);
    // resuming: what is absent is not required up front
    expect(() => replay({ documents: { front_id: join(dir, 'front.png') } }).preflight('pf', true)).not.toThrow();
    expect(() => replay({ ...full, entity_type: 'pj', submerchant: { ...full.submerchant, tax_id: '11222333000181' } }).preflight('pj', false)).toThrow(
      /missing answer partners\[0\]/,
    );
  });
});

describe('the command', () => {
  const target = async (): Promise<Target> => ({ kind: 'embedded', profileName: 't', client: client(), close: async () => undefined });

  it('without a terminal and without --from-file it does not prompt: exit 2 naming --from-file', async () => {
    const io = bufferIO({ tty: false });
    await expect(submerchantsOnboard({}, {}, { io, openTarget: target })).rejects.toThrow(/--from-file FILE/);
    const tty = bufferIO({ tty: true, env: { MPAY_NO_PROMPT: '1' } });
    await expect(submerchantsOnboard({}, {}, { io: tty, openTarget: target })).rejects.toMatchObject({ exitCode: 2 });
  });

  it('--save-answers records the session (also when it stops early), and the record goes to stdout', async () => {
    const file = join(dir, 'session.json');
    const io = bufferIO({ tty: false });
    const code = await submerchantsOnboard({ output: 'json' }, { saveAnswers: file }, { io, openTarget: target }, { prompter: scripted(pfScript()) });
    expect(code, io.stderr).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({ status: 'under_review' });
    expect(loadAnswers(file).doc).toMatchObject({ entity_type: 'pf', address: { state: 'sp' }, documents: { front_id: join(dir, 'front.png') } });

    // the service refuses something it cannot fix without a person (a replay): exit 1, answers saved, resume hint
    const stopped = join(dir, 'stopped.json');
    const taken = await ok(env, 'POST', '/v1/submerchants', pfBody());
    writeFileSync(stopped, '{}');
    const replayFile = join(dir, 'dup.json');
    writeFileSync(
      replayFile,
      JSON.stringify({
        entity_type: 'pf',
        submerchant: { trade_name: 'A', legal_name: 'A B', tax_id: taken.tax_id, email: 'a@example.com' },
        address: { zip_code: '01310100', street: 'R', number: '1', neighborhood: 'B', city: 'C', state: 'SP' },
        documents: { front_id: 'front.png', back_id: 'back.jpg', selfie_with_id: 'front.png', proof_of_residence: 'doc.pdf' },
      }),
    );
    const io2 = bufferIO({ tty: false });
    const code2 = await submerchantsOnboard({}, { fromFile: replayFile, saveAnswers: stopped }, { io: io2, openTarget: target });
    expect(code2).toBe(1);
    expect(io2.stderr).toContain('already exists');
    expect(io2.stdout).toBe('');
    expect(loadAnswers(stopped).get(['submerchant', 'tax_id'])).toBe(taken.tax_id);
  });

  it('Ctrl-C in a prompt stops with exit 130; before the review nothing was created', async () => {
    const before = (await env.call('GET', '/v1/submerchants')).body.pagination.total;
    const inner = scripted(pfScript());
    let asked = 0;
    const interrupting: Prompter = {
      interactive: true,
      async ask(q) {
        if (q.path[0] === 'address') {
          const e = new Error('User force closed the prompt with SIGINT');
          e.name = 'ExitPromptError';
          throw e;
        }
        asked++;
        return inner.ask(q);
      },
    };
    const io = bufferIO({ tty: true });
    const code = await submerchantsOnboard({}, {}, { io, openTarget: target }, { prompter: interrupting });
    expect(code).toBe(130);
    expect(asked).toBeGreaterThan(4);
    expect(io.stderr).toContain('error: interrupted (Ctrl-C)');
    expect(io.stderr).not.toContain('keeps what was sent');
    expect((await env.call('GET', '/v1/submerchants')).body.pagination.total).toBe(before);
    expect(io.stdout).toBe('');
  });

  it('Ctrl-C while a refused answer is asked again, after the submerchant exists, says how to continue', async () => {
    // 60 % + 50 % is more than the service takes: it refuses the second partner, whose share is asked again
    const inner = scripted(pjScript({ 'partners[1]': true, 'partners[1].name': 'Bruno Lima', 'partners[1].document': nextCpf(), 'partners[1].participation_percentage': '50', ...partnerDocs(1) }));
    let asks = 0;
    const interrupting: Prompter = {
      interactive: true,
      async ask(q) {
        if (pathText(q.path) === 'partners[1].participation_percentage' && ++asks === 2) {
          const e = new Error('User force closed the prompt with SIGINT');
          e.name = 'ExitPromptError';
          throw e;
        }
        return inner.ask(q);
      },
    };
    const io = bufferIO({ tty: true });
    const code = await submerchantsOnboard({}, {}, { io, openTarget: target }, { prompter: interrupting });
    expect(code).toBe(130);
    expect(io.stderr).toContain('Correct Participation % and it is sent again.');
    expect(io.stderr).toMatch(/error: interrupted \(Ctrl-C\)\nThe submerchant \S+ keeps what was sent; continue with `mpay submerchants onboard --id \S+`/);
  });

  it('--id must be a UUID; an unknown one is a 404 (exit 4)', async () => {
    const io = bufferIO({ tty: false });
    await expect(submerchantsOnboard({}, { id: 'nope', fromFile: 'x.json' }, { io, openTarget: target })).rejects.toThrow(/--id must be a submerchant id/);
    const f = join(dir, 'empty.json');
    writeFileSync(f, '{}');
    const code = await submerchantsOnboard({}, { id: '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', fromFile: f }, { io, openTarget: target });
    expect(code).toBe(4);
  });
});

describe('the wizard, for support staff', () => {
  const counting = () => {
    const p = { asked: 0, interactive: true, async ask() { p.asked++; return undefined; } } as Prompter & { asked: number };
    return p;
  };

  it('checks reachability and credentials before the first question', async () => {
    const unreachable = counting();
    const far = async (): Promise<Target> => ({
      kind: 'remote',
      profileName: 't',
      client: new MpayClient({ transport: new HttpTransport('http://127.0.0.1:9'), publicKey: 'pk_test_x', secretKey: 'sk_test_y' }),
      close: async () => undefined,
    });
    const io = bufferIO({ tty: true });
    expect(await submerchantsOnboard({}, {}, { io, openTarget: far }, { prompter: unreachable })).toBe(5);
    expect(unreachable.asked).toBe(0);
    expect(io.stderr).toMatch(/could not reach/);

    const badKeys = counting();
    const wrong = async (): Promise<Target> => ({
      kind: 'embedded',
      profileName: 't',
      client: new MpayClient({ transport: new EmbeddedTransport(env.rt.app.fetch), publicKey: env.merchant.public_key, secretKey: 'sk_test_wrong' }),
      close: async () => undefined,
    });
    expect(await submerchantsOnboard({}, {}, { io: bufferIO({ tty: true }), openTarget: wrong }, { prompter: badKeys })).toBe(3);
    expect(badKeys.asked).toBe(0);
  });

  it('a duplicate tax id offers to continue the existing submerchant, like --id', async () => {
    const taken = await ok(env, 'POST', '/v1/submerchants', pfBody());
    const { sub, io } = await onboard(scripted(pfScript({ 'submerchant.tax_id': taken.tax_id, 'submerchant.(continue existing)': 'true' })));
    expect(io.stderr).toContain(`Resuming`);
    expect(sub.id).toBe(taken.id);
    expect(sub.status).toBe('under_review');
  });

  it('birth dates as DD/MM/AAAA', async () => {
    expect(isoBirthDate('12/04/1985')).toBe('1985-04-12');
    expect(isoBirthDate('1/4/1985')).toBe('1985-04-01');
    expect(isoBirthDate('1985-04-12')).toBe('1985-04-12');
    expect(isoBirthDate('April 12')).toBeNull();
    const f = field(submerchantFields('pf'), 'birth_date');
    expect(f.validate('12/04/1985')).toBe(true);
    expect(f.validate('31/02/1985')).toMatch(/^Birth date /);
    expect(f.toBody('12/04/1985')).toBe('1985-04-12');
    const { sub } = await onboard(scripted(pfScript({ 'submerchant.birth_date': '03/11/1990' })));
    expect(sub.birth_date).toBe('1990-11-03');
  });

  it('messages under a question use its label, not the API field name', () => {
    const cep = addressFields().find((f) => f.key === 'zip_code')!;
    expect(cep.validate('123')).toMatch(/^CEP /);
    const q = { path: ['address', 'street'], kind: 'text', message: 'Street', required: true } as Question;
    expect(inputConfig(q, plain, dir).validate('')).toBe('Street is required');
  });

  it('~ in a file path is the home directory', () => {
    expect(localPath('/work', '~/docs/rg.png', '/home/ana')).toBe('/home/ana/docs/rg.png');
    expect(localPath('/work', '~', '/home/ana')).toBe('/home/ana');
    expect(localPath('/work', 'rg.png', '/home/ana')).toBe('/work/rg.png');
    const q = { path: ['documents', 'front_id'], kind: 'file', message: 'front', required: true, validate: checkLocalFile } as Question;
    expect(inputConfig(q, plain, '/nowhere').validate(`~/${'x'.repeat(3)}`)).toMatch(/does not exist/);
  });

  it('Tab completes paths like a shell (directories get their /, ~ is home)', () => {
    const home = mkdtempSync(join(tmpdir(), 'mpay-home-'));
    try {
      writeFileSync(join(home, 'rg-frente.png'), realPng());
      writeFileSync(join(home, 'rg-verso.jpg'), realJpeg());
      writeFileSync(join(home, '.hidden'), 'x');
      mkdirSync(join(home, 'docs'));
      expect(completePath(home, 'rg-f')).toEqual([['rg-frente.png'], 'rg-f']);
      expect(completePath(home, 'rg-')[0]).toEqual(['rg-frente.png', 'rg-verso.jpg']);
      expect(completePath(home, 'do')[0]).toEqual(['docs/']);
      expect(completePath('/elsewhere', '~/rg-v', home)[0]).toEqual(['~/rg-verso.jpg']);
      expect(completePath(home, '')[0]).not.toContain('.hidden');
      expect(completePath(home, 'nowhere/x')[0]).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("the upload progress counts the file's bytes, not the multipart body's", async () => {
    const file = Buffer.alloc(300_000, 7);
    const form = await fileForm(file, 'big.pdf', 'application/pdf');
    expect(form.bytes.length).toBeGreaterThan(file.length);
    expect(Buffer.from(form.bytes).subarray(form.fileOffset, form.fileOffset + file.length).equals(file)).toBe(true);
    const seen: [number, number][] = [];
    const on = fileProgress(form, (s, t) => seen.push([s, t]));
    on(0, form.bytes.length);
    on(form.fileOffset + 1000, form.bytes.length);
    on(form.bytes.length, form.bytes.length);
    expect(seen).toEqual([
      [0, 300_000],
      [1000, 300_000],
      [300_000, 300_000],
    ]);
  });
});
