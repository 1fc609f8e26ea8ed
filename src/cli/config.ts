import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { CliError, EXIT } from './errors.js';

export interface Profile {
  base_url?: string;
  public_key?: string;
  secret_key?: string;
  data_dir?: string;
}

export interface ConfigFile {
  current?: string;
  profiles: Record<string, Profile>;
}

// The OS locations (XDG on Linux, Library on macOS, AppData on Windows) from the process
// environment; MPAY_CONFIG_DIR / MPAY_DATA_DIR in the IO's environment override them.
const paths = () => envPaths('mpay', { suffix: '' });

export function configDir(env: NodeJS.ProcessEnv): string {
  return env.MPAY_CONFIG_DIR || paths().config;
}

export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  return env.MPAY_DATA_DIR || osDataDir();
}

/** The OS data directory for mpay: the embedded sandbox of a profile that names none. */
export const osDataDir = (): string => paths().data;

/** The OS cache directory for mpay: the launcher's code caches, in an install the user cannot write. */
export const osCacheDir = (): string => paths().cache;

export const configFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');

const PROFILE_KEYS = new Set(['base_url', 'public_key', 'secret_key', 'data_dir']);
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Reads the profiles file: one JSON object, checked here field by field. Writes replace it
 * atomically (see writeConfigFile).
 */
export function readConfig(env: NodeJS.ProcessEnv): ConfigFile {
  const file = configFile(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`, EXIT.usage);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new CliError(`${file} is not valid JSON (${(e as Error).message}); fix it or remove it`, EXIT.usage);
  }
  const bad = (what: string) => new CliError(`${file}: ${what}; fix it or remove it`, EXIT.usage);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad('must hold a JSON object');
  const obj = raw as Record<string, unknown>;
  if (obj.current !== undefined && typeof obj.current !== 'string') throw bad('"current" must be a profile name');
  const profiles = obj.profiles ?? {};
  if (typeof profiles !== 'object' || Array.isArray(profiles) || !profiles) throw bad('"profiles" must be an object');
  for (const [name, p] of Object.entries(profiles as Record<string, unknown>)) {
    if (!p || typeof p !== 'object' || Array.isArray(p)) throw bad(`profile "${name}" must be an object`);
    for (const [k, v] of Object.entries(p as Record<string, unknown>)) {
      if (!PROFILE_KEYS.has(k)) throw bad(`profile "${name}" has an unknown field "${k}" (allowed: ${[...PROFILE_KEYS].join(', ')})`);
      if (typeof v !== 'string') throw bad(`profile "${name}": "${k}" must be a string`);
    }
  }
  return { current: obj.current as string | undefined, profiles: profiles as Record<string, Profile> };
}

/** What is wrong when the config file's active profile is one it does not hold; undefined when nothing is. */
export function missingCurrent(cfg: ConfigFile, env: NodeJS.ProcessEnv): string | undefined {
  if (!cfg.current || cfg.current === 'default' || cfg.profiles[cfg.current]) return undefined;
  const others = Object.keys(cfg.profiles).filter((n) => n !== 'default');
  return `the active profile "${cfg.current}" (current in ${configFile(env)}) does not exist; \`mpay profiles use NAME\` (${others.length ? `${others.join(', ')}, or ` : ''}default: the embedded sandbox) or --profile NAME`;
}

/** Writes the profiles file (atomically, mode 0600). */
export async function saveConfig(env: NodeJS.ProcessEnv, cfg: ConfigFile): Promise<void> {
  const store: Record<string, unknown> = { profiles: cfg.profiles };
  if (cfg.current) store.current = cfg.current;
  await writeConfigFile(env, 'config', store);
}

/**
 * Writes `NAME.json` in the config directory, tab-indented: a temporary file made with mode 0600
 * (it holds secret keys), synced and renamed over the old one (atomically), so a reader sees the
 * old file or the new one, never half of either.
 */
export async function writeConfigFile(env: NodeJS.ProcessEnv, name: string, store: Record<string, unknown>): Promise<void> {
  const { writeFileSync } = await import('atomically');
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(store, undefined, '\t'), { mode: 0o600 });
}

export function maskSecret(s: string | undefined): string | undefined {
  if (!s) return s;
  return s.length <= 12 ? '****' : `${s.slice(0, 8)}…${s.slice(-4)}`;
}
