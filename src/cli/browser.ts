/**
 * Opening a URL in the user's browser as gh does (cli/go-gh pkg/browser): the command named by
 * `MPAY_BROWSER` or `BROWSER` (words split on spaces, the URL added last), else the system's
 * opener — `open` on macOS, `cmd /c start` on Windows, `xdg-open` elsewhere. The browser runs on
 * its own; a failure to start it is reported, not fatal (the URL is printed anyway).
 */
import { spawn } from 'node:child_process';

export function browserCommand(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): [string, string[]] {
  const launcher = (env.MPAY_BROWSER || env.BROWSER || '').trim();
  if (launcher) {
    const words = launcher.split(/\s+/);
    return [words[0]!, [...words.slice(1), url]];
  }
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '', url.replace(/&/g, '^&')]];
  return ['xdg-open', [url]];
}

/** Starts the browser on `url`; resolves with why it could not, or undefined once it started. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const [cmd, args] = browserCommand(url, env);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true, env });
    child.once('error', (e) => resolve(`could not start ${cmd}: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
