// The wizard for support staff: its language, going back, the review before anything is
// created, a tax id of the other entity type, dates explained as they are asked, ages, yes/no.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from '@inquirer/testing';
import { bufferIO } from '../../src/cli/io.js';
import { Answers } from '../../src/cli/onboard/answers.js';
import { submerchantFields } from '../../src/cli/onboard/fields.js';
import { runOnboarding } from '../../src/cli/onboard/flow.js';
import * as prompter from '../../src/cli/onboard/prompter.js';
import * as locale from '../../src/cli/onboard/locale.js';
import { textPrompt } from '../../src/cli/onboard/textPrompt.js';
import { submerchantsOnboard } from '../../src/cli/commands/onboard/run.js';
import type { Target } from '../../src/cli/target.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { nextCnpj, nextCpf } from '../helpers/onboarding.js';
import { BACK, docsDir, envClient, pfScript, pjExtras, plain, scripted, tick, type Asked } from '../helpers/wizard.js';

let env: TestEnv;
let docs: ReturnType<typeof docsDir>;
beforeAll(async () => {
  env = await testEnv();
  docs = docsDir();
});
afterAll(async () => {
  await env.close();
  docs.cleanup();
});

const client = () => envClient(env);
const total = async () => (await env.call('GET', '/v1/submerchants')).body.pagination.total as number;
const person = (script: Record<string, unknown>, asked?: Asked[], onAsk?: (a: Asked) => Promise<void>) => scripted(docs.dir, script, { asked, onAsk });
const pf = (over: Record<string, unknown> = {}) => pfScript(nextCpf(), { 'submerchant.birth_date': '12/04/1985', ...over });

async function onboard(p: prompter.Prompter, o: { t?: unknown } = {}) {
  const io = bufferIO();
  const recorded = new Answers();
  const sub = await runOnboarding({ client: client(), io, prompter: p, recorded, paint: plain, ...(o.t ? { t: o.t } : {}) } as Parameters<typeof runOnboarding>[0]);
  return { sub, io, recorded };
}

describe('every answer is reviewed before anything is created', () => {
  it('the review lists the answers while nothing exists yet; "create" creates it', async () => {
    const before = await total();
    let atReview: number | undefined;
    const asked: Asked[] = [];
    const { sub, io } = await onboard(
      person(pf(), asked, async (a) => {
        if (a.path === '(review)') atReview = await total();
      }),
    );
    expect(asked.map((a) => a.path)).toContain('(review)');
    expect(atReview).toBe(before); // nothing created when the review is shown
    expect(sub.status).toBe('under_review');
    const review = io.stderr.slice(io.stderr.indexOf('Review — nothing has been created yet'));
    expect(review).toMatch(/Trade name\s+Ana Doces/);
    expect(review).toMatch(/CEP\s+01310-100/);
    expect(review).toMatch(/front of the ID document\s+\S*front\.png/);
    expect(io.stderr.indexOf('Review — nothing has been created yet')).toBeLessThan(io.stderr.indexOf('submerchant created'));
  });

  it('money answers are reviewed as R$, however they were typed', async () => {
    const { io, sub } = await onboard(person(pf({ 'submerchant.average_ticket': '45,5', 'submerchant.monthly_revenue': '1500000' })));
    expect(sub).toMatchObject({ average_ticket: '4550', monthly_revenue: '150000000' });
    const review = io.stderr.slice(io.stderr.indexOf('Review — nothing has been created yet'));
    expect(review).toMatch(/Average ticket\s+R\$ 45,50\n/);
    expect(review).toMatch(/Monthly revenue\s+R\$ 1\.500\.000,00\n/);
  });

  it('any answer can be changed from the review', async () => {
    const { sub } = await onboard(person(pf({ '(review)': ['edit', 'create'], '(review).edit': 'submerchant.trade_name', 'submerchant.trade_name': ['Ana', 'Ana Doces e Salgados'] })));
    expect(sub.trade_name).toBe('Ana Doces e Salgados');
  });

  it('cancel at the review creates nothing (exit 1, cancelled)', async () => {
    const before = await total();
    await expect(onboard(person(pf({ '(review)': 'cancel' })))).rejects.toMatchObject({ code: 'cancelled' });
    expect(await total()).toBe(before);
  });

  it('the cancel is said in the wizard\'s language; a JSON report keeps the English message', async () => {
    const { describeError, errorReport } = await import('../../src/cli/errors.js');
    const err = await onboard(person(pf({ '(review)': 'cancel' })), { t: locale.catalogue('pt-BR') }).catch((e: unknown) => e);
    expect(describeError(err)).toBe('erro: cancelado: o cadastro não foi feito');
    expect(errorReport(err)).toMatchObject({ error: 'cancelled', message: 'cancelled: the onboarding was not done' });
    const en = await onboard(person(pf({ '(review)': 'cancel' }))).catch((e: unknown) => e);
    expect(describeError(en)).toBe('error: cancelled: the onboarding was not done');
  });
});

describe('going back to the previous question', () => {
  it('< asks the previous question again with its answer to edit; the first question cannot go back', async () => {
    const asked: Asked[] = [];
    const { sub } = await onboard(person(pf({ 'submerchant.trade_name': ['Ana', 'Ana Doces'], 'submerchant.legal_name': [BACK, 'Ana Souza'] }), asked));
    expect(sub.trade_name).toBe('Ana Doces');
    const names = asked.filter((a) => a.path === 'submerchant.trade_name');
    expect(names).toHaveLength(2);
    expect(names[1]!.q.prefill).toBe('Ana');
    expect(asked[0]).toMatchObject({ path: 'entity_type' });
    expect(asked[0]!.q.back).toBeFalsy();
    expect(asked[1]!.q.back).toBe(true);
  });

  it('back from the submerchant to the entity type switches the questions', async () => {
    const { sub } = await onboard(
      person(
        pf({
          entity_type: ['pf', 'pj'],
          'submerchant.trade_name': [BACK, 'Padaria Boa'],
          'submerchant.legal_name': 'Padaria Boa LTDA',
          'submerchant.tax_id': nextCnpj(),
          'submerchant.birth_date': undefined,
          ...pjExtras(nextCpf()),
        }),
      ),
    );
    expect(sub).toMatchObject({ entity_type: 'pj', trade_name: 'Padaria Boa', status: 'under_review' });
  });
});

describe('a tax id of the other entity type', () => {
  it('a CNPJ typed after choosing pf offers to switch to pj instead of failing', async () => {
    const cnpj = nextCnpj();
    const asked: Asked[] = [];
    const { sub, recorded } = await onboard(
      person(
        pf({
          'submerchant.legal_name': 'Ana Doces LTDA',
          'submerchant.tax_id': cnpj,
          'submerchant.(switch entity)': 'true',
          ...pjExtras(nextCpf()),
        }),
        asked,
      ),
    );
    const offer = asked.find((a) => a.path === 'submerchant.(switch entity)')!;
    expect(offer.q.message).toBe('That is a CNPJ (a company). Switch to pj — a company and keep it?');
    expect(sub).toMatchObject({ entity_type: 'pj', tax_id: cnpj, status: 'under_review' });
    expect(recorded.doc.entity_type).toBe('pj');
    expect(recorded.doc.submerchant).not.toHaveProperty('birth_date'); // a pf answer the pj does not take
  });

  it('declining asks the CPF again', async () => {
    const cpf = nextCpf();
    const { sub } = await onboard(person(pf({ 'submerchant.tax_id': [nextCnpj(), cpf], 'submerchant.(switch entity)': 'false' })));
    expect(sub).toMatchObject({ entity_type: 'pf', tax_id: cpf });
  });
});

describe('dates asked as DD/MM/AAAA are explained as DD/MM/AAAA; a person must be 18', () => {
  const ctx = (now: string, t = locale.en) => ({ t, now: new Date(now), interactive: true });
  const birth = (c: ReturnType<typeof ctx>) => submerchantFields('pf', c).find((f) => f.key === 'birth_date')!;

  it('an impossible date, a future one, and one under 18 (on the São Paulo date), in the form asked', () => {
    const f = birth(ctx('2026-06-15T02:00:00Z'));
    expect(f.validate('31/02/1985')).toBe('Birth date 31/02/1985 does not exist on the calendar (DD/MM/AAAA)');
    expect(f.validate('1985-02-31')).toBe('Birth date 31/02/1985 does not exist on the calendar (DD/MM/AAAA)');
    expect(f.validate('01/01/2030')).toBe('Birth date 01/01/2030 is in the future (today is 14/06/2026)');
    expect(f.validate('15/06/2008')).toBe('Birth date 15/06/2008: a person must be 18 or older; born on 15/06/2008, they are 17 today (14/06/2026) and turn 18 on 15/06/2026');
    expect(f.validate('14/06/2008')).toBe(true);
    expect(f.validate('April 12')).toBe('Birth date must be a date as DD/MM/AAAA, e.g. 12/04/1985');
  });

  it('in pt-BR', () => {
    const f = birth(ctx('2026-06-15T02:00:00Z', locale.catalogue('pt-BR')));
    expect(f.validate('31/02/1985')).toBe('Data de nascimento 31/02/1985 não existe no calendário (DD/MM/AAAA)');
    expect(f.validate('15/06/2008')).toBe('Data de nascimento 15/06/2008: é preciso ter 18 anos ou mais; quem nasceu em 15/06/2008 tem 17 anos hoje (14/06/2026) e faz 18 em 15/06/2026');
  });

  it('a birth date under 18 is refused while it is typed, and the next one taken', async () => {
    const young = await onboard(person(pf({ 'submerchant.birth_date': ['01/01/2015', '12/04/1985'] })));
    expect(young.sub.birth_date).toBe('1985-04-12');
  });
});

describe('yes/no takes only yes or no', () => {
  it('in pt-BR: s/sim/n/não; any other text is refused, not taken as "no"', async () => {
    const t = locale.catalogue('pt-BR');
    const q: prompter.Question = { path: ['partners', 1], kind: 'more', message: 'Adicionar outro sócio?', required: false, default: false, back: true };
    const { answer, events, getScreen } = await render(textPrompt, prompter.yesNoConfig(q, t));
    expect(getScreen()).toContain('Adicionar outro sócio? (s/N)');
    expect(getScreen()).toContain('Enter confirma · < e Enter: pergunta anterior · Ctrl-C interrompe');
    events.type('talvez');
    events.keypress('enter');
    await tick();
    expect(getScreen()).toContain('Responda s (sim) ou n (não)');
    for (let i = 0; i < 6; i++) events.keypress('backspace');
    events.type('sim');
    events.keypress('enter');
    await expect(answer).resolves.toBe('sim');
    expect(prompter.yesNo('sim', t)).toBe(true);
    expect(prompter.yesNo('Não', t)).toBe(false);
    expect(prompter.yesNo('yes', t)).toBeNull();
    expect(prompter.yesNo('yes', locale.en)).toBe(true);
    expect(prompter.yesNo('nope', locale.en)).toBeNull();
  });
});

describe('the language', () => {
  it('pt_BR in LC_ALL, LC_MESSAGES or LANG (in that order) is Portuguese; --lang overrides', () => {
    expect(locale.detectLang({ LANG: 'pt_BR.UTF-8' })).toBe('pt-BR');
    expect(locale.detectLang({ LC_MESSAGES: 'pt_BR', LANG: 'en_US.UTF-8' })).toBe('pt-BR');
    expect(locale.detectLang({ LC_ALL: 'C.UTF-8', LANG: 'pt_BR.UTF-8' })).toBe('en');
    expect(locale.detectLang({ LANG: 'pt' })).toBe('pt-BR');
    expect(locale.detectLang({ LANG: 'en_US.UTF-8' })).toBe('en');
    expect(locale.detectLang({})).toBe('en');
    expect(locale.detectLang({ LANG: 'pt_BR.UTF-8' }, 'en')).toBe('en');
    expect(locale.detectLang({}, 'pt-BR')).toBe('pt-BR');
    expect(() => locale.detectLang({}, 'fr')).toThrow(/--lang must be pt-BR or en/);
  });

  it('questions and the messages under them in Portuguese', () => {
    const t = locale.catalogue('pt-BR');
    const fields = submerchantFields('pf', { t, now: new Date(), interactive: false });
    expect(fields.map((f) => f.message).slice(0, 4)).toEqual(['Nome fantasia', 'Nome completo (como no CPF)', 'CPF', 'E-mail']);
    const cpf = fields.find((f) => f.key === 'tax_id')!;
    expect(cpf.validate('529.982.247-24')).toBe('CPF não é um CPF válido (os dígitos verificadores não conferem)');
    expect(fields.find((f) => f.key === 'email')!.validate('ana@')).toBe('E-mail deve ser um e-mail válido');
  });

  it('a pt-BR session speaks Portuguese from the first question to the checklist', async () => {
    const asked: Asked[] = [];
    const { io } = await onboard(person(pf(), asked), { t: locale.catalogue('pt-BR') });
    expect(asked[0]!.q.message).toBe('Tipo de pessoa');
    expect(io.stderr).toContain('Revisão — nada foi cadastrado ainda');
    expect(io.stderr).toContain('Pendências (completo, situação under_review)');
    expect(io.stderr).toContain('Cadastro completo');
  });

  it('--lang with another language is a usage error', async () => {
    const target = async (): Promise<Target> => ({ kind: 'embedded', profileName: 't', client: client(), close: async () => undefined });
    await expect(submerchantsOnboard({}, { lang: 'fr' } as never, { io: bufferIO({ tty: true }), openTarget: target }, { prompter: person({}) })).rejects.toMatchObject({ exitCode: 2 });
  });
});
