import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { allSpecs } from '../../src/cli/specs.js';
import { bufferIO } from '../../src/cli/io.js';
import { COMPLETION_FILES, SHELLS, completionTable, renderCompletion } from '../../src/cli/completion.js';

const table = () => completionTable(buildProgram({ io: bufferIO(), exitCode: 0 }), allSpecs());

describe('shell completions', () => {
  it.each(SHELLS)('completions/ for %s is up to date with the command tree (npm run completions)', (shell) => {
    const committed = readFileSync(join(__dirname, '../../completions', COMPLETION_FILES[shell]), 'utf8');
    expect(committed).toBe(renderCompletion(shell, table()));
  });

  it('covers every generated operation command', () => {
    const t = table();
    expect(t.keys!.commands).toEqual(['create', 'list', 'revoke']);
    expect(t['keys create']!.flags).toContain('--allowed-ips');
    expect(t['tokens create']!.flags).toContain('--card.holder-name');
  });

  it('lists: the flags whose values of a known set come comma-separated', () => {
    const t = table();
    expect(t['webhooks create']!.lists).toEqual(['--events']);
    expect(t['webhooks update']!.lists).toEqual(['--events']);
    expect(t['webhooks listen']!.lists).toEqual(['--events']);
    expect(t['links create']!.lists).toEqual(['--allowed-payment-methods']);
    expect(t['keys create']!.lists).toEqual([]); // --allowed-ips: a list of any values
    expect(t['charges list']!.lists).toEqual([]); // --status: one value
  });

  it('bash completes subcommands and flags after global options', () => {
    const script = join(__dirname, '../../completions/mpay.bash');
    const run = (words: string[]) =>
      spawnSync('bash', ['-c', `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mpay; echo "\${COMPREPLY[@]}"`], {
        encoding: 'utf8',
      }).stdout.trim();
    expect(run(['mpay', 'ke'])).toBe('keys');
    expect(run(['mpay', 'keys', ''])).toContain('revoke');
    expect(run(['mpay', '--json', 'keys', 'create', '--na'])).toBe('--name');
  });
});
