// Completion scripts run in the shells themselves: bash with the bash-completion package, zsh
// (its completion system driven in a real terminal, tmux), fish (`complete -C`, fish's own
// engine). PowerShell is not in Debian's archive (Microsoft ships it from its own repository),
// so its script is only checked for being generated from the same table (completion.test.ts).
// Flag values: the event names after --events (generated `webhooks create|update` and
// hand-written `webhooks listen` alike), and never the flags after a flag that takes a value of
// no known set (--id, --input): the shell's default (file names) instead, as gh does. A flag
// that takes a comma-separated list (--events, --allowed-payment-methods) offers its values for
// the part after the last comma, keeping what is before it, less the values listed already.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '../../src/contract/events.js';

const root = resolve(__dirname, '../..');
const completions = join(root, 'completions');
const has = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const inCi = !!process.env.CI;

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mpay-compl-'));
  // mpay on PATH (the profile names come from `mpay __complete profiles`), with two profiles
  mkdirSync(join(dir, 'bin'));
  const launcher = join(dir, 'bin/mpay');
  writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin/mpay.js')}" "$@"\n`);
  chmodSync(launcher, 0o755);
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config/config.json'), JSON.stringify({ profiles: { staging: { base_url: 'http://127.0.0.1:9' }, prodlike: {} } }));
  // a working directory with a file: the shell's default (file names) where mpay offers nothing
  mkdirSync(join(dir, 'work'));
  writeFileSync(join(dir, 'work', 'answers.json'), '{}');
  env = { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, MPAY_CONFIG_DIR: join(dir, 'config'), HOME: dir, NO_COLOR: '1' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const events = [...EVENT_NAMES].sort();
/** the completions of a list: `head` then each event name starting with `rest`, not in `head` */
const listed = (head: string, rest = '') => events.filter((e) => e.startsWith(rest) && !head.split(',').includes(e)).map((e) => head + e);

function need(bin: string, extra = true) {
  if (has(bin) && extra) return true;
  if (inCi) throw new Error(`${bin} is not installed: .ci/run installs it`);
  return false;
}

describe('bash (bash-completion)', () => {
  const complete = (line: string) => {
    // what readline does on Tab: split the line, set COMP_*, call the function `complete -p` names
    const script = `
      source ${BASH_COMPLETION}
      source ${join(completions, 'mpay.bash')}
      cd ${join(dir, 'work')}
      COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
      read -ra COMP_WORDS <<< "$COMP_LINE"
      [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
      COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
      fn=$(complete -p mpay | sed -E 's/.*-F ([^ ]+).*/\\1/')
      "$fn" mpay "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
      printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean).sort();
  };
  it.runIf(need('bash', existsSync(BASH_COMPLETION)))('commands, verbs, flags and their values', () => {
    expect(complete('mpay ch')).toEqual(['chargebacks', 'charges']);
    expect(complete('mpay chargeb')).toEqual(['chargebacks']);
    expect(complete('mpay charges ')).toEqual(expect.arrayContaining(['create', 'get', 'list', 'refund']));
    expect(complete('mpay charges list --st')).toEqual(['--start-date', '--status']);
    expect(complete('mpay charges list --status ')).toEqual(['authorized', 'captured', 'expired', 'failed', 'pending', 'refunded', 'voided']);
    expect(complete('mpay withdrawals list --status ')).toEqual(['completed', 'failed', 'pending', 'processing']);
    expect(complete('mpay -o ')).toEqual(['json', 'jsonl', 'table']);
    expect(complete('mpay keys list --output j')).toEqual(['json', 'jsonl']);
    expect(complete('mpay --profile ')).toEqual(['prodlike', 'staging']);
  });
  it.runIf(need('bash', existsSync(BASH_COMPLETION)))('an argument of a known set offers its values, once', () => {
    expect(complete('mpay completion ').filter((w) => !w.startsWith('-'))).toEqual(['bash', 'fish', 'powershell', 'zsh']);
    expect(complete('mpay completion f')).toEqual(['fish']);
    expect(complete('mpay completion bash ').filter((w) => !w.startsWith('-'))).toEqual([]);
    expect(complete('mpay completion bash --')).toContain('--help');
  });
  it.runIf(need('bash', existsSync(BASH_COMPLETION)))('--events offers the event names', () => {
    expect(complete('mpay webhooks create --events ')).toEqual(events);
    expect(complete('mpay webhooks update ID --events charge.')).toEqual(events.filter((e) => e.startsWith('charge.')));
    expect(complete('mpay webhooks listen --events ')).toEqual(events);
    expect(complete('mpay webhooks listen --events pay')).toEqual(['payment_link.created', 'payment_link.paid']);
  });
  it.runIf(need('bash', existsSync(BASH_COMPLETION)))('a comma-separated list completes the part after its last comma', () => {
    expect(complete('mpay webhooks create --events charge.captured,')).toEqual(listed('charge.captured,'));
    expect(complete('mpay webhooks update ID --events charge.captured,payment_link.p')).toEqual(['charge.captured,payment_link.paid']);
    expect(complete('mpay webhooks listen --events charge.captured,charge.failed,charge.')).toEqual(listed('charge.captured,charge.failed,', 'charge.'));
    expect(complete('mpay links create --allowed-payment-methods credit_card,')).toEqual(['credit_card,boleto', 'credit_card,pix']);
    // a flag of one value is no list
    expect(complete('mpay charges list --status captured,')).toEqual([]);
  });
  it.runIf(need('bash', existsSync(BASH_COMPLETION)))('a flag that takes a value of no known set offers no flags', () => {
    for (const line of ['mpay submerchants onboard --id ', 'mpay charges get --profile x --jq ', 'mpay keys create --name ', 'mpay --data-dir ']) {
      expect(complete(line).filter((w) => w.startsWith('-')), line).toEqual([]);
    }
    // after its value, flags again
    expect(complete('mpay submerchants onboard --id X --fr')).toEqual(['--from-file']);
  });
});

describe('fish', () => {
  const complete = (line: string) => {
    const r = spawnSync('fish', ['--no-config', '-c', `cd ${join(dir, 'work')}; source ${join(completions, 'mpay.fish')}; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort();
  };
  it.runIf(need('fish'))('commands, verbs, flags and their values', () => {
    expect(complete('mpay ch')).toEqual(['chargebacks', 'charges']);
    expect(complete('mpay chargeb')).toEqual(['chargebacks']);
    expect(complete('mpay charges ')).toEqual(expect.arrayContaining(['create', 'get', 'list', 'refund']));
    expect(complete('mpay charges ')).not.toContain('keys');
    expect(complete('mpay charges list --st')).toEqual(['--start-date', '--status']);
    expect(complete('mpay charges list --status ')).toEqual(['authorized', 'captured', 'expired', 'failed', 'pending', 'refunded', 'voided']);
    expect(complete('mpay -o ')).toEqual(['json', 'jsonl', 'table']);
    expect(complete('mpay --profile ')).toEqual(['prodlike', 'staging']);
  });
  it.runIf(need('fish'))('an argument of a known set offers its values, once', () => {
    expect(complete('mpay completion ').filter((w) => !w.startsWith('-'))).toEqual(['bash', 'fish', 'powershell', 'zsh']);
    expect(complete('mpay completion f')).toEqual(['fish']);
    expect(complete('mpay completion bash ').filter((w) => !w.startsWith('-'))).toEqual([]);
  });
  it.runIf(need('fish'))('--events offers the event names; --id offers no flags', () => {
    expect(complete('mpay webhooks create --events ')).toEqual(events);
    expect(complete('mpay webhooks listen --events ')).toEqual(events);
    for (const line of ['mpay submerchants onboard --id ', 'mpay keys create --name ']) {
      expect(complete(line).filter((w) => w.startsWith('-')), line).toEqual([]);
    }
  });
  it.runIf(need('fish'))('a comma-separated list completes the part after its last comma', () => {
    expect(complete('mpay webhooks create --events charge.captured,')).toEqual(listed('charge.captured,'));
    expect(complete('mpay webhooks update ID --events charge.captured,payment_link.p')).toEqual(['charge.captured,payment_link.paid']);
    expect(complete('mpay webhooks listen --events charge.captured,charge.failed,charge.')).toEqual(listed('charge.captured,charge.failed,', 'charge.'));
    expect(complete('mpay links create --allowed-payment-methods credit_card,')).toEqual(['credit_card,boleto', 'credit_card,pix']);
    expect(complete('mpay charges list --status captured,')).toEqual([]);
  });
});

describe('zsh (compsys in a terminal)', () => {
  const session = `mpay-compl-${process.pid}`;
  const tmux = (...args: string[]) => spawnSync('tmux', ['-L', session, ...args], { encoding: 'utf8', env });
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout;
  const waitFor = async (pred: (s: string) => boolean, what: string) => {
    for (let i = 0; i < 100; i++) {
      if (pred(screen())) return screen();
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
  };
  /** types LINE, presses Tab (twice: zsh first inserts a common prefix, then lists), returns the screen; then clears the line */
  const tab = async (line: string, until: (s: string) => boolean, what: string, tabs = 1) => {
    tmux('send-keys', '-t', session, '-l', line);
    for (let i = 0; i < tabs; i++) tmux('send-keys', '-t', session, 'Tab');
    const s = await waitFor(until, what);
    tmux('send-keys', '-t', session, 'C-c');
    // a fresh prompt before typing on: zsh may still be busy completing (a loaded machine)
    await waitFor((x) => x.trimEnd().split('\n').pop() === 'READY>', 'a fresh prompt');
    tmux('send-keys', '-t', session, 'clear', 'Enter');
    await waitFor((x) => x.trim() === 'READY>', 'a clear screen');
    return s;
  };
  it.runIf(need('zsh', has('tmux')))('commands, verbs, flags and their values', async () => {
    const zdot = join(dir, 'zdot');
    mkdirSync(join(zdot, 'fn'), { recursive: true });
    spawnSync('cp', [join(completions, '_mpay'), join(zdot, 'fn/_mpay')]);
    writeFileSync(join(zdot, '.zshrc'), `fpath=(${join(zdot, 'fn')} $fpath)\nautoload -Uz compinit && compinit -u -D\nPROMPT='READY>'\ncd ${join(dir, 'work')}\n`);
    tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '40', `env ZDOTDIR=${zdot} zsh -i`);
    try {
      await waitFor((s) => s.includes('READY>'), 'the zsh prompt');
      expect(await tab('mpay chargeb', (s) => s.includes('mpay chargebacks'), 'mpay chargebacks')).toContain('READY>mpay chargebacks');
      const verbs = await tab('mpay charges ', (s) => /refund/.test(s), 'the verbs of charges');
      for (const v of ['create', 'get', 'list', 'refund']) expect(verbs).toMatch(new RegExp(`\\b${v}\\b`));
      expect(verbs).not.toMatch(/\bkeys\b/);
      expect(await tab('mpay completion f', (s) => s.includes('completion fish'), 'the shell name')).toContain('READY>mpay completion fish');
      expect(await tab('mpay charges list --st', (s) => s.includes('--status'), '--status', 2)).toMatch(/--start-date\s+--status/);
      expect(await tab('mpay charges list --stat', (s) => s.includes('list --status'), '--status')).toContain('READY>mpay charges list --status');
      const statuses = await tab('mpay charges list --status ', (s) => /refunded/.test(s), 'the statuses');
      for (const v of ['pending', 'captured', 'failed', 'refunded']) expect(statuses).toContain(v);
      expect(await tab('mpay --profile st', (s) => s.includes('--profile staging'), 'the profile name')).toContain('READY>mpay --profile staging');
      const formats = await tab('mpay -o ', (s) => /jsonl/.test(s), 'the formats');
      for (const v of ['table', 'json', 'jsonl']) expect(formats).toContain(v);
      const names = await tab('mpay webhooks listen --events ', (s) => /payment_link\.paid/.test(s), 'the event names');
      for (const e of ['charge.captured', 'submerchant.approved', 'payment_link.paid']) expect(names).toContain(e);
      // a comma-separated list: the name after the last comma, the list before it kept
      expect(await tab('mpay webhooks create --events charge.captured,payment_link.p', (s) => s.includes('payment_link.paid'), 'the second name')).toContain(
        'READY>mpay webhooks create --events charge.captured,payment_link.paid',
      );
      const rest = await tab('mpay webhooks listen --events charge.captured,charge.', (s) => /charge\.voided/.test(s), 'the names after the comma');
      const offered = rest.split('\n').slice(1).join('\n');
      for (const e of ['charge.failed', 'charge.refunded', 'charge.voided']) expect(offered).toContain(e);
      expect(offered).not.toMatch(/(^|\s)charge\.captured(\s|$)/m); // listed already
      expect(offered).not.toContain('payment_link');
      const id = await tab('mpay submerchants onboard --id ', (s) => s.includes('answers.json'), 'file names');
      expect(id).not.toMatch(/--from-file/);
      // a global flag that takes any value, after a command: file names as well
      const dataDir = await tab('mpay keys list --data-dir ', (s) => s.includes('answers.json') || /invalid subscript/.test(s), 'file names after a global flag');
      expect(dataDir).not.toMatch(/invalid subscript/);
      expect(dataDir).toContain('answers.json');
    } finally {
      tmux('kill-server');
    }
  }, 60_000);
});
