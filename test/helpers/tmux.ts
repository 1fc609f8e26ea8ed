import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN } from './cli.js';

export const hasTmux = spawnSync('sh', ['-c', 'command -v tmux']).status === 0;

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `mpay ARGS` in a real pseudo-terminal (tmux) of the given size: type with `keys`/`type`, read
 * the screen with `screen`/`waitFor`; the shell prints `EXIT=<code>` when mpay ends.
 */
export function tmuxMpay(
  dir: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  o: { width?: number; height?: number; name?: string; cwd?: string; locale?: { LANG?: string; LC_ALL?: string } } = {},
) {
  const sock = join(dir, `tmux-${process.pid}-${Math.random().toString(36).slice(2, 8)}.sock`);
  const fullEnv: NodeJS.ProcessEnv = { ...env, TERM: 'xterm-256color', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', ...o.locale };
  const tmux = (...a: string[]) => spawnSync('tmux', ['-u', '-S', sock, ...a], { encoding: 'utf8', env: fullEnv });
  const vars = Object.entries(fullEnv)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${q(v!)}`)
    .join(' ');
  const name = o.name ?? 'mpay';
  const cmd = `${o.cwd ? `cd ${q(o.cwd)} && ` : ''}env ${vars} ${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')}; echo "EXIT=$?"; sleep 600`;
  const started = tmux('new-session', '-d', '-s', name, '-x', String(o.width ?? 120), '-y', String(o.height ?? 40), cmd);
  if (started.status !== 0) throw new Error(`tmux did not start: ${started.stderr}`);
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', name).stdout;
  return {
    screen,
    async waitFor(what: string | RegExp, ms = 20_000): Promise<string> {
      const until = Date.now() + ms;
      for (;;) {
        const s = screen();
        if (typeof what === 'string' ? s.includes(what) : what.test(s)) return s;
        if (Date.now() > until) throw new Error(`the terminal never showed ${String(what)}; it shows:\n${s}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    /** the exit code, once mpay has ended */
    async exitCode(ms = 20_000): Promise<number> {
      const s = await this.waitFor(/EXIT=\d+/, ms);
      return Number(/EXIT=(\d+)/.exec(s)![1]);
    },
    type: (text: string) => tmux('send-keys', '-t', name, '-l', text),
    keys: (...k: string[]) => tmux('send-keys', '-t', name, ...k),
    kill: () => tmux('kill-server'),
  };
}
