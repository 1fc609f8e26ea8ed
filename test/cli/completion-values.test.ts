// Completing a flag's value: the event names after --events (generated `webhooks create|update`
// and hand-written `webhooks listen` alike), and never the flags after a flag that takes a value
// of no known set (--id, --input): the shell's default (file names) instead, as gh does.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '../../src/contract/events.js';

const root = resolve(__dirname, '../..');
const completions = join(root, 'completions');
const has = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const inCi = !!process.env.CI;
function need(bin: string, extra = true) {
  if (has(bin) && extra) return true;
  if (inCi) throw new Error(`${bin} is not installed: .ci/run installs it`);
  return false;
}

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mpay-complv-'));
  // a directory with a file to see the shell's default (file names) where mpay offers nothing
  mkdirSync(join(dir, 'work'));
  writeFileSync(join(dir, 'work', 'answers.json'), '{}');
  env = { ...process.env, HOME: dir, NO_COLOR: '1' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const events = [...EVENT_NAMES].sort();

describe('bash (bash-completion)', () => {
  const complete = (line: string) => {
    const script = `
      source ${BASH_COMPLETION}
      source ${join(completions, 'mpay.bash')}
      cd ${join(dir, 'work')}
      COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
      read -ra COMP_WORDS <<< "$COMP_LINE"
      [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
      COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
      _mpay mpay "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
      printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean).sort();
  };
  it.runIf(need('bash', existsSync(BASH_COMPLETION)))('--events offers the event names', () => {
    expect(complete('mpay webhooks create --events ')).toEqual(events);
    expect(complete('mpay webhooks update ID --events charge.')).toEqual(events.filter((e) => e.startsWith('charge.')));
    expect(complete('mpay webhooks listen --events ')).toEqual(events);
    expect(complete('mpay webhooks listen --events pay')).toEqual(['payment_link.created', 'payment_link.paid']);
  });
  it.runIf(need('bash', existsSync(BASH_COMPLETION)))('a flag that takes a value of no known set offers no flags', () => {
    for (const line of ['mpay submerchants onboard --id ', 'mpay charges get --profile x --jq ', 'mpay keys create --name ', 'mpay --data-dir ']) {
      expect(complete(line).filter((w) => w.startsWith('-')), line).toEqual([]);
    }
    // after it, flags again
    expect(complete('mpay submerchants onboard --id X --fr')).toEqual(['--from-file']);
  });
});

describe('fish', () => {
  const complete = (line: string) => {
    const r = spawnSync('fish', ['--no-config', '-c', `cd ${join(dir, 'work')}; source ${join(completions, 'mpay.fish')}; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort();
  };
  it.runIf(need('fish'))('--events offers the event names; --id offers no flags', () => {
    expect(complete('mpay webhooks create --events ')).toEqual(events);
    expect(complete('mpay webhooks listen --events ')).toEqual(events);
    for (const line of ['mpay submerchants onboard --id ', 'mpay keys create --name ']) {
      expect(complete(line).filter((w) => w.startsWith('-')), line).toEqual([]);
    }
  });
});

describe('zsh (compsys in a terminal)', () => {
  const session = `mpay-complv-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', session, ...args], { encoding: 'utf8', env });
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  const waitFor = async (pred: (s: string) => boolean, what: string) => {
    for (let i = 0; i < 100; i++) {
      if (pred(screen())) return screen();
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
  };
  const tab = async (line: string, until: (s: string) => boolean, what: string) => {
    tmux('send-keys', '-t', session, '-l', line);
    tmux('send-keys', '-t', session, 'Tab');
    const s = await waitFor(until, what);
    tmux('send-keys', '-t', session, 'C-c');
    // a fresh prompt before typing on: zsh may still be busy completing (a loaded machine)
    await waitFor((x) => x.trimEnd().split('\n').pop() === 'READY>', 'a fresh prompt');
    tmux('send-keys', '-t', session, 'clear', 'Enter');
    await waitFor((x) => x.trim() === 'READY>', 'a clear screen');
    return s;
  };
  it.runIf(need('zsh', has('tmux')))('--events offers the event names; --id offers files, not flags', async () => {
    const zdot = join(dir, 'zdot');
    mkdirSync(join(zdot, 'fn'), { recursive: true });
    spawnSync('cp', [join(completions, '_mpay'), join(zdot, 'fn/_mpay')]);
    writeFileSync(join(zdot, '.zshrc'), `fpath=(${join(zdot, 'fn')} $fpath)\nautoload -Uz compinit && compinit -u -D\nPROMPT='READY>'\ncd ${join(dir, 'work')}\n`);
    tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '40', `env ZDOTDIR=${zdot} zsh -i`);
    try {
      await waitFor((s) => s.includes('READY>'), 'the zsh prompt');
      const names = await tab('mpay webhooks listen --events ', (s) => /payment_link\.paid/.test(s), 'the event names');
      for (const e of ['charge.captured', 'submerchant.approved', 'payment_link.paid']) expect(names).toContain(e);
      const id = await tab('mpay submerchants onboard --id ', (s) => s.includes('answers.json'), 'file names');
      expect(id).not.toMatch(/--from-file/);
    } finally {
      tmux('kill-server');
    }
  }, 60_000);
});
