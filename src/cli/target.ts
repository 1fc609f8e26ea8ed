import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MpayClient } from '../sdk/client.js';
import type { Runtime } from '../server/runtime.js';
import { configDir, missingCurrent, osDataDir, readConfig, saveConfig, type Profile } from './config.js';
import { CliError, EXIT } from './errors.js';
import type { IO } from './io.js';
import { isLoopbackUrl, sameUrl } from './urls.js';

export interface Globals {
  output?: 'table' | 'json' | 'jsonl';
  json?: boolean;
  profile?: string;
  baseUrl?: string;
  dataDir?: string;
  color?: 'auto' | 'always' | 'never';
  quiet?: boolean;
  verbose?: boolean;
  idempotencyKey?: string;
  yes?: boolean;
  /** --jq: filter the JSON output with this jq expression */
  jq?: string;
}

export interface Target {
  kind: 'embedded' | 'remote';
  client: MpayClient;
  profileName: string;
  /** the public key the client sends (no secret here) */
  publicKey?: string;
  baseUrl?: string;
  dataDir?: string;
  runtime?: Runtime;
  close(): Promise<void>;
}

/** Origin the embedded service believes it is served at: where `mpay server start` listens. */
export const EMBEDDED_ORIGIN = 'http://127.0.0.1:4010';

/** How long an embedded command may spend delivering webhooks before it exits. */
export const EMBEDDED_DELIVERY_MS = 2_000;

/**
 * The base URL a command talks to, or undefined for the embedded sandbox. A URL or a data
 * directory given for this command beats the profile's target, a flag beats a variable, and a
 * URL and a data directory given at the same level name two targets: a usage error.
 */
function pickTarget(g: Globals, env: NodeJS.ProcessEnv, profile: Profile): string | undefined {
  if (g.baseUrl && g.dataDir) throw new CliError('--data-dir and --base-url name two targets (the sandbox in a directory, a deployment at a URL): give one', EXIT.usage);
  if (g.baseUrl) return g.baseUrl;
  if (g.dataDir) return undefined;
  if (env.MPAY_BASE_URL && env.MPAY_DATA_DIR) {
    throw new CliError('MPAY_DATA_DIR and MPAY_BASE_URL name two targets (the sandbox in a directory, a deployment at a URL): unset one, or give --data-dir or --base-url', EXIT.usage);
  }
  if (env.MPAY_BASE_URL) return env.MPAY_BASE_URL;
  if (env.MPAY_DATA_DIR) return undefined;
  return profile.base_url;
}

/**
 * Where a command talks to, with the contract's precedence: flags > environment
 * (MPAY_PROFILE, MPAY_BASE_URL, MPAY_PUBLIC_KEY, MPAY_SECRET_KEY, MPAY_DATA_DIR) > profile >
 * defaults. No base URL means the embedded sandbox on the data directory; its first use
 * creates a sandbox merchant and saves its keys in the profile.
 */
export interface OpenOptions {
  /** a command that sends no credentials (`mpay api --auth none`) may run without keys */
  keysOptional?: boolean;
  /** exactly this profile, ignoring flags, environment and the profiles file (`profiles add` checks one) */
  pinned?: { name: string; profile: Profile };
}

export async function openTarget(g: Globals, io: IO, opts: OpenOptions = {}): Promise<Target> {
  const pinned = opts.pinned;
  // a pinned profile is checked on its own: nothing from the environment or the flags
  const env: NodeJS.ProcessEnv = pinned ? { MPAY_CONFIG_DIR: io.env.MPAY_CONFIG_DIR, MPAY_DATA_DIR: io.env.MPAY_DATA_DIR } : io.env;
  if (pinned) g = { verbose: g.verbose, quiet: true };
  const cfg = pinned ? { profiles: { [pinned.name]: pinned.profile } } : readConfig(env);
  const explicit = pinned?.name ?? g.profile ?? env.MPAY_PROFILE;
  const profileName = explicit ?? cfg.current ?? 'default';
  if (explicit && explicit !== 'default' && !cfg.profiles[explicit]) {
    throw new CliError(`profile "${explicit}" does not exist; see \`mpay profiles list\``, EXIT.usage);
  }
  const others = Object.keys(cfg.profiles);
  // the active profile the config file names (hand-edited, or its profile removed by hand): the
  // same refusal, rather than a new profile made under that name
  const missing = explicit ? undefined : missingCurrent(cfg, env);
  if (missing) throw new CliError(missing, EXIT.usage);
  const targetGiven = !!(g.baseUrl || g.dataDir || env.MPAY_BASE_URL || env.MPAY_DATA_DIR);
  if (!explicit && !cfg.current && !cfg.profiles.default && others.length && !targetGiven) {
    // profiles exist but none is active, and no target is given for this command: say so
    // rather than quietly creating an embedded one
    throw new CliError(
      `no active profile: \`mpay profiles use ${others[0]}\` (profiles: ${others.join(', ')}), or --profile NAME; --profile default uses the embedded sandbox`,
      EXIT.usage,
    );
  }
  const profile: Profile = cfg.profiles[profileName] ?? {};
  const warn = (v: string, field: keyof Profile) => {
    if (env[v] && profile[field] && env[v] !== profile[field] && !g.quiet) {
      io.err(`warning: ${v} overrides ${field} of profile "${profileName}"\n`);
    }
  };
  const baseUrl = pinned ? profile.base_url : pickTarget(g, env, profile);
  warn('MPAY_BASE_URL', 'base_url');
  // The profile's keys are in play only when its target is: keys from the environment for
  // another target (`--base-url URL` with MPAY_PUBLIC_KEY/MPAY_SECRET_KEY) override nothing, and
  // the profile's own never go to another URL or to a data directory given for one command. An
  // embedded profile's sandbox keys may go to a server on this machine (`mpay server start` on
  // its data directory), never further.
  const ownTarget = baseUrl ? !!profile.base_url && sameUrl(baseUrl, profile.base_url) : !profile.base_url;
  const profileKeys = ownTarget || (!!baseUrl && !profile.base_url && isLoopbackUrl(baseUrl));
  if (ownTarget) {
    warn('MPAY_PUBLIC_KEY', 'public_key');
    warn('MPAY_SECRET_KEY', 'secret_key');
  }
  warn('MPAY_DATA_DIR', 'data_dir');

  const keysFromEnv = !!(env.MPAY_PUBLIC_KEY && env.MPAY_SECRET_KEY) || !!pinned;
  let publicKey = env.MPAY_PUBLIC_KEY ?? (profileKeys ? profile.public_key : undefined);
  let secretKey = env.MPAY_SECRET_KEY ?? (profileKeys ? profile.secret_key : undefined);
  const { MpayClient } = await import('../sdk/client.js');
  const onTrace = g.verbose
    ? (t: { method: string; path: string; status: number; ms: number; requestId?: string }) =>
        io.err(`> ${t.method} ${t.path} (Authorization: Basic [redacted])\n< ${t.status} in ${t.ms.toFixed(1)} ms${t.requestId ? ` request-id ${t.requestId}` : ''}\n`)
    : undefined;

  if (baseUrl) {
    if ((!publicKey || !secretKey) && !opts.keysOptional) {
      const elsewhere = !profileKeys && profile.secret_key ? ` (profile "${profileName}"'s keys are for ${profile.base_url ?? 'its sandbox and servers on this machine'} only)` : '';
      throw new CliError(
        `no API keys for ${baseUrl}${elsewhere}: add them with \`mpay profiles add NAME --base-url ${baseUrl}\` or set MPAY_PUBLIC_KEY and MPAY_SECRET_KEY`,
        EXIT.usage,
      );
    }
    const { HttpTransport } = await import('../sdk/httpTransport.js');
    let transport;
    try {
      transport = new HttpTransport(baseUrl);
    } catch (e) {
      throw new CliError((e as Error).message, EXIT.usage);
    }
    const client = new MpayClient({ transport, publicKey, secretKey, userAgent: 'mpay-cli', onTrace });
    return { kind: 'remote', client, profileName, publicKey, baseUrl, close: async () => undefined };
  }

  // The profile's own sandbox lives in its data_dir (the OS data directory when it names none).
  // --data-dir and MPAY_DATA_DIR override it for this command only: the profile is never
  // rewritten, and the keys of a directory it does not own are kept apart, per directory.
  const ownDir = resolve(io.cwd, profile.data_dir ?? osDataDir());
  const override = g.dataDir ?? env.MPAY_DATA_DIR;
  const dataDir = override ? resolve(io.cwd, override) : ownDir;
  const { openRuntime } = await import('../server/runtime.js');
  const { EmbeddedTransport } = await import('../sdk/embeddedTransport.js');
  const { inProcessHandler } = await import('../server/inProcess.js');
  let runtime: Runtime;
  try {
    runtime = await openRuntime({ dataDir, publicBaseUrl: EMBEDDED_ORIGIN });
  } catch (e) {
    throw new CliError(`cannot open the data directory ${dataDir}: ${(e as Error).message}`, EXIT.refused);
  }
  if (!keysFromEnv) {
    // only an embedded profile owns a directory (a remote one's keys are for its deployment)
    const owner = ownTarget && dataDir === ownDir ? { name: profileName, profile } : undefined;
    const keys = await sandboxKeysFor(runtime, env, dataDir, owner, g.quiet ? undefined : io);
    publicKey = keys.public_key;
    secretKey = keys.secret_key;
  }
  const client = new MpayClient({
    transport: new EmbeddedTransport(runtime.app.fetch, `embedded:${dataDir}`, EMBEDDED_ORIGIN, inProcessHandler(runtime.app, EMBEDDED_ORIGIN)),
    publicKey,
    secretKey,
    userAgent: 'mpay-cli',
    onTrace,
  });
  const close = async () => {
    try {
      // Webhooks of this command's events go out before it exits, within a short bound; what is
      // not attempted stays due for the next run (or for `mpay server start`).
      const { deliverDue } = await import('../server/webhooks/worker.js');
      const r = await deliverDue(runtime.deps, { deadlineMs: EMBEDDED_DELIVERY_MS });
      if (g.verbose && r.attempted) io.err(`webhooks: ${r.delivered} delivered, ${r.failed} failed, ${r.remaining} left due\n`);
    } catch (e) {
      if (!g.quiet) io.err(`warning: webhook delivery skipped: ${(e as Error).message}\n`);
    } finally {
      await runtime.close();
    }
  };
  return { kind: 'embedded', client, profileName, publicKey, dataDir, runtime, close };
}

/**
 * The sandbox keys for the embedded service on `dataDir`. The profile that owns the directory
 * keeps them (made and saved on its first use); a directory no profile owns has them in the
 * sandbox key file (sandboxKeys.ts), checked against the directory's merchant and made again
 * when that merchant is gone. `say` gets the line that says keys were made.
 */
async function sandboxKeysFor(
  runtime: Runtime,
  env: NodeJS.ProcessEnv,
  dataDir: string,
  owner: { name: string; profile: Profile } | undefined,
  say: IO | undefined,
): Promise<{ public_key: string; secret_key: string }> {
  const services = () => import('../server/services/sandboxBootstrap.js');
  if (owner) {
    const { public_key, secret_key } = owner.profile;
    if (public_key && secret_key) return { public_key, secret_key };
    return firstUse(env, async () => {
      // another mpay, started at the same moment, may have made them while this one waited
      const now = readConfig(env).profiles[owner.name];
      if (now?.public_key && now.secret_key && (!now.data_dir || resolve(now.data_dir) === dataDir)) return { public_key: now.public_key, secret_key: now.secret_key };
      const creds = await (await services()).sandboxCredentials(runtime.deps);
      const fresh = readConfig(env);
      fresh.profiles[owner.name] = { ...fresh.profiles[owner.name], public_key: creds.public_key, secret_key: creds.secret_key, data_dir: dataDir };
      await saveConfig(env, fresh);
      say?.err(`Created sandbox credentials in profile "${owner.name}" for ${dataDir}\n`);
      return creds;
    });
  }
  const { keptSandboxKeys, keepSandboxKeys, sandboxKeysFile } = await import('./sandboxKeys.js');
  const { sandboxCredentials, sandboxKeysValid } = await services();
  const valid = async () => {
    const kept = keptSandboxKeys(env, dataDir);
    return kept && (await sandboxKeysValid(runtime.deps, kept)) ? kept : undefined;
  };
  const kept = await valid();
  if (kept) return kept;
  return firstUse(env, async () => {
    const meanwhile = await valid();
    if (meanwhile) return meanwhile;
    const creds = await sandboxCredentials(runtime.deps);
    const keys = { public_key: creds.public_key, secret_key: creds.secret_key };
    const { replacedBroken } = await keepSandboxKeys(env, dataDir, keys);
    if (replacedBroken) say?.err(`warning: ${sandboxKeysFile(env)} was not a JSON object; replaced (other data directories' kept keys in it are gone: they get new keys)\n`);
    say?.err(`Created sandbox credentials for ${dataDir} (kept in ${sandboxKeysFile(env)}; no profile changed)\n`);
    return keys;
  });
}

/**
 * Makes a sandbox's keys one process at a time (a lock in the config directory, proper-lockfile):
 * commands started together on a fresh home make one key and save it once; the others wait and
 * find it. A lock left by a process that died is taken over after 10 s.
 */
async function firstUse<T>(env: NodeJS.ProcessEnv, make: () => Promise<T>): Promise<T> {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true });
  const { lock } = await import('proper-lockfile');
  const release = await lock(dir, { lockfilePath: join(dir, 'first-use.lock'), stale: 10_000, retries: { retries: 200, minTimeout: 10, maxTimeout: 100 } });
  try {
    return await make();
  } finally {
    await release();
  }
}
