// `rescued processor …`: a merchant's own gateway accounts. Credentials are read as JSON from
// a file or standard input, never from the command line (argv is visible to every user of
// the machine, and lands in shell history), and are never printed back: `list` masks them.
import type { Command } from 'commander';
import { RescuedError } from '../errors.ts';
import { connectorNames } from '../gateways.ts';
import { checkLiveCredentials, createAccountService, type AccountView } from '../processors/accounts.ts';
import { GatewayError, type AccountType } from '../processors/connector.ts';
import { connectorFor } from '../processors/router.ts';
import type { Core } from '../core.ts';
import { ioOf, readInput, withCore } from './context.ts';

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

async function credentialsFrom(program: Command, file: string | undefined): Promise<unknown> {
  const io = ioOf(program);
  const text = file && file !== '-' ? await readInput(program, file) : await (io.stdin ?? readStdin)();
  try {
    return text.trim() === '' ? {} : (JSON.parse(text) as unknown);
  } catch {
    throw new RescuedError('ERR_PROCESSOR_ACCOUNT_INVALID', 'The credentials are not JSON (give an object, e.g. {"secretKey": "sk_live_…"}).');
  }
}

/**
 * A failed test call as one line for a person: the HTTP status, the call (method and URL) and
 * what the gateway said, instead of a stack trace. Other errors go on as they are.
 */
function testFailure(label: string, type: AccountType, err: unknown): unknown {
  if (!(err instanceof GatewayError)) return err;
  const answer = err.status ? `HTTP ${err.status}` : 'no answer';
  const call = err.request ? ` from ${err.request}` : ` from the ${type} gateway`;
  return new RescuedError('ERR_PROCESSOR_ACCOUNT_TEST_FAILED', `${label}: test call failed: ${answer}${call}: ${err.message}`);
}

const line = (a: AccountView) => `${a.label.padEnd(16)}  ${a.type.padEnd(12)}  ${a.isDefault ? 'default' : '       '}  ${a.createdAt}  ${JSON.stringify(a.credentials)}`;
const accounts = (core: Core) => createAccountService({ db: core.database.db, ring: core.keyRing, mode: core.config.mode });

export function processorCommands(program: Command): void {
  const processor = program.command('processor').description('a merchant\'s own gateway accounts, through which its retries are charged');

  processor
    .command('add <mid>')
    .description('add an account; its credentials are read as JSON from --credentials-file or standard input')
    .requiredOption('--type <type>', `${connectorNames()} (or sandbox, in sandbox mode)`)
    .requiredOption('--label <label>', 'the account\'s name for this merchant (additionalFields processorAccount names it)')
    .option('--default', 'charge through this account when nothing else decides')
    .option('--credentials-file <file>', 'a JSON file with the credentials (- or absent: standard input)')
    .option('--json', 'print JSON')
    .action((mid: string, opts: { type: string; label: string; default?: boolean; credentialsFile?: string; json?: boolean }) =>
      withCore(program, async (core, print) => {
        const view = await accounts(core).add(mid, { type: opts.type, label: opts.label, isDefault: opts.default === true, credentials: await credentialsFrom(program, opts.credentialsFile) });
        core.log.info({ mid, label: view.label, type: view.type, component: 'cli' }, 'processor account added');
        print(opts.json ? view : `added ${view.type} account ${view.label}${view.isDefault ? ' (default)' : ''}: ${JSON.stringify(view.credentials)}`, opts.json);
      }),
    );

  processor
    .command('list <mid>')
    .description('list the merchant\'s accounts, secrets masked')
    .option('--json', 'print JSON')
    .action((mid: string, opts: { json?: boolean }) =>
      withCore(program, async (core, print) => {
        const views = await accounts(core).list(mid);
        print(opts.json ? views : views.map(line).join('\n') || '(no processor accounts)', opts.json);
      }),
    );

  processor
    .command('remove <mid> <label>')
    .description('remove an account (its past attempts keep naming it)')
    .action((mid: string, label: string) =>
      withCore(program, async (core, print) => {
        await accounts(core).remove(mid, label);
        print(`removed account ${label}`);
      }),
    );

  processor
    .command('test <mid> <label>')
    .description('make a harmless authenticated call with the account and say what it proved')
    .action((mid: string, label: string) =>
      withCore(program, async (core, print) => {
        const { row, credentials } = await accounts(core).find(mid, label);
        if (row.type === 'sandbox') return print(`${label}: the sandbox processor needs no credentials`);
        checkLiveCredentials(row.type, credentials, core.config.mode);
        const proved = await connectorFor(row.type, credentials, core.config.processor).test().catch((err: unknown) => {
          throw testFailure(label, row.type, err);
        });
        // The override is said with the proof: a test that passed against a fake proves nothing about the gateway.
        const override = core.config.processor.gatewayUrls[row.type];
        print(`${label}: ${proved}${override ? ` (at ${override}: processor.gatewayUrls.${row.type})` : ''}`);
      }),
    );
}
