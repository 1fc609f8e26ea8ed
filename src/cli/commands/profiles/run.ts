import { readConfig, saveConfig, maskSecret, missingCurrent, PROFILE_NAME, type Profile } from '../../config.js';
import { CliError, EXIT, usage } from '../../errors.js';
import { canPrompt, type IO } from '../../io.js';
import { painter, printData, resolveFormat } from '../../output.js';
import { openTarget as realOpenTarget, type Globals } from '../../target.js';
import type { RunEnv } from '../shape.js';
import type { ProfilesAddOptions } from './index.js';
import { askYesNo, confirmOrCancel, localeWords } from '../../confirm.js';

function activeName(g: Globals, io: IO, current?: string): string {
  return g.profile ?? io.env.MPAY_PROFILE ?? current ?? 'default';
}

const view = (name: string, p: Profile, active: boolean) => ({
  name,
  active,
  target: p.base_url ?? `embedded${p.data_dir ? ` (${p.data_dir})` : ''}`,
  public_key: p.public_key ?? null,
  secret_key: maskSecret(p.secret_key) ?? null,
});

export async function profilesList(g: Globals, io: IO): Promise<number> {
  const cfg = readConfig(io.env);
  const active = activeName(g, io, cfg.current);
  // the profile asked for, or the file's active one, that the file does not hold: said here, where
  // every other command refuses
  const asked = g.profile ?? io.env.MPAY_PROFILE;
  const missing = asked ? (asked !== 'default' && !cfg.profiles[asked] ? `profile "${asked}" does not exist; see the list` : undefined) : missingCurrent(cfg, io.env);
  if (missing) io.err(`warning: ${missing}\n`);
  const rows = Object.entries(cfg.profiles).map(([n, p]) => view(n, p, n === active));
  await printData(io, rows, { format: resolveFormat(g, io), paint: await painter(g, io), columns: ['name', 'active', 'target', 'public_key'] });
  return EXIT.ok;
}

export async function profilesShow(g: Globals, name: string | undefined, io: IO): Promise<number> {
  const cfg = readConfig(io.env);
  const n = name ?? activeName(g, io, cfg.current);
  const p = cfg.profiles[n];
  if (!p) throw new CliError(`profile "${n}" does not exist; see \`mpay profiles list\``, EXIT.notFound);
  await printData(io, { ...view(n, p, n === activeName(g, io, cfg.current)), data_dir: p.data_dir ?? null, base_url: p.base_url ?? null }, {
    format: resolveFormat(g, io),
    paint: await painter(g, io),
  });
  return EXIT.ok;
}


/** Who the keys belong to, asked of the target itself; throws the target's error (3 auth, 5 unreachable…). */
async function verifyProfile(g: Globals, name: string, p: Profile, io: IO, openTarget: typeof realOpenTarget): Promise<{ name: string; mode: string }> {
  const target = await openTarget(g, io, { pinned: { name, profile: p } });
  try {
    return (await target.client.call('merchant.get', {})).data;
  } finally {
    await target.close();
  }
}

export async function profilesAdd(
  g: Globals,
  name: string,
  opts: Omit<ProfilesAddOptions, 'name'>,
  io: IO,
  deps: { openTarget?: typeof realOpenTarget } = {},
): Promise<number> {
  if (!PROFILE_NAME.test(name)) throw usage(`profile name must be letters, digits, . _ - (up to 64), got '${name}'`);
  const baseUrl = g.baseUrl;
  if (baseUrl) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw usage(`--base-url must be a URL, got '${baseUrl}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw usage('--base-url must be http:// or https://');
  }
  let publicKey = opts.publicKey as string | undefined;
  let secretKey: string | undefined;
  const interactive = canPrompt(io);
  if (interactive) {
    const { input, password } = await import('@inquirer/prompts');
    publicKey ??= await input({ message: 'Public key', validate: (v) => (/^pk_/.test(v.trim()) ? true : 'a public key starts with pk_') });
    secretKey = await password({ message: 'Secret key', mask: '*', validate: (v) => (/^sk_/.test(v.trim()) ? true : 'a secret key starts with sk_') });
  } else {
    if (!publicKey) throw usage('--public-key is required when mpay cannot prompt');
    secretKey = (await io.readStdin()).trim();
    if (!secretKey) throw usage('pipe the secret key on stdin, e.g. printf %s "$MPAY_SECRET" | mpay profiles add NAME ...');
  }
  publicKey = publicKey.trim();
  secretKey = secretKey.trim();
  if (!/^pk_[A-Za-z0-9_]+$/.test(publicKey)) throw usage('--public-key must look like pk_test_… or pk_live_…');
  if (!/^sk_[A-Za-z0-9_-]+$/.test(secretKey)) throw usage('the secret key must look like sk_test_… or sk_live_…');
  const p: Profile = { public_key: publicKey, secret_key: secretKey };
  if (baseUrl) p.base_url = baseUrl.replace(/\/+$/, '');
  if (opts.profileDataDir) p.data_dir = String(opts.profileDataDir);
  if (opts.verify !== false) {
    try {
      const m = await verifyProfile(g, name, p, io, deps.openTarget ?? realOpenTarget);
      if (!g.quiet) io.err(`Verified: ${m.name} (${m.mode}) at ${p.base_url ?? `embedded:${p.data_dir ?? 'the default data directory'}`}\n`);
    } catch (e) {
      io.err(`profile "${name}" not saved (\`--no-verify\` saves it without checking)\n`);
      throw e;
    }
  }
  const fresh = readConfig(io.env);
  fresh.profiles[name] = p;
  // A profile nothing would select (no active one, no "default") becomes the active one: the
  // next command then uses it instead of creating an embedded sandbox profile.
  let makeDefault = opts.default === true || (!fresh.current && !fresh.profiles.default);
  if (!makeDefault && fresh.current !== name && interactive) {
    const t = await localeWords(io.env);
    makeDefault = await askYesNo(t, t.confirm.makeDefault(name), true);
  }
  if (makeDefault) fresh.current = name;
  await saveConfig(io.env, fresh);
  if (!g.quiet) {
    io.err(
      `Saved profile "${name}"` +
        (makeDefault ? `; "${name}" is now the active profile\n` : fresh.current === name ? '\n' : `; \`mpay profiles use ${name}\` makes it the active one\n`),
    );
  }
  return EXIT.ok;
}

export async function profilesUse(g: Globals, name: string, io: IO): Promise<number> {
  const cfg = readConfig(io.env);
  // `default` is the embedded sandbox's profile, made on its first use: it may be chosen before
  if (!cfg.profiles[name] && name !== 'default') throw new CliError(`profile "${name}" does not exist; see \`mpay profiles list\``, EXIT.notFound);
  cfg.current = name;
  await saveConfig(io.env, cfg);
  if (!g.quiet) io.err(`Active profile: ${name}\n`);
  return EXIT.ok;
}

export async function profilesRemove(g: Globals, name: string, io: IO): Promise<number> {
  const cfg = readConfig(io.env);
  if (!cfg.profiles[name]) throw new CliError(`profile "${name}" does not exist; see \`mpay profiles list\``, EXIT.notFound);
  const p = cfg.profiles[name]!;
  await confirmOrCancel(io, g.yes, `profiles remove ${name}`, async (t) => ({
    question: t.confirm.removeProfile(name),
    facts: [t.confirm.profile(name, cfg.current === name, p.base_url ?? t.confirm.embedded(p.data_dir), p.public_key ?? '—')],
  }));
  delete cfg.profiles[name];
  if (cfg.current === name) delete cfg.current;
  await saveConfig(io.env, cfg);
  if (!g.quiet) io.err(`Removed profile "${name}"\n`);
  return EXIT.ok;
}

// The commands' entries: options, with the target opener and IO injected.
export const list = (_o: Record<string, never>, env: RunEnv) => profilesList(env.globals, env.io);
export const show = (o: { name?: string }, env: RunEnv) => profilesShow(env.globals, o.name, env.io);
export const add = ({ name, ...o }: ProfilesAddOptions, env: RunEnv) => profilesAdd(env.globals, name, o, env.io, { openTarget: env.openTarget });
export const use = (o: { name: string }, env: RunEnv) => profilesUse(env.globals, o.name, env.io);
export const remove = (o: { name: string }, env: RunEnv) => profilesRemove(env.globals, o.name, env.io);
