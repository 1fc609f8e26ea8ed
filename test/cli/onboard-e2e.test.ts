import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';
import { realJpeg, realPdf, realPng } from '../helpers/files.js';
import { tmuxMpay } from '../helpers/tmux.js';

const homes: ReturnType<typeof cliHome>[] = [];
const newHome = () => {
  const h = cliHome();
  homes.push(h);
  const docs = join(h.dir, 'docs');
  mkdirSync(docs, { recursive: true });
  writeFileSync(join(docs, 'rg-frente.png'), realPng());
  writeFileSync(join(docs, 'rg-verso.jpg'), realJpeg());
  writeFileSync(join(docs, 'contrato.pdf'), realPdf());
  writeFileSync(join(docs, 'virus.pdf'), Buffer.from('MZ\x90\x00 definitely not a PDF'));
  return h;
};
afterAll(() => homes.forEach((h) => h.cleanup()));

const pfAnswers = (over: Record<string, unknown> = {}) => ({
  entity_type: 'pf',
  submerchant: { trade_name: 'Ana Doces', legal_name: 'Ana Souza', tax_id: '529.982.247-25', email: 'ana@example.com', birth_date: '1985-04-12', average_ticket: '1.500,00' },
  address: { zip_code: '01310-100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
  documents: { front_id: 'docs/rg-frente.png', back_id: 'docs/rg-verso.jpg', selfie_with_id: 'docs/rg-frente.png', proof_of_residence: 'docs/contrato.pdf' },
  ...over,
});

const pjAnswers = () => ({
  entity_type: 'pj',
  submerchant: { trade_name: 'Padaria Boa', legal_name: 'Padaria Boa LTDA', tax_id: '11.222.333/0001-81', email: 'fin@padariaboa.com.br', cnae: '4721-1/02', mcc: '5462' },
  address: { zip_code: '01310100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
  partners: [
    {
      name: 'Ana Souza',
      document: '529.982.247-25',
      birth_date: '1985-04-12',
      participation_percentage: 60,
      is_admin: true,
      documents: {
        partner_front_id: 'docs/rg-frente.png',
        partner_back_id: 'docs/rg-verso.jpg',
        partner_selfie_with_id: 'docs/rg-frente.png',
        partner_proof_of_residence: 'docs/contrato.pdf',
      },
    },
  ],
  documents: { social_contract: 'docs/contrato.pdf', cnpj_card: 'docs/contrato.pdf', proof_of_residence_company: 'docs/contrato.pdf' },
});

function writeAnswers(h: ReturnType<typeof cliHome>, name: string, doc: unknown): string {
  const f = join(h.dir, name);
  writeFileSync(f, JSON.stringify(doc, null, 2));
  return f;
}

describe('--from-file replays through the real binary, without a prompt', () => {
  it('pf → under_review; the record alone on stdout (JSON when piped), the checklist on stderr', () => {
    const h = newHome();
    const r = h.run(['submerchants', 'onboard', '--from-file', writeAnswers(h, 'pf.json', pfAnswers())]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ entity_type: 'pf', tax_id: '52998224725', status: 'under_review', average_ticket: '150000' });
    expect(r.stderr).toContain('✗ front_id — front of the ID document');
    expect(r.stderr).toMatch(/Checklist \(complete, status under_review\)/);
    expect(r.stderr).toContain('uploaded rg-verso.jpg');
  });

  it('pj with a partner → under_review, partner documents linked to the partner', () => {
    const h = newHome();
    const saved = join(h.dir, 'out', 'saved.json');
    const r = h.run(['submerchants', 'onboard', '--from-file', writeAnswers(h, 'pj.json', pjAnswers()), '--save-answers', saved]);
    expect(r.code, r.stderr).toBe(0);
    const sub = r.json();
    expect(sub).toMatchObject({ entity_type: 'pj', status: 'under_review', mcc: '5462' });
    const partners = h.run(['submerchants', 'partners', 'list', sub.id]).json();
    expect(partners).toMatchObject([{ name: 'Ana Souza', document: '52998224725', participation_percentage: 60, is_admin: true }]);
    const docs = h.run(['submerchants', 'docs', 'list', sub.id, '--per-page', '100']).json();
    expect(docs.filter((d: { legal_representative_id: string | null }) => d.legal_representative_id === partners[0].id)).toHaveLength(4);

    // round trip: the saved answers replay in a fresh sandbox to the same result
    expect(JSON.parse(readFileSync(saved, 'utf8'))).toMatchObject({
      mpay_onboarding: 1,
      entity_type: 'pj',
      partners: [{ document: '529.982.247-25', documents: { partner_back_id: join('..', 'docs', 'rg-verso.jpg') } }],
    });
    const fresh = newHome();
    const copy = join(fresh.dir, 'out');
    mkdirSync(copy);
    writeFileSync(join(copy, 'saved.json'), readFileSync(saved));
    const again = fresh.run(['submerchants', 'onboard', '--from-file', join(copy, 'saved.json'), '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ entity_type: 'pj', status: 'under_review', tax_id: '11222333000181' });
    expect(again.stderr).toBe('');
  });

  it('resumes an existing submerchant with --id from what is missing', () => {
    const h = newHome();
    const created = h.run(['submerchants', 'create', '--entity-type', 'pf', '--trade-name', 'Ana', '--legal-name', 'Ana Souza', '--tax-id', '52998224725', '--email', 'a@example.com']);
    expect(created.code, created.stderr).toBe(0);
    const id = created.json().id;
    const { address, documents } = pfAnswers();
    const r = h.run(['submerchants', 'onboard', '--id', id, '--from-file', writeAnswers(h, 'rest.json', { address, documents })]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ id, status: 'under_review' });
    expect(r.stderr).toContain('Resuming Ana (pf, 52998224725)');
  });

  it('a missing or invalid answer is exit 2 naming the field, and nothing is created', () => {
    const h = newHome();
    const noEmail = pfAnswers();
    delete (noEmail.submerchant as Record<string, unknown>).email;
    const a = h.run(['submerchants', 'onboard', '--from-file', writeAnswers(h, 'a.json', noEmail)]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('missing answer submerchant.email');
    const badCpf = pfAnswers();
    badCpf.submerchant.tax_id = '529.982.247-24';
    const b = h.run(['submerchants', 'onboard', '--from-file', writeAnswers(h, 'b.json', badCpf)]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('submerchant.tax_id: CPF is not a valid CPF (the check digits do not match)');
    const badFile = pfAnswers();
    badFile.documents.back_id = 'docs/virus.pdf';
    const c = h.run(['submerchants', 'onboard', '--from-file', writeAnswers(h, 'c.json', badFile)]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('documents.back_id: virus.pdf is not a PDF, PNG or JPEG file');
    const d = h.run(['submerchants', 'onboard', '--from-file', join(h.dir, 'nope.json')]);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('cannot read it (ENOENT)');
    expect(h.run(['submerchants', 'list']).json()).toEqual([]);
  });

  it('without a terminal and without --from-file it exits 2 naming --from-file, before touching anything', () => {
    const h = newHome();
    const r = h.run(['submerchants', 'onboard']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--from-file FILE');
    expect(r.stdout).toBe('');
    expect(existsSync(join(h.dir, 'data'))).toBe(false);
  });
});

describe('start-up stays cheap', () => {
  const HOOK = join(__dirname, '../fixtures/trace-imports.mjs');
  const loaded = (h: ReturnType<typeof cliHome>, args: string[], name: string) => {
    const file = join(h.dir, `${name}.trace`);
    // the modules the process loads, the bundle's lazy inits as bundle:<path> (see test/cli/startup.test.ts)
    const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], { env: { ...h.env, MPAY_TRACE_FILE: file }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return readFileSync(file, 'utf8').trim().split('\n');
  };
  const onboarding = (mods: string[]) => mods.filter((m) => m.startsWith('bundle:src/cli/onboard/'));

  it('other commands do not load the onboarding; a replay does not load the prompts', () => {
    const h = newHome();
    const read = loaded(h, ['submerchants', 'list', '-o', 'json'], 'list');
    expect(onboarding(read)).toEqual([]);
    const replay = loaded(h, ['submerchants', 'onboard', '--from-file', writeAnswers(h, 'pf.json', pfAnswers()), '-q'], 'replay');
    expect(onboarding(replay)).toContain('bundle:src/cli/onboard/flow.ts');
    expect(replay.filter((m) => m.includes('node_modules/@inquirer'))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// A real terminal: tmux runs the binary in a pseudo-terminal; we type with send-keys and read
// the screen with capture-pane.
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
if (!hasTmux && process.env.CI) {
  describe('a real terminal (tmux)', () => {
    it('tmux must be installed in CI (.ci/run installs it)', () => {
      expect.fail('tmux is not installed, but CI is set: the interactive onboarding must be tested through a real terminal');
    });
  });
} else if (!hasTmux) {
  describe.skip('a real terminal (tmux is not installed here; CI installs it)', () => {
    it('skipped', () => undefined);
  });
} else {
  describe('a real terminal (tmux send-keys / capture-pane)', () => {
    it('pf: an invalid CPF is refused inline, the flow completes under_review, and its saved answers replay', async () => {
      const h = newHome();
      const sock = join(h.dir, 'tmux.sock');
      const env = { ...h.env, TERM: 'xterm-256color', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
      const tmux = (...args: string[]) => spawnSync('tmux', ['-u', '-S', sock, ...args], { encoding: 'utf8', env });
      const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      const vars = Object.entries(env)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${q(v!)}`)
        .join(' ');
      const cmd = `cd ${q(h.dir)} && env ${vars} ${q(process.execPath)} ${q(BIN)} submerchants onboard --save-answers answers.json; echo "EXIT=$?"; sleep 600`;
      const started = tmux('new-session', '-d', '-s', 'ob', '-x', '120', '-y', '40', cmd);
      expect(started.status, started.stderr).toBe(0);
      const screen = () => tmux('capture-pane', '-p', '-t', 'ob', '-S', '-500').stdout;
      const waitFor = async (what: string | RegExp, ms = 20_000) => {
        const until = Date.now() + ms;
        for (;;) {
          const s = screen();
          if (typeof what === 'string' ? s.includes(what) : what.test(s)) return s;
          if (Date.now() > until) throw new Error(`the terminal never showed ${String(what)}; it shows:\n${s}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const type = (s: string) => tmux('send-keys', '-t', 'ob', '-l', s);
      const key = (k: string) => tmux('send-keys', '-t', 'ob', k);
      const answer = async (prompt: string, value: string) => {
        await waitFor(`? ${prompt}`);
        if (value) type(value);
        key('Enter');
      };
      try {
        await waitFor('? Entity type');
        key('Enter'); // pf, the first choice
        await answer('Trade name', 'Ana Doces');
        await answer('Full name', 'Ana Souza');
        await waitFor('? CPF');
        type('529.982.247-24');
        key('Enter');
        const refused = await waitFor('CPF is not a valid CPF (the check digits do not match)');
        expect(refused).toContain('? CPF 529.982.247-24'); // still on the field, value kept to be fixed
        key('BSpace');
        type('5');
        await waitFor('529.982.247-25 ✓'); // valid as typed, before Enter
        key('Enter');
        await answer('E-mail', 'ana@example.com');
        await answer('Phone', '');
        await answer('Birth date', '12/04/1985'); // as Brazilians write it
        await answer("Mother's name", 'Maria Souza');
        await answer('MCC', '');
        await answer('Text on the card statement', '');
        await answer('Average ticket', '');
        await answer('Monthly revenue', '');
        await answer('CEP', '01310-100');
        await answer('Street', 'Av. Paulista');
        await answer('Number', '1000');
        await answer('Complement', '');
        await answer('Neighborhood', 'Bela Vista');
        await answer('City', 'São Paulo');
        await answer('State', 'SP');
        // Tab completes paths like a shell: a directory, then a unique file name
        await waitFor('? front_id');
        type('do');
        key('Tab');
        await waitFor('docs/');
        type('rg-f');
        key('Tab');
        await waitFor('docs/rg-frente.png');
        key('Enter');
        await answer('back_id', 'docs/rg-verso.jpg');
        await answer('selfie_with_id', 'docs/rg-frente.png');
        await answer('proof_of_residence', '~/docs/contrato.pdf'); // ~ is the home directory (HOME is this dir)
        // every answer on screen, nothing created yet; Enter on "Create the submerchant…"
        const review = await waitFor('? What now?');
        expect(review).toContain('Review — nothing has been created yet');
        expect(review).toMatch(/CPF\s+529\.982\.247-25/);
        expect(h.run(['submerchants', 'list']).json()).toEqual([]);
        key('Enter');
        await waitFor('✓ submerchant created');
        const end = await waitFor(/EXIT=\d+/, 30_000);
        expect(end, end).toContain('EXIT=0');
        expect(end).toContain('Onboarding complete');
        expect(end).toMatch(/│ status\s+│ under_review/); // the record as a table on the terminal
        expect(end).toContain('Answers saved to answers.json');
      } finally {
        tmux('kill-server');
      }
      const list = h.run(['submerchants', 'list']).json();
      expect(list).toMatchObject([{ tax_id: '52998224725', status: 'under_review', mother_name: 'Maria Souza', birth_date: '1985-04-12' }]);
      // the recorded session replays without a terminal in a fresh sandbox
      const saved = JSON.parse(readFileSync(join(h.dir, 'answers.json'), 'utf8'));
      expect(saved).toMatchObject({ entity_type: 'pf', submerchant: { tax_id: '529.982.247-25' }, documents: { front_id: join('docs', 'rg-frente.png') } });
      const fresh = newHome();
      writeFileSync(join(fresh.dir, 'answers.json'), JSON.stringify(saved));
      const replay = fresh.run(['submerchants', 'onboard', '--from-file', join(fresh.dir, 'answers.json')]);
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.json()).toMatchObject({ status: 'under_review', mother_name: 'Maria Souza' });
    }, 90_000);

    it('pt-BR from LANG: going back, the switch a CNPJ offers, yes/no, dates as DD/MM/AAAA, the review and an edit', async () => {
      const h = newHome();
      // the locale decides the language; LC_ALL empty leaves it to LANG
      const t = tmuxMpay(h.dir, h.env, ['submerchants', 'onboard'], { cwd: h.dir, width: 140, height: 50, locale: { LANG: 'pt_BR.UTF-8', LC_ALL: '' } });
      const { waitFor, type } = t;
      const key = (...k: string[]) => t.keys(...k);
      const erase = (n: number) => key(...Array.from({ length: n }, () => 'BSpace'));
      const answer = async (prompt: string, value: string) => {
        await waitFor(`? ${prompt}`);
        if (value) type(value);
        key('Enter');
      };
      try {
        await waitFor('? Tipo de pessoa');
        key('Enter'); // pf
        await answer('Nome fantasia', 'Ana');
        // back: the previous question again, its answer ready to edit
        const help = await waitFor('? Nome completo');
        expect(help).toContain('Enter confirma · < e Enter: pergunta anterior · Ctrl-C interrompe');
        type('<');
        key('Enter');
        const back = await waitFor(/\? Nome fantasia Ana( ✓)?\s*\n/);
        expect(back).toContain('✔ Nome completo (como no CPF) ← Pergunta anterior');
        type(' Doces');
        key('Enter');
        await answer('Nome completo', 'Ana Souza');
        // a CNPJ where a CPF is asked: an offer to switch to pj, answered only by s or n
        await answer('CPF', '11.222.333/0001-81');
        await waitFor('? Isso é um CNPJ (de empresa). Mudar para pj — pessoa jurídica e mantê-lo? (S/n)');
        type('talvez');
        key('Enter');
        await waitFor('Responda s (sim) ou n (não)');
        erase(6);
        type('n');
        key('Enter');
        await waitFor(/\? CPF 11\.222\.333\/0001-81( ✓)?\s*\n/); // asked again, the CNPJ ready to fix
        erase(18);
        type('529.982.247-25');
        key('Enter');
        await answer('E-mail', 'ana@example.com');
        await answer('Telefone', '');
        await waitFor('? Data de nascimento');
        type('31/02/1985');
        key('Enter');
        await waitFor('Data de nascimento 31/02/1985 não existe no calendário (DD/MM/AAAA)');
        erase(10);
        type('12/04/2015');
        key('Enter');
        await waitFor(/Data de nascimento 12\/04\/2015: é preciso ter 18 anos ou mais; quem nasceu em 12\/04\/2015 tem \d+ anos hoje \(\d\d\/\d\d\/\d{4}\)\s+e\s+faz\s+18\s+em\s+12\/04\/2033/);
        erase(10);
        type('12/04/1985');
        key('Enter');
        for (const p of ['Nome da mãe', 'MCC', 'Nome na fatura', 'Ticket médio', 'Faturamento mensal']) await answer(p, '');
        await answer('CEP', '01310-100');
        await answer('Logradouro', 'Av. Paulista');
        await answer('Número', '1000');
        await answer('Complemento', '');
        await answer('Bairro', 'Bela Vista');
        await answer('Cidade', 'São Paulo');
        await answer('Estado', 'SP');
        await answer('front_id — frente do documento de identidade: arquivo', 'docs/rg-frente.png');
        await answer('back_id', 'docs/rg-verso.jpg');
        await answer('selfie_with_id', 'docs/rg-frente.png');
        await answer('proof_of_residence', 'docs/contrato.pdf');
        const review = await waitFor('? E agora?');
        expect(review).toContain('Revisão — nada foi cadastrado ainda');
        expect(review).toMatch(/Nome fantasia\s+Ana Doces/);
        expect(h.run(['submerchants', 'list']).json()).toEqual([]);
        // change an answer: the second one listed is the trade name
        key('Down');
        key('Enter');
        await waitFor('? Qual resposta?');
        key('Down');
        key('Enter');
        await waitFor(/\? Nome fantasia Ana Doces( ✓)?\s*\n/);
        type(' e Salgados');
        key('Enter');
        await waitFor(/Nome fantasia\s+Ana Doces e Salgados/);
        await waitFor('? E agora?');
        key('Enter');
        const end = await waitFor(/EXIT=\d+/, 30_000);
        expect(end, end).toContain('EXIT=0');
        expect(end).toContain('Cadastro completo');
      } finally {
        t.kill();
      }
      expect(h.run(['submerchants', 'list']).json()).toMatchObject([{ trade_name: 'Ana Doces e Salgados', tax_id: '52998224725', entity_type: 'pf', status: 'under_review' }]);
    }, 120_000);

    it('pt-BR: Ctrl-C says it stopped in Portuguese, exit 130', async () => {
      const h = newHome();
      const t = tmuxMpay(h.dir, h.env, ['submerchants', 'onboard'], { cwd: h.dir, width: 120, height: 30, locale: { LANG: 'pt_BR.UTF-8', LC_ALL: '' } });
      try {
        await t.waitFor('? Tipo de pessoa');
        t.keys('C-c');
        expect(await t.exitCode()).toBe(130);
        const screen = t.screen();
        expect(screen).toContain('erro: interrompido (Ctrl-C)');
        expect(screen).not.toContain('interrupted');
      } finally {
        t.kill();
      }
    }, 60_000);
  });
}
