/**
 * `mpay trigger EVENT` (like `stripe trigger`): creates in the sandbox whatever the event needs
 * and prints what it created, so a webhook integration can be tested with one command;
 * `mpay trigger --list` names every event and what it creates. The gh shape: typed options,
 * `register` only parses, `run(opts, env)` takes the target opener and IO injected.
 */
import { Argument, type Command } from 'commander';
import { EVENT_NAMES, type EventName } from '../../../contract/events.js';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { CliError, EXIT, usage } from '../../errors.js';
import { runEnv, type RunEnv } from '../shape.js';

export interface TriggerOptions {
  event?: string;
  list?: boolean;
  /** seconds a wait (charge capture, withdrawal) may take */
  timeout?: string;
  /** a charge event from a charge of this payment method */
  paymentMethod?: string;
}

export function register(program: Command, deps: CliDeps): void {
  program
    .command('trigger')
    .description('create in the sandbox whatever an event needs (token, charge, clock move, review…) so it fires, and print what was created')
    .addArgument(new Argument('[event]', 'event name; see --list'))
    .option('--list', 'list the events and what each creates')
    .option('--timeout <seconds>', 'how long a wait (capture, withdrawal) may take', '30')
    .option('--payment-method <method>', 'charge events: the payment method of the charge (credit_card, pix, boleto); chargeback events: pix makes a MED (see --list)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay trigger --list\n  $ mpay trigger charge.captured\n  $ mpay trigger charge.captured --payment-method boleto\n  $ mpay trigger charge.expired\n  $ mpay trigger chargeback.lost --payment-method pix\n  $ mpay webhooks listen --forward-to http://localhost:3000/webhooks &   # then, in another terminal:\n  $ mpay trigger withdrawal.failed -o json\n\nSandbox only. receivable.paid moves the merchant\'s sandbox clock 31 days.\n',
    )
    .action(
      action(deps, async (event: string | undefined, o: Omit<TriggerOptions, 'event'>, cmd: Command) =>
        run({ ...o, event }, await runEnv(globalsOf(cmd), deps.io, deps.openTarget)),
      ),
    );
}

const isEvent = (e: string): e is EventName => (EVENT_NAMES as readonly string[]).includes(e);

export async function run(opts: TriggerOptions, env: RunEnv): Promise<number> {
  const { io, globals: g } = env;
  const { RECIPES, Maker } = await import('./recipes.js');
  const { BELOW_TO_COPY, belowTheBox, painter, printData, resolveFormat } = await import('../../output.js');
  const format = resolveFormat(g, io);
  const paint = await painter(g, io);
  if (opts.list) {
    if (opts.event) throw usage('--list takes no event');
    await printData(io, EVENT_NAMES.map((event) => ({ event, creates: RECIPES[event].creates })), { format, paint, columns: ['event', 'creates'] });
    return EXIT.ok;
  }
  if (!opts.event) throw usage(`name an event (one of: ${EVENT_NAMES.join(', ')}), or --list`);
  if (!isEvent(opts.event)) throw usage(`unknown event '${opts.event}'; one of: ${EVENT_NAMES.join(', ')}`);
  const timeoutS = Number(opts.timeout ?? 30);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw usage(`--timeout must be a positive number of seconds, got '${opts.timeout}'`);
  const event = opts.event;
  const recipe = RECIPES[event];
  let make = recipe.run;
  if (opts.paymentMethod !== undefined && opts.paymentMethod !== recipe.method) {
    const methods = [recipe.method, ...Object.keys(recipe.methods ?? {})].filter(Boolean);
    const chosen = recipe.methods?.[opts.paymentMethod as keyof typeof recipe.methods];
    if (!chosen) {
      throw usage(methods.length ? `${event} takes --payment-method ${methods.join(' or ')} (or none)` : `${event} takes no --payment-method`);
    }
    make = chosen;
  }
  const target = await env.openTarget(g, io);
  try {
    const maker = new Maker(target.client, io.env, timeoutS * 1000);
    const me = await maker.me();
    if (me.mode !== 'sandbox') throw new CliError(`mpay trigger creates records in the sandbox; this target runs in ${me.mode} mode`, EXIT.refused);
    try {
      await make(maker);
    } catch (e) {
      // what was made before the failure stays in the sandbox: say what it is
      if (maker.made.length) io.err(`created before the failure: ${maker.made.map((x) => `${x.kind} ${x.id}`).join(', ')}\n`);
      throw e;
    }
    if (!g.quiet) io.err(`Triggered ${event}\n`);
    if (format === 'table') {
      // values to copy in a detail (a checkout URL, a slip's URL) print whole below the box, never cut
      const rows = maker.made.map((m) => {
        const copy = maker.toCopy.get(m);
        return copy ? { ...m, detail: Object.values(copy).reduce((d, v) => d.replace(v, BELOW_TO_COPY), m.detail ?? '') } : m;
      });
      await printData(io, rows, { format, paint, columns: ['kind', 'id', 'detail'] });
      io.out(belowTheBox(paint, [...maker.toCopy].flatMap(([m, copy]) => Object.entries(copy).map(([field, v]) => [`${m.kind}.${field}`, v] as const))));
      if (target.kind === 'embedded' && !g.quiet) for (const line of (await import('../../embeddedUrls.js')).embeddedUrlNotes(maker.made)) io.err(line + '\n');
    }
    else await printData(io, { event, created: maker.made }, { format, paint });
    return EXIT.ok;
  } finally {
    await target.close();
  }
}
