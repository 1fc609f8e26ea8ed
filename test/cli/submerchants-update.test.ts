import { afterAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());

describe('mpay submerchants update and changes (generated from PATCH /v1/submerchants/{id})', () => {
  it('corrects a pending submerchant with plain flags; null clears an optional field; the changes are listed', () => {
    const made = home.run(['submerchants', 'create', '--entity-type', 'pf', '--trade-name', 'Ana', '--legal-name', 'Ana Souza', '--tax-id', '52998224725', '--email', 'a@example.com', '--mother-name', 'Maria Souza', '-o', 'json']);
    expect(made.code, made.stderr).toBe(0);
    const id = made.json().id;
    const r = home.run(['submerchants', 'update', id, '--legal-name', 'Ana Souza Lima', '--soft-descriptor', 'ANA DOCES', '--average-ticket', '15000', '--mother-name', 'null', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ legal_name: 'Ana Souza Lima', soft_descriptor: 'ANA DOCES', average_ticket: '15000', mother_name: null });
    const changes = home.run(['submerchants', 'changes', id, '-o', 'json']);
    expect(changes.code, changes.stderr).toBe(0);
    expect(changes.json()[0].changes.map((c: { field: string }) => c.field)).toEqual(['legal_name', 'soft_descriptor', 'mother_name', 'average_ticket']);
    const table = home.run(['submerchants', 'changes', id, '-o', 'table'], { env: { COLUMNS: '200' } });
    expect(table.stdout).toContain('legal_name: Ana Souza → Ana Souza Lima');
    expect(table.stdout).toContain('mother_name: Maria Souza → —');
    const help = home.run(['submerchants', 'update', '--help']).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--average-ticket <cents> average sale (in cents: 10000 = R$ 100,00; at least 0; null clears it)');
    expect(help).toContain('--soft-descriptor <value>');
    // a flag that is not nullable takes "null" as its text, and the service says what it thinks of it
    const bad = home.run(['submerchants', 'update', id, '--average-ticket', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--average-ticket must be a whole number of cents, got 'lots'");
  });

  it('an update with nothing to change is refused before sending (exit 2), for every PATCH', () => {
    for (const [group, id] of [
      ['submerchants', '01a2352c-41b8-70f5-b207-bc0fae8b68e8'],
      ['links', '01a2352c-41b8-70f5-b207-bc0fae8b68e8'],
      ['webhooks', '01a2352c-41b8-70f5-b207-bc0fae8b68e8'],
    ]) {
      const r = home.run([group!, 'update', id!]);
      expect(r.code, r.stderr).toBe(2);
      // an unknown id: had it been sent, the answer would be not found (exit 4)
      expect(r.stderr).toBe(`error: nothing to change: give at least one field to change (see \`mpay ${group} update --help\`) or --input FILE\n`);
    }
  });

  it('every field the contract lets PATCH clear takes null, the phone as well', () => {
    const made = home.run(['submerchants', 'create', '--entity-type', 'pf', '--trade-name', 'Bia', '--legal-name', 'Bia Souza', '--tax-id', '11144477735', '--email', 'b@example.com', '--phone', '+5511987654321', '-o', 'json']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.json().phone).toBe('+5511987654321');
    const r = home.run(['submerchants', 'update', made.json().id, '--phone', 'null', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().phone).toBeNull();
    expect(home.run(['submerchants', 'update', '--help']).stdout.replace(/\s+/g, ' ')).toMatch(/--phone <value> [^-]*null clears it/);
  });
});
