// `onboard --from-file` reads `~/…` in an answers file as the prompt reads it: the home
// directory, as a shell would expand it (relative paths stay relative to the file's directory).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';
import { realJpeg, realPdf, realPng } from '../helpers/files.js';

const home = cliHome();
afterAll(() => home.cleanup());

describe('--from-file with ~/ paths', () => {
  it('finds the documents in the home directory', () => {
    const docs = join(home.dir, 'documentos');
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, 'rg.png'), realPng());
    writeFileSync(join(docs, 'rg.jpg'), realJpeg());
    // the answers file lives elsewhere: ~ must not be read relative to it
    const answersDir = join(home.dir, 'ci', 'fixtures');
    mkdirSync(join(answersDir, 'docs'), { recursive: true });
    writeFileSync(join(answersDir, 'docs', 'conta.pdf'), realPdf());
    const file = join(answersDir, 'ana.json');
    writeFileSync(
      file,
      JSON.stringify({
        entity_type: 'pf',
        submerchant: { trade_name: 'Ana Doces', legal_name: 'Ana Souza', tax_id: '529.982.247-25', email: 'ana@example.com' },
        address: { zip_code: '01310-100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
        documents: { front_id: '~/documentos/rg.png', back_id: '~/documentos/rg.jpg', selfie_with_id: '~/documentos/rg.png', proof_of_residence: 'docs/conta.pdf' },
      }),
    );
    const r = home.run(['submerchants', 'onboard', '--from-file', file, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ status: 'under_review' });
    expect(r.stderr).toContain('uploaded rg.jpg');
  });
});
