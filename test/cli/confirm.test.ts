import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_FLAGS, cliCardCharge, cliHome, itemFlags } from '../helpers/cli.js';
import { hasTmux, tmuxMpay } from '../helpers/tmux.js';

/**
 * Every irreversible verb (refund, delete, revoke, withdrawal create) confirms on a terminal,
 * showing what it acts on, and needs --yes elsewhere (exit 2, nothing changed). Secrets shown
 * once say so on stderr.
 */
const home = cliHome();
afterAll(() => home.cleanup());

const cardCharge = (amount: number, plan?: string[]) => cliCardCharge(home, amount, plan);
const chargeStatus = (id: string) => home.run(['charges', 'get', id]).json().status;

beforeAll(() => {
  expect(home.run(['merchant', 'get']).code).toBe(0);
});

describe('off a terminal: --yes or exit 2, nothing changed', () => {
  it('charges refund', () => {
    const id = cardCharge(1500);
    const r = home.run(['charges', 'refund', id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(chargeStatus(id)).toBe('captured');
    const y = home.run(['charges', 'refund', id, '--yes']);
    expect(y.code, y.stderr).toBe(0);
    expect(chargeStatus(id)).toBe('refunded');
  });

  it('charges refund --amount refunds part; charges refunds lists them', () => {
    const id = cardCharge(3000);
    expect(home.run(['charges', 'refund', id, '--amount', '1000']).code).toBe(2);
    const y = home.run(['charges', 'refund', id, '--amount', '1000', '--yes']);
    expect(y.code, y.stderr).toBe(0);
    expect(y.json()).toMatchObject({ status: 'captured', refunded_amount: 1000 });
    const bad = home.run(['charges', 'refund', id, '--amount', '2001', '--yes']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('amount');
    const rest = home.run(['charges', 'refund', id, '--yes']);
    expect(rest.json()).toMatchObject({ status: 'refunded', refunded_amount: 3000 });
    const list = home.run(['charges', 'refunds', id]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json().map((r: { amount: number }) => r.amount).sort()).toEqual([1000, 2000]);
  });

  it('withdrawals create', () => {
    cardCharge(5000);
    home.run(['sandbox', 'advance', '--days', '35']); // D+30 moved to a business day: at most D+34
    const wallet = home.run(['wallets', 'list', '--owner-type', 'merchant']).json()[0];
    const args = ['withdrawals', 'create', '--type', 'pix', '--wallet-id', wallet.id, '--amount', '100', '--pix-key', '52998224725', '--pix-key-type', 'cpf', '--idempotency-key', 'confirm-1'];
    const r = home.run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(home.run(['withdrawals', 'list']).json()).toEqual([]);
    const j = home.run([...args, '-o', 'json']);
    expect(JSON.parse(j.stderr.trim())).toMatchObject({ error: 'usage_error', message: expect.stringContaining('--yes') });
    const y = home.run([...args, '--yes']);
    expect(y.code, y.stderr).toBe(0);
    expect(home.run(['withdrawals', 'list']).json()).toHaveLength(1);
  });

  it('webhooks delete and keys revoke', () => {
    const ep = home.run(['webhooks', 'create', '--url', 'https://example.com/del', '--events', '*']).json();
    expect(home.run(['webhooks', 'delete', ep.id]).code).toBe(2);
    expect(home.run(['webhooks', 'get', ep.id]).code).toBe(0);
    const key = home.run(['keys', 'create', '--name', 'keep me']).json();
    expect(home.run(['keys', 'revoke', key.id]).code).toBe(2);
  });
});

describe('webhooks rotate-secret', () => {
  it('needs --yes off a terminal (exit 2, the secret unchanged); with --yes prints the new secret once and the overlap end', () => {
    const ep = home.run(['webhooks', 'create', '--url', 'https://example.com/rot', '--events', '*']).json();
    const r = home.run(['webhooks', 'rotate-secret', ep.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    const y = home.run(['webhooks', 'rotate-secret', ep.id, '--overlap-seconds', '600', '--yes', '-o', 'json']);
    expect(y.code, y.stderr).toBe(0);
    const out = y.json();
    expect(out.secret).toMatch(/^whsec_/);
    expect(out.secret).not.toBe(ep.secret);
    expect(Date.parse(out.previous_secret_expires_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(y.stderr).toMatch(/secret.*shown only now/);
  });
});

describe('secrets shown once say so on stderr', () => {
  it('keys create and webhooks create', () => {
    const k = home.run(['keys', 'create', '--name', 'shown once']);
    expect(k.code).toBe(0);
    expect(k.json().secret_key).toMatch(/^sk_/);
    expect(k.stderr).toMatch(/secret_key.*shown only now/);
    const w = home.run(['webhooks', 'create', '--url', 'https://example.com/once', '--events', '*']);
    expect(w.json().secret).toMatch(/^whsec_/);
    expect(w.stderr).toMatch(/secret.*shown only now/);
    // -q: only data
    expect(home.run(['keys', 'create', '--name', 'quiet', '-q']).stderr).toBe('');
  });
});

describe.runIf(hasTmux)('on a terminal: the confirmation shows what it acts on', () => {
  it('refund shows the amount and the customer; yes refunds', async () => {
    const id = cardCharge(2345);
    const t = tmuxMpay(home.dir, home.env, ['charges', 'refund', id], { name: 'refund' });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/R\$\s?23,45/);
      expect(s).toContain('Ana Souza');
      expect(s).toContain('visa •••• 1111');
      // times as tables print them: São Paulo, with the zone, not raw UTC
      expect(s).toMatch(/created \d{4}-\d{2}-\d{2} \d{2}:\d{2} BRS?T/);
      expect(s).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}Z/);
      t.type('y');
      t.keys('Enter');
      expect(await t.exitCode()).toBe(0);
    } finally {
      t.kill();
    }
    expect(chargeStatus(id)).toBe('refunded');
  }, 40_000);

  it('a partial refund shows the amount of --amount, and what is left after earlier refunds', async () => {
    const id = cardCharge(5000);
    expect(home.run(['charges', 'refund', id, '--amount', '1000', '--yes']).code).toBe(0);
    const t = tmuxMpay(home.dir, home.env, ['charges', 'refund', id, '--amount', '1234'], { name: 'refund-part' });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/Refund R\$\s?12,34/);
      expect(s).toMatch(/already refunded R\$\s?10,00; left R\$\s?40,00/);
      t.type('y');
      t.keys('Enter');
      expect(await t.exitCode()).toBe(0);
    } finally {
      t.kill();
    }
    expect(home.run(['charges', 'get', id]).json().refunded_amount).toBe(2234);
  }, 40_000);

  it('a refund of a charge whose buyer paid interest offers what the buyer paid, interest included', async () => {
    // R$ 100,00 in 12x at the default 1.99 % a month: 12 × R$ 9,45 = R$ 113,40
    const id = cardCharge(10_000, ['--payment-details.installments', '12', '--payment-details.interest', 'buyer']);
    expect(home.run(['charges', 'get', id]).json().total_amount).toBe(11_340);
    expect(home.run(['charges', 'refund', id, '--amount', '1340', '--yes']).code).toBe(0);
    const t = tmuxMpay(home.dir, home.env, ['charges', 'refund', id], { name: 'refund-interest' });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/Refund R\$\s?100,00/);
      expect(s).toMatch(/R\$\s?113,40 by visa/);
      expect(s).toMatch(/already refunded R\$\s?13,40; left R\$\s?100,00/);
      t.type('y');
      t.keys('Enter');
      expect(await t.exitCode()).toBe(0);
    } finally {
      t.kill();
    }
    expect(home.run(['charges', 'get', id]).json()).toMatchObject({ status: 'refunded', refunded_amount: 11_340 });
  }, 40_000);

  it('webhooks delete shows the URL; keys revoke the key name; no keeps them', async () => {
    const ep = home.run(['webhooks', 'create', '--url', 'https://example.com/shown-url', '--events', 'charge.captured']).json();
    const t = tmuxMpay(home.dir, home.env, ['webhooks', 'delete', ep.id], { name: 'wd' });
    try {
      const s = await t.waitFor('?');
      expect(s).toContain('https://example.com/shown-url');
      t.type('n');
      t.keys('Enter');
      expect(await t.exitCode()).toBe(1);
    } finally {
      t.kill();
    }
    expect(home.run(['webhooks', 'get', ep.id]).code).toBe(0);
    const key = home.run(['keys', 'create', '--name', 'billing robot']).json();
    const k = tmuxMpay(home.dir, home.env, ['keys', 'revoke', key.id], { name: 'kr' });
    try {
      const s = await k.waitFor('?');
      expect(s).toContain('billing robot');
      expect(s).toContain(key.public_key);
      expect(s).toMatch(/created \d{4}-\d{2}-\d{2} \d{2}:\d{2} BRS?T/);
      k.keys('Enter'); // the default is no
      expect(await k.exitCode()).toBe(1);
    } finally {
      k.kill();
    }
  }, 40_000);

  it('withdrawals create shows amount, wallet and destination', async () => {
    const wallet = home.run(['wallets', 'list', '--owner-type', 'merchant']).json()[0];
    const t = tmuxMpay(home.dir, home.env, ['withdrawals', 'create', '--type', 'pix', '--wallet-id', wallet.id, '--amount', '250', '--pix-key', '52998224725', '--pix-key-type', 'cpf', '--idempotency-key', 'confirm-tty'], { name: 'wc' });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/R\$\s?2,50/);
      expect(s).toContain('52998224725');
      expect(s).toContain(wallet.id);
      t.type('n');
      t.keys('Enter');
      expect(await t.exitCode()).toBe(1);
    } finally {
      t.kill();
    }
  }, 40_000);
});

// A confirmation takes only yes or no in the language of the locale (the wizard's rule and its
// words: y/yes/n/no, s/sim/n/não); anything else asks again, never counts as "no".
describe.runIf(hasTmux)('on a terminal: only yes or no answers a confirmation', () => {
  const pt = { LANG: 'pt_BR.UTF-8', LC_ALL: '' };
  const keyActive = (id: string) => (home.run(['keys', 'list', '-o', 'json']).json() as { id: string; is_active: boolean }[]).find((k) => k.id === id)?.is_active;
  /**
   * the question shows `hint`; `refused` is refused with `why` and asked again on an empty line
   * (mpay still runs); `answer`, typed straight after, goes ahead (exit 0)
   */
  async function refusedThenAnswered(t: ReturnType<typeof tmuxMpay>, o: { hint: string; refused: string; why: string; answer: string }) {
    expect(await t.waitFor('?')).toContain(o.hint);
    t.type(o.refused);
    t.keys('Enter');
    await t.waitFor(o.why);
    expect(t.screen()).not.toMatch(/EXIT=/);
    t.type(o.answer);
    t.keys('Enter');
    expect(await t.exitCode(), t.screen()).toBe(0);
  }
  it('pt-BR: "talvez" asks again in Portuguese; "sim" revokes', async () => {
    const key = home.run(['keys', 'create', '--name', 'talvez robot']).json();
    const t = tmuxMpay(home.dir, home.env, ['keys', 'revoke', key.id], { name: 'kr-pt', locale: pt });
    try {
      await refusedThenAnswered(t, { hint: '(s/N)', refused: 'talvez', why: 'Responda s (sim) ou n (não)', answer: 'sim' });
    } finally {
      t.kill();
    }
    expect(keyActive(key.id)).toBe(false);
  }, 40_000);

  it('pt-BR: "não" cancels (exit 1)', async () => {
    const key = home.run(['keys', 'create', '--name', 'nao robot']).json();
    const t = tmuxMpay(home.dir, home.env, ['keys', 'revoke', key.id], { name: 'kr-nao', locale: pt });
    try {
      await t.waitFor('?');
      t.type('não');
      t.keys('Enter');
      expect(await t.exitCode(), t.screen()).toBe(1);
    } finally {
      t.kill();
    }
    expect(keyActive(key.id)).toBe(true);
  }, 40_000);

  it('English: "sim" is not an answer (asked again); "yes" voids', async () => {
    const t0 = home.run(['tokens', 'create', '--card.number', '4111111111111111', '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']).json();
    const c = home.run(['charges', 'create', '--amount', '1200', '--product-type', 'digital', '--payment-method', 'credit_card', '--payment-details.token', t0.token, '--payment-details.installments', '1', '--no-capture', ...CUSTOMER_FLAGS, ...itemFlags(1200)]);
    expect(c.code, c.stderr).toBe(0);
    const id = c.json().id;
    const t = tmuxMpay(home.dir, home.env, ['charges', 'void', id], { name: 'cv-en' });
    try {
      await refusedThenAnswered(t, { hint: '(y/N)', refused: 'sim', why: 'Answer y (yes) or n (no)', answer: 'yes' });
    } finally {
      t.kill();
    }
    expect(chargeStatus(id)).toBe('voided');
  }, 40_000);
});

// The question and the facts above it are in the language of the answers (the locale's, as the
// wizard's catalogue has it): pt-BR under a Portuguese locale, English otherwise; money in R$,
// times as the tables print them. Ctrl-C leaves its line in the same language (exit 130).
describe.runIf(hasTmux)('on a terminal: a confirmation speaks the locale’s language', () => {
  const pt = { LANG: 'pt_BR.UTF-8', LC_ALL: '' };
  const c = { LANG: 'C', LC_ALL: '' };

  it('pt-BR: the refund is asked in Portuguese, facts included; "s" refunds', async () => {
    const id = cardCharge(2345);
    const t = tmuxMpay(home.dir, home.env, ['charges', 'refund', id], { name: 'refund-pt', locale: pt });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/Estornar R\$\s?23,45 para Ana Souza\? \(s\/N\)/);
      expect(s).toMatch(new RegExp(`cobrança ${id} \\(captured\\), R\\$\\s?23,45 via visa •••• 1111`));
      expect(s).toMatch(/cliente Ana Souza </);
      expect(s).toMatch(/criada em \d{4}-\d{2}-\d{2} \d{2}:\d{2} BRS?T/);
      expect(s).not.toMatch(/Refund|customer|created/);
      t.type('s');
      t.keys('Enter');
      expect(await t.exitCode(), t.screen()).toBe(0);
    } finally {
      t.kill();
    }
    expect(chargeStatus(id)).toBe('refunded');
  }, 40_000);

  it('LANG=C: the same refund is asked in English', async () => {
    const id = cardCharge(2345);
    const t = tmuxMpay(home.dir, home.env, ['charges', 'refund', id], { name: 'refund-c', locale: c });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/Refund R\$\s?23,45 to Ana Souza\? \(y\/N\)/);
      expect(s).toMatch(/customer Ana Souza </);
      expect(s).toMatch(/created \d{4}-\d{2}-\d{2} \d{2}:\d{2} BRS?T/);
      expect(s).not.toMatch(/Estornar|cobrança/);
      t.keys('Enter'); // no
      expect(await t.exitCode(), t.screen()).toBe(1);
      expect(t.screen()).toMatch(/error: cancelled: mpay charges refund \S+ was not done/);
    } finally {
      t.kill();
    }
    expect(chargeStatus(id)).toBe('captured');
  }, 40_000);

  it('pt-BR: keys revoke and the withdrawal name what they act on in Portuguese', async () => {
    const key = home.run(['keys', 'create', '--name', 'robô de cobrança']).json();
    const k = tmuxMpay(home.dir, home.env, ['keys', 'revoke', key.id], { name: 'kr-pt-words', locale: pt });
    try {
      const s = await k.waitFor('?');
      expect(s).toContain('Revogar a chave de API "robô de cobrança"? O que a usa deixa de funcionar. (s/N)');
      expect(s).toMatch(new RegExp(`chave de API "robô de cobrança" ${key.public_key} \\(ativa\\), criada em \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} BRS?T`));
      k.type('n');
      k.keys('Enter');
      expect(await k.exitCode(), k.screen()).toBe(1);
      // the "no" is said in the question's language too
      expect(k.screen()).toMatch(/erro: cancelado: mpay keys revoke \S+ não foi feito/);
      expect(k.screen()).not.toContain('was not done');
    } finally {
      k.kill();
    }
    const wallet = home.run(['wallets', 'list', '--owner-type', 'merchant']).json()[0];
    const w = tmuxMpay(home.dir, home.env, ['withdrawals', 'create', '--type', 'pix', '--wallet-id', wallet.id, '--amount', '250', '--pix-key', '52998224725', '--pix-key-type', 'cpf', '--idempotency-key', 'confirm-pt'], { name: 'wc-pt', locale: pt });
    try {
      const s = await w.waitFor('?');
      expect(s).toMatch(/Sacar R\$\s?2,50 para chave PIX 52998224725 \(cpf\)\? \(s\/N\)/);
      expect(s).toMatch(new RegExp(`R\\$\\s?2,50 da carteira ${wallet.id}`));
      expect(s).toContain('chave de idempotência confirm-pt');
      w.type('não');
      w.keys('Enter');
      expect(await w.exitCode(), w.screen()).toBe(1);
    } finally {
      w.kill();
    }
  }, 60_000);

  it('pt-BR: profiles remove asks in Portuguese; "s" removes', async () => {
    const add = home.run(['profiles', 'add', 'longe', '--base-url', 'http://127.0.0.1:9', '--public-key', 'pk_test_longe', '--no-verify'], { input: 'sk_test_longe' });
    expect(add.code, add.stderr).toBe(0);
    const t = tmuxMpay(home.dir, home.env, ['profiles', 'remove', 'longe'], { name: 'pr-pt', locale: pt });
    try {
      const s = await t.waitFor('?');
      expect(s).toContain('Remover o perfil "longe"? Esta máquina esquece as chaves dele. (s/N)');
      expect(s).toContain('perfil "longe": http://127.0.0.1:9, chave pk_test_longe');
      t.type('s');
      t.keys('Enter');
      expect(await t.exitCode(), t.screen()).toBe(0);
    } finally {
      t.kill();
    }
    expect(home.run(['profiles', 'show', 'longe']).code).toBe(4);
  }, 40_000);

  it('Ctrl-C at a confirmation: its line in the prompt’s language, exit 130, nothing done', async () => {
    const key = home.run(['keys', 'create', '--name', 'ctrl-c robot']).json();
    for (const [name, locale, line, not] of [
      ['cc-pt', pt, 'erro: interrompido (Ctrl-C)', 'interrupted'],
      ['cc-c', c, 'error: interrupted (Ctrl-C)', 'interrompido'],
    ] as const) {
      const t = tmuxMpay(home.dir, home.env, ['keys', 'revoke', key.id], { name, locale });
      try {
        await t.waitFor('?');
        t.keys('C-c');
        expect(await t.exitCode(), t.screen()).toBe(130);
        expect(t.screen()).toContain(line);
        expect(t.screen()).not.toContain(not);
      } finally {
        t.kill();
      }
    }
    const still = (home.run(['keys', 'list', '-o', 'json']).json() as { id: string; is_active: boolean }[]).find((k) => k.id === key.id);
    expect(still?.is_active).toBe(true);
  }, 60_000);
});
