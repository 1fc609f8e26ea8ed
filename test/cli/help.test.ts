import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { allSpecs } from '../../src/cli/specs.js';

/** Help that helps: groups say what they are for, every flag is described, `help X Y` works. */
async function run(args: string[]) {
  const io = bufferIO({ env: { NO_COLOR: '1' } });
  const code = await main(args, io, async () => {
    throw new Error('help makes no request');
  });
  return { code, out: io.stdout, err: io.stderr };
}

/** The option lines of a help text's "Options:" / "Global Options:" sections, as [flags, description]. */
function options(help: string, section = 'Options:'): [string, string][] {
  const start = help.indexOf(`\n${section}\n`);
  if (start < 0) return [];
  const rows: [string, string][] = [];
  for (const line of help.slice(start + section.length + 2).split('\n')) {
    if (!line.startsWith('  ')) break;
    const m = /^ {2}(-\S.*?)(?: {2,}(.*))?$/.exec(line);
    if (m) rows.push([m[1]!.trim(), (m[2] ?? '').trim()]);
    else if (rows.length) rows[rows.length - 1]![1] += ' ' + line.trim();
  }
  return rows;
}

const groups = [...new Set(allSpecs().map((s) => s.command.slice(0, -1).join(' ')).filter(Boolean))];

describe('group help says what each group is for', () => {
  it('no "X commands" placeholder, in the program help or any group help', async () => {
    const top = await run(['--help']);
    expect(top.out).not.toMatch(/^\s+\S+\s+\S+ commands$/m);
    expect(top.out).toMatch(/charges\s+Charges: card, PIX and boleto payments, refunds/);
    for (const g of groups) {
      const r = await run([...g.split(' '), '--help']);
      expect(r.code, g).toBe(0);
      expect(r.out, g).not.toMatch(new RegExp(`^${g.split(' ').pop()} commands$`, 'm'));
    }
  });
});

describe('every flag of every leaf is described, with units, values and defaults', () => {
  it('each option has a description', async () => {
    for (const s of allSpecs()) {
      const r = await run([...s.command, '--help']);
      for (const [flag, desc] of options(r.out)) expect(desc, `${s.command.join(' ')} ${flag}`).not.toBe('');
    }
  });

  it('money flags say cents; choices, ranges and defaults are shown', async () => {
    const h = (await run(['charges', 'create', '--help'])).out;
    const o = Object.fromEntries(options(h).map(([f, d]) => [f.split(' ')[0], d]));
    expect(o['--amount']).toMatch(/cents/);
    expect(o['--amount']).toMatch(/required/);
    expect(o['--shipping-amount']).toMatch(/cents/);
    expect(o['--product-type']).toMatch(/physical, digital/);
    expect(o['--payment-details.installments']).toMatch(/1.*12/);
    expect(o['--customer.email']).not.toBe('');
    const w = Object.fromEntries(options((await run(['sandbox', 'advance', '--help'])).out).map(([f, d]) => [f.split(' ')[0], d]));
    expect(w['--days']).toMatch(/days/);
    const l = Object.fromEntries(options((await run(['keys', 'list', '--help'])).out).map(([f, d]) => [f.split(' ')[0], d]));
    expect(l['--per-page']).toMatch(/1.*100.*default 20/);
    // a number's default is a number, not a quoted string
    const c = Object.fromEntries(options((await run(['charges', 'create', '--help'])).out).map(([f, d]) => [f.split(' ')[0], d]));
    expect(c['--timeout']).toMatch(/in seconds \(default 300\)/);
    expect(c['--timeout']).not.toContain('"300"');
  });

  it('global flags are listed under every leaf', async () => {
    for (const args of [['charges', 'create'], ['keys', 'list'], ['profiles', 'add'], ['smoke']]) {
      const g = options((await run([...args, '--help'])).out, 'Global Options:').map(([f]) => f);
      expect(g.join(' '), args.join(' ')).toMatch(/--output/);
      expect(g.join(' ')).toMatch(/--profile/);
      expect(g.join(' ')).toMatch(/--yes/);
    }
  });
});

describe('help as a command, and unknown verbs', () => {
  it('`mpay help charges create` shows the leaf help', async () => {
    const a = await run(['help', 'charges', 'create']);
    const b = await run(['charges', 'create', '--help']);
    expect(a.code).toBe(0);
    expect(a.out).toContain('Usage: mpay charges create');
    expect(a.out).toBe(b.out);
  });

  it('`mpay links delete --help` is an unknown command with a suggestion, exit 2', async () => {
    const r = await run(['links', 'delete', '--help']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/unknown command 'delete'/);
    expect(r.err).toMatch(/Did you mean/);
    const h = await run(['help', 'links', 'delet']);
    expect(h.code).toBe(2);
    expect(h.err).toMatch(/unknown command 'delet'/);
  });

  it("a group's verb typed without its group names the command it belongs to", async () => {
    const r = await run(['onboard', '--help']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command 'onboard' for 'mpay'");
    expect(r.err).toContain('(Did you mean mpay submerchants onboard?)');
    // a word no group has keeps the list of commands
    expect((await run(['frobnicate'])).err).toMatch(/Did you mean one of: .*charges/);
  });
});
