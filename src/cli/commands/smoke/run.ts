/**
 * `mpay smoke`, the runner: an end-to-end scenario against the current target (the embedded sandbox, or a
 * deployment by --base-url / profile). Each step is timed and printed on stderr as it ends;
 * the summary goes to stdout (JSON when piped, a table on a terminal) and, with --junit, to a
 * JUnit XML file. The first failure stops the run: the exit code is the contract's for the
 * service's answer (1 refused, 3 auth, 4 not found, 5 unreachable).
 *
 * Everything the run creates lives under a submerchant of its own (charges, payment link,
 * recipient, withdrawal), so the merchant's own wallet and recipients are not touched. What can
 * be undone is undone at the end, also after a failure: the webhook endpoint is deleted, the
 * temporary API key revoked, the payment link deactivated. The rest is listed by id.
 */
import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliError, EXIT, jsonErrors, reportError, usage } from '../../errors.js';
import { checkHttpUrl } from '../../checks.js';
import type { IO } from '../../io.js';
import { painter, printJson, resolveFormat, type Painter } from '../../output.js';
import { openTarget as realOpenTarget, type Globals, type Target } from '../../target.js';
import { randomCpf } from '../sandboxData.js';
import { junitXml } from './junit.js';
import { STEP_NAMES, Skip, checkInterrupted, cleanup, errorOf, steps, type Ctx } from './steps.js';
import type { SmokeOptions, SmokeSummary, StepResult, StepStatus } from './types.js';
import type { RunEnv } from '../shape.js';
import { onStopSignals } from '../../signals.js';

export type { SmokeOptions, SmokeSummary, StepResult } from './types.js';
export { STEP_NAMES } from './steps.js';
export { junitXml, xmlEscape } from './junit.js';
export { randomCpf, tinyPng } from '../sandboxData.js';

export interface SmokeDeps {
  openTarget?: (g: Globals, io: IO) => Promise<Target>;
}

/**
 * The JUnit report can be written where it is asked for (its directory exists and may be
 * written; it is not a directory): checked before any step runs, so a run is never made only
 * for its report to be lost at the end.
 */
function checkReportPath(given: string, path: string): void {
  try {
    if (!existsSync(path)) accessSync(dirname(path), constants.W_OK);
    else if (statSync(path).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    else accessSync(path, constants.W_OK);
  } catch (e) {
    throw reportUnwritable(given, e);
  }
}
const reportUnwritable = (given: string, e: unknown) => usage(`--junit: cannot write ${given}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);

export async function smoke(g: Globals, o: SmokeOptions, io: IO, deps: SmokeDeps = {}): Promise<number> {
  const timeoutS = Number(o.timeout ?? 60);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw usage(`--timeout must be a positive number of seconds, got '${o.timeout}'`);
  if (o.webhookPort !== undefined && (!/^\d+$/.test(o.webhookPort) || Number(o.webhookPort) > 65535)) {
    throw usage(`--webhook-port must be a number from 0 to 65535, got '${o.webhookPort}'`);
  }
  if (o.webhookUrl !== undefined) checkHttpUrl('--webhook-url', o.webhookUrl);
  const junitPath = o.junit ? resolve(io.cwd, o.junit) : undefined;
  if (junitPath) checkReportPath(o.junit!, junitPath);
  const paint = await painter(g, io);
  const say = (s: string) => {
    if (!g.quiet) io.err(s + '\n');
  };

  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const results: StepResult[] = [];
  let target: Target | undefined;
  let failure: { step: string; error: unknown } | null = null;
  let ctx: Ctx | undefined;
  try {
    target = await (deps.openTarget ?? realOpenTarget)(g, io);
  } catch (e) {
    failure = { step: 'key check', error: e };
  }
  const targetName = target ? (target.kind === 'embedded' ? `embedded:${target.dataDir}` : (target.baseUrl ?? 'remote')) : 'unknown';
  let cleanupProblems: string[] = [];
  let unhook = () => {};
  if (target) {
    ctx = {
      client: target.client,
      target,
      timeoutMs: timeoutS * 1000,
      env: io.env,
      runId: `${startedAt.replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomUUID().slice(0, 8)}`,
      mode: null,
      received: [],
      cpf: randomCpf(),
      created: [],
      interrupted: null,
    };
    // Ctrl-C / SIGTERM: stop at the next wait or step, then clean up as after a failure
    const c = ctx;
    unhook = onStopSignals((sig) => {
      if (!c.interrupted) say(`${sig}: stopping after the current step, then cleaning up…`);
      c.interrupted ??= sig;
    });
    say(`mpay smoke on ${targetName}`);
    for (const name of STEP_NAMES) {
      if (failure) {
        results.push({ name, status: 'not_run', duration_ms: 0 });
        continue;
      }
      const t0 = performance.now();
      try {
        checkInterrupted(ctx);
        const detail = await steps[name](ctx, o);
        const ms = Math.round(performance.now() - t0);
        results.push({ name, status: 'passed', duration_ms: ms, ...(detail ? { detail } : {}) });
        say(`${paint.green('✓')} ${name}  ${ms} ms${detail ? paint.dim(`  ${detail}`) : ''}`);
      } catch (e) {
        const ms = Math.round(performance.now() - t0);
        if (e instanceof Skip) {
          results.push({ name, status: 'skipped', duration_ms: ms, detail: e.message });
          say(`${paint.yellow('-')} ${name}  skipped: ${e.message}`);
          continue;
        }
        failure = { step: name, error: e };
        const err = errorOf(e);
        results.push({ name, status: 'failed', duration_ms: ms, error: err });
        say(`${paint.red('✗')} ${name}  ${ms} ms  ${err.message}`);
      }
    }
    cleanupProblems = await cleanup(ctx, say);
    await target.close().catch((e: unknown) => cleanupProblems.push(`closing the target: ${(e as Error).message}`));
    unhook();
  } else {
    STEP_NAMES.forEach((name, i) =>
      results.push(i === 0 ? { name, status: 'failed', duration_ms: 0, error: errorOf(failure!.error) } : { name, status: 'not_run', duration_ms: 0 }),
    );
  }

  const summary: SmokeSummary = {
    ok: !failure && cleanupProblems.length === 0,
    target: targetName,
    mode: ctx?.mode ?? null,
    started_at: startedAt,
    duration_ms: Date.now() - started,
    failed_step: failure?.step ?? null,
    steps: results,
    created: ctx?.created ?? [],
  };

  const kept = summary.created.filter((c) => c.cleanup === 'kept');
  if (kept.length) say(`created and kept (cannot be deleted): ${kept.map((c) => `${c.kind} ${c.id}`).join(', ')}`);
  if (junitPath) {
    try {
      writeFileSync(junitPath, junitXml(summary));
      say(`JUnit report: ${junitPath}`);
    } catch (e) {
      reportError(io, g, reportUnwritable(o.junit!, e));
      if (!failure) return EXIT.usage;
    }
  }
  await printSummary(g, io, summary, paint);

  if (failure) {
    return reportError(io, g, failure.error, `smoke failed at step "${failure.step}"`);
  }
  if (cleanupProblems.length) {
    if (jsonErrors(g)) return reportError(io, g, new CliError(`cleanup: ${cleanupProblems.join('; ')}`, EXIT.refused, 'cleanup_failed'));
    for (const p of cleanupProblems) io.err(`error: cleanup: ${p}\n`);
    return EXIT.refused;
  }
  const counts = (s: StepStatus) => results.filter((r) => r.status === s).length;
  say(`smoke passed: ${counts('passed')} steps passed, ${counts('skipped')} skipped, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return EXIT.ok;
}

async function printSummary(g: Globals, io: IO, s: SmokeSummary, paint: Painter): Promise<void> {
  const format = resolveFormat(g, io);
  if (format !== 'table') {
    await printJson(io, s, format);
    return;
  }
  const { default: Table } = await import('cli-table3');
  const t = new Table({ head: ['step', 'status', 'time', 'detail'].map((h) => paint.bold(h)), style: { head: [], border: [] } });
  const color = (st: StepStatus) => (st === 'passed' ? paint.green(st) : st === 'failed' ? paint.red(st) : paint.yellow(st.replace('_', ' ')));
  for (const r of s.steps) t.push([r.name, color(r.status), r.status === 'not_run' ? '' : `${r.duration_ms} ms`, r.error?.message ?? r.detail ?? '']);
  io.out(t.toString() + '\n');
}

/** The command's entry: its options, with the target opener and IO injected. */
export async function run(opts: SmokeOptions, env: RunEnv): Promise<number> {
  return smoke(env.globals, opts, env.io, { openTarget: env.openTarget });
}
