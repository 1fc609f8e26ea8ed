/**
 * The keys of embedded sandboxes that no profile owns: a data directory given for one command
 * (`--data-dir DIR`, `MPAY_DATA_DIR`) gets its sandbox merchant's keys here, by directory, and
 * never in a profile. Coming back to the directory finds them, so the same merchant answers
 * with the same key instead of a new key every time. The file, `sandboxes.json` beside the
 * profiles, holds secret keys: mode 0600, written atomically as the profiles are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, writeConfigFile } from './config.js';

export interface SandboxKeys {
  public_key: string;
  secret_key: string;
}

type KeptKeys = Record<string, SandboxKeys>;

export const sandboxKeysFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'sandboxes.json');

/** The kept keys, and whether the file is there but not the JSON object it should be. */
function readAll(env: NodeJS.ProcessEnv): { kept: KeptKeys; broken: boolean } {
  let text: string;
  try {
    text = readFileSync(sandboxKeysFile(env), 'utf8');
  } catch {
    // missing or unreadable: the directory's sandbox gets fresh keys, as on first use
    return { kept: {}, broken: false };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kept: {}, broken: true };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { kept: {}, broken: true };
  const out: KeptKeys = {};
  for (const [dir, k] of Object.entries(raw as Record<string, unknown>)) {
    const keys = k as Partial<SandboxKeys> | null;
    if (typeof keys?.public_key === 'string' && typeof keys.secret_key === 'string') out[dir] = { public_key: keys.public_key, secret_key: keys.secret_key };
  }
  return { kept: out, broken: false };
}

/** The keys kept for the sandbox of `dataDir` (an absolute path), if any. */
export function keptSandboxKeys(env: NodeJS.ProcessEnv, dataDir: string): SandboxKeys | undefined {
  return readAll(env).kept[dataDir];
}

/**
 * Keeps the keys of `dataDir`'s sandbox; directories that no longer exist are dropped. Says
 * whether it replaced a file that was not JSON (whatever keys it held are gone).
 */
export async function keepSandboxKeys(env: NodeJS.ProcessEnv, dataDir: string, keys: SandboxKeys): Promise<{ replacedBroken: boolean }> {
  const { kept: all, broken } = readAll(env);
  for (const dir of Object.keys(all)) if (!existsSync(dir)) delete all[dir];
  all[dataDir] = keys;
  await writeConfigFile(env, 'sandboxes', all as unknown as Record<string, unknown>);
  return { replacedBroken: broken };
}
